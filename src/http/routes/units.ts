import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { displayCurrencyOf } from '../display-currency.js';
import { notFound } from '../errors.js';
import { responses, Success } from '../../contract/schemas/envelope.js';
import { DisplayCurrencyParam } from '../../contract/schemas/currencies.js';
import { IdParams } from '../../contract/schemas/params.js';
import { UnitModel, UnitModelSchemas, UnitQuery } from '../../contract/schemas/units.js';
import { parseFields, selectableFields, selectionKey } from '../../contract/field-selection.js';
import { visibleUnitIndex } from '../../search/find-unit.js';

export const unitRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { search, details }) => {
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
        response: responses({ 200: Success(UnitModelSchemas.payload, 'The unit, with its project, developer, area, plan and tags (with `fields`, only the properties named).') }, [404], {
          404: '`unit not found`: unknown or deleted unit, draft or deleted project, or a developer without an approved contract (all alike).',
        }),
      },
    },
    async (request, reply) => {
      const fields = parseFields(request.query.fields, selectableFields(UnitModel));
      // One snapshot for the whole request, even if a refresh swaps in another meanwhile.
      const snapshot = await search.latest();
      const display = displayCurrencyOf(request.query.currency, snapshot.rates);
      const scope = display ? { ...request.auth, display } : request.auth;
      const k = visibleUnitIndex(snapshot, scope, request.params.id);
      if (k < 0) throw notFound(messages.unitNotFound);
      // Everything the body depends on (the key's visibility is settled above).
      const key = `/units/${request.params.id} ${scope.price_vector} ${display?.currency ?? ''} ${fields ? selectionKey(fields) : ''}`;
      const kept = details.bodies.sendKept(request, reply, search, snapshot, 'units', key);
      if (kept) return kept;
      const body = await details.units.body(snapshot, { unitId: request.params.id, k, scope, fields });
      if (!body) throw notFound(messages.unitNotFound);
      return details.bodies.sendMade(request, reply, snapshot, 'units', key, body.parts, body.ofSnapshot);
    },
  );
};

