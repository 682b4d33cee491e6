import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { unavailable, UNAVAILABLE_RETRY_AFTER_S } from '../errors.js';
import { ErrorEnvelope, ok, Success } from '../../contract/schemas/envelope.js';
import { createQueueProbe } from '../../webhooks/queue-probe.js';

const WebhookQueue = Type.Object(
  {
    pending: Type.Integer({ minimum: 0, description: 'Deliveries waiting for an enabled endpoint: due now, being attempted, or waiting for a retry.' }),
    oldest_pending_age_s: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'Seconds since the oldest of them was queued (null: none). Growing steadily: an endpoint is failing, or no process delivers (WEBHOOK_WORKER).',
    }),
    held: Type.Integer({ minimum: 0, description: 'Deliveries kept for disabled endpoints; sent once the endpoint is enabled again.' }),
    as_of: Type.String({ format: 'date-time', description: 'When these figures were read: earlier than the request while the embedded database is busy with a long transaction.' }),
  },
  { description: 'The webhook delivery queue, shared by every API process of the deployment.' },
);

const ReplicaHealth = Type.Object({
  name: Type.String({ description: 'host:port/database of the replica (from `DATABASE_READ_URL`, without credentials).' }),
  state: Type.Union([Type.Literal('up'), Type.Literal('lagging'), Type.Literal('down')], {
    description: '`up`: serves reads. `lagging`: older than `DATABASE_READ_MAX_LAG_S`, its reads go to the primary. `down`: unreachable, its reads go to the primary.',
  }),
  lag_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'WAL bytes written on the primary and not yet replayed here; null when the primary or the replica does not answer.' }),
  lag_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description: 'How long ago the primary was at the position this replica has replayed (0: caught up), measured each second; null when the primary does not answer.',
  }),
});

const Health = Type.Object({
  database: Type.Union([Type.Literal('up'), Type.Literal('read-only')], {
    description: '`up`: the primary answers. `read-only`: the primary does not, reads are served by the replicas and writes answer 503.',
  }),
  driver: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')], { description: 'The database driver: the embedded PGlite or a PostgreSQL server.' }),
  catalogue_version: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'The catalogue version this instance serves: it grows by one with every committed import (or other catalogue write). ' +
        'Instances of one deployment reach the same number within a second of the commit.',
    }),
  ),
  change_signal: Type.Optional(
    Type.Union([Type.Literal('listening'), Type.Literal('reconnecting')], {
      description:
        '`listening`: changes made by any process reach this instance at once. `reconnecting`: the listening connection was lost; ' +
        'until it is back, key records are read from the database on every request.',
    }),
  ),
  search: Type.Object(
    {
      catalogue_version: Type.Integer({ minimum: 0, description: 'The catalogue version of the in-memory search snapshot serving GET /projects, /projects/list and /companies.' }),
      built_at: Type.String({ format: 'date-time', description: 'When that snapshot was built.' }),
      build_ms: Type.Number({ minimum: 0, description: 'How long building it took, in milliseconds.' }),
    },
    {
      description:
        'The search snapshot in service. After an import it catches up with `catalogue_version` once rebuilt (seconds on a large ' +
        'catalogue); meanwhile searches wait for it, up to 5 s, so that they agree with the detail endpoints.',
    },
  ),
  webhooks: Type.Optional(WebhookQueue),
  replicas: Type.Optional(Type.Array(ReplicaHealth, { description: 'Only with `DATABASE_READ_URL`: each read replica, in configuration order, as of the last poll (every second).' })),
});

const Live = Type.Object({
  uptime_s: Type.Number({ minimum: 0, description: 'Seconds since this process started.' }),
});

const Ready = Type.Object({
  database: Type.Union([Type.Literal('up'), Type.Literal('read-only')], {
    description: '`up`: the primary answers. `read-only`: only a replica does (reads are served, writes answer 503).',
  }),
  search_catalogue_version: Type.Integer({ minimum: 0, description: 'The catalogue version of the search snapshot in service.' }),
});

/** The process's probes are logged at debug only (request-log.ts): they come every few seconds. */
const probe = { probe: true };

/** Whether the primary, or else a replica in service, answers; undefined when neither does. */
async function databaseState(deps: AppDeps): Promise<'up' | 'read-only' | undefined> {
  if (await deps.database.ping()) return 'up';
  return deps.database.replicas?.status().some((replica) => replica.state === 'up') ? 'read-only' : undefined;
}

export const healthRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const webhookQueue = createQueueProbe(deps.database.primary);
  app.get(
    '/health/live',
    {
      config: probe,
      schema: {
        tags: ['Service'],
        operationId: 'healthLive',
        summary: 'Liveness probe (no key)',
        description:
          'Answers 200 as long as the process runs and its event loop turns; it asks nothing of the database, so an outage ' +
          'does not get healthy instances restarted. For an orchestrator\u2019s liveness probe and the container `HEALTHCHECK`. ' +
          'Logged at `debug` only.',
        security: [],
        response: { 200: Success(Live, 'The process answers.') },
      },
    },
    async () => ok({ uptime_s: Math.round(process.uptime() * 10) / 10 }),
  );

  app.get(
    '/health/ready',
    {
      config: probe,
      schema: {
        tags: ['Service'],
        operationId: 'healthReady',
        summary: 'Readiness probe (no key)',
        description:
          'Whether a load balancer should send requests here: 200 once the search snapshot is built (before the port opens), ' +
          'while the primary or a read replica in service answers (as `/health`) and the process is not shutting down. ' +
          `503 \`${messages.shuttingDown}\` from SIGTERM on, for \`SHUTDOWN_DRAIN_S\` seconds during which requests are still ` +
          'answered, so that the load balancer takes the instance out before it stops accepting connections (docs/deployment.md); ' +
          `503 \`${messages.databaseDown}\` while no database server answers. Logged at \`debug\` only; a 503 here is not counted ` +
          'as a query error.',
        security: [],
        response: {
          200: Success(Ready, 'Ready: send requests here.'),
          503: { ...Type.Ref(ErrorEnvelope), description: `\`${messages.shuttingDown}\` or \`${messages.databaseDown}\`: send nothing new here.` },
        },
      },
    },
    async (_request, reply) => {
      // Answered here, not thrown: a readiness 503 is a state, not a failure to log or count.
      if (deps.lifecycle.draining) return reply.code(503).send({ status: 'error', message: messages.shuttingDown });
      const database = await databaseState(deps);
      if (deps.lifecycle.draining) return reply.code(503).send({ status: 'error', message: messages.shuttingDown });
      if (!database) return reply.code(503).send({ status: 'error', message: messages.databaseDown });
      return ok({ database, search_catalogue_version: deps.search.current().catalogueVersion });
    },
  );

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
          'No restart is needed after an outage: the connection pool reconnects by itself. On the embedded database (PGlite), 503 while an ' +
          'engine left unusable (e.g. by a full disk during an import) is replaced by a new one on the same directory, which happens by itself. ' +
          'Also shows the catalogue version served. ' +
          'With read replicas (`DATABASE_READ_URL`) the body lists each replica\u2019s state and lag; a lagging or unreachable replica ' +
          'is not an error (its reads go to the primary). When the primary does not answer but a replica serves reads, the answer is ' +
          '200 with `database: "read-only"`: this process still answers reads, and writes answer 503 until the primary is back. ' +
          '`webhooks` shows the delivery queue: its depth and the age of its oldest pending delivery.',
        security: [],
        response: {
          200: Success(Health, 'The database (or, read-only, a replica) answers.'),
          503: { ...Type.Ref(ErrorEnvelope), description: `\`${messages.databaseDown}\`: the database (with read replicas: the primary and every replica in service) does not answer. Retry after \`Retry-After\` seconds.` },
        },
      },
    },
    async () => {
      const state = await databaseState(deps);
      // Thrown, so the 503 goes through the error handler like every other error (envelope, log).
      if (!state) throw unavailable(messages.databaseDown);
      const replicas = deps.database.replicas?.status();
      const changes = deps.changes;
      const snapshot = deps.search.current();
      const webhooks = state === 'up' ? await webhookQueue() : undefined;
      return ok({
        database: state,
        driver: deps.database.driver,
        ...(changes && {
          catalogue_version: changes.catalogueVersion,
          change_signal: changes.listening ? ('listening' as const) : ('reconnecting' as const),
        }),
        search: { catalogue_version: snapshot.catalogueVersion, built_at: snapshot.builtAt.toISOString(), build_ms: Math.round(snapshot.buildMs) },
        ...(webhooks && { webhooks }),
        ...(replicas && { replicas }),
      });
    },
  );
};
