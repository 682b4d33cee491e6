import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app.js';
import { ok, Success } from '../schemas/envelope.js';

const Health = Type.Object({
  database: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  driver: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
});

export const healthRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        operationId: 'health',
        summary: 'Healthcheck (no key)',
        description: 'Reports whether the database answers. 200 when it does, 503 when it does not.',
        security: [],
        response: { 200: Success(Health), 503: Success(Health) },
      },
    },
    async (_request, reply) => {
      const up = await deps.database.ping();
      reply.status(up ? 200 : 503);
      return ok({ database: up ? ('up' as const) : ('down' as const), driver: deps.database.driver });
    },
  );
};
