import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../deps.js';
import { unitBody, unitRead } from '../catalogue-reads.js';
import { responses, Success } from '../../contract/schemas/envelope.js';
import { IdParams } from '../../contract/schemas/params.js';
import { UnitModelSchemas, UnitQuery } from '../../contract/schemas/units.js';

export const unitRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const { search, details } = deps;
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
      // Everything the body depends on is in the read's key (the key's visibility is settled by the read).
      const read = await unitRead(deps, request.auth, request.params.id, request.query);
      const kept = details.bodies.sendKept(request, reply, search, read.snapshot, 'units', read.key);
      if (kept) return kept;
      const body = await unitBody(deps, read);
      return details.bodies.sendMade(request, reply, read.snapshot, 'units', read.key, body.parts, body.ofSnapshot);
    },
  );
};

