import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { findUnit } from '../../queries/units.js';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { notFound } from '../errors.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { IdParams } from '../../contract/schemas/params.js';
import { UnitModel } from '../../contract/schemas/units.js';
import { toUnitModel } from '../presenters/units.js';

export const unitRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database: { db }, links }) => {
  app.get(
    '/units/:id',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'getUnit',
        summary: 'Unit detail',
        description:
          'The unit with its project, developer, area, plan and tags, as in the data model: snake_case, except the project\u2019s ' +
          '`CreatedAt`/`UpdatedAt` and its `company` and `author` objects (PascalCase). `price` is in the key\u2019s prices.',
        params: IdParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(UnitModel, 'The unit, with its project, developer, area, plan and tags.') }, [404], {
          404: '`unit not found`: unknown or deleted unit, draft or deleted project, or a developer without an approved contract (all alike).',
        }),
      },
    },
    async (request) => {
      const row = await findUnit(db, request.auth, request.params.id);
      if (!row) throw notFound(messages.unitNotFound);
      return ok(toUnitModel(row, links));
    },
  );
};
