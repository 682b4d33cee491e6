import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app.js';
import { messages, unavailable, UNAVAILABLE_RETRY_AFTER_S } from '../errors.js';
import { ErrorEnvelope, ok, Success } from '../schemas/envelope.js';

const Health = Type.Object({
  database: Type.Literal('up'),
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
        description:
          `Reports whether the database answers \`SELECT 1\` within 2 seconds: 200 with \`database: "up"\` when it does; ` +
          `503 \`${messages.databaseDown}\` with \`Retry-After: ${UNAVAILABLE_RETRY_AFTER_S}\` when it does not. ` +
          'No restart is needed after an outage: the connection pool reconnects by itself.',
        security: [],
        response: {
          200: Success(Health),
          503: { ...Type.Ref(ErrorEnvelope), description: `\`${messages.databaseDown}\`: the database does not answer. Retry after \`Retry-After\` seconds.` },
        },
      },
    },
    async () => {
      // Thrown, so the 503 goes through the error handler like every other error (envelope, log).
      if (!(await deps.database.ping())) throw unavailable(messages.databaseDown);
      return ok({ database: 'up' as const, driver: deps.database.driver });
    },
  );
};
