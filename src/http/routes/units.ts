import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { findUnit } from '../../queries/units.js';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { displayCurrencyOf } from '../display-currency.js';
import { notFound } from '../errors.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { DisplayCurrencyParam } from '../../contract/schemas/currencies.js';
import { IdParams } from '../../contract/schemas/params.js';
import { UnitModel, UnitQuery } from '../../contract/schemas/units.js';
import { parseFields, selectableFields, selectEnvelopeData } from '../../contract/field-selection.js';
import { sendJsonParts, serializeText } from '../raw-json.js';
import { toUnitModel } from '../presenters/units.js';

export const unitRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database: { db }, links, search }) => {
  app.get(
    '/units/:id',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'getUnit',
        summary: 'Unit detail',
        description:
          'The unit with its project, developer, area, plan and tags, as in the data model: snake_case, except the project\u2019s ' +
          '`CreatedAt`/`UpdatedAt` and its `company` and `author` objects (PascalCase). `price` is in the key\u2019s prices; with `currency` ' +
          '(an addition), in that currency, and a `currency` field follows it. With `fields` (an addition), only the ' +
          'properties named are returned, e.g. `fields=id,unit_number,price,plan_file`.',
        params: IdParams,
        querystring: UnitQuery,
        response: responses({ 200: Success(UnitModel, 'The unit, with its project, developer, area, plan and tags.') }, [404], {
          404: '`unit not found`: unknown or deleted unit, draft or deleted project, or a developer without an approved contract (all alike).',
        }),
      },
    },
    async (request, reply) => {
      const fields = parseFields(request.query.fields, selectableFields(UnitModel));
      const display = displayCurrencyOf(request.query.currency, (await search.latest()).rates);
      const row = await findUnit(db, display ? { ...request.auth, display } : request.auth, request.params.id);
      if (!row) throw notFound(messages.unitNotFound);
      if (!fields) return ok(toUnitModel(row, links));
      return sendJsonParts(reply, [selectEnvelopeData(serializeText(reply, ok(toUnitModel(row, links))), fields)]);
    },
  );
};

