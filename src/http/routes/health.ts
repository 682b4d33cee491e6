import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { unavailable, UNAVAILABLE_RETRY_AFTER_S } from '../errors.js';
import { ErrorEnvelope, ok, Success } from '../../contract/schemas/envelope.js';

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
  replicas: Type.Optional(Type.Array(ReplicaHealth, { description: 'Only with `DATABASE_READ_URL`: each read replica, in configuration order, as of the last poll (every second).' })),
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
          'No restart is needed after an outage: the connection pool reconnects by itself. On the embedded database (PGlite), 503 while an ' +
          'engine left unusable (e.g. by a full disk during an import) is replaced by a new one on the same directory, which happens by itself. ' +
          'Also shows the catalogue version served. ' +
          'With read replicas (`DATABASE_READ_URL`) the body lists each replica\u2019s state and lag; a lagging or unreachable replica ' +
          'is not an error (its reads go to the primary). When the primary does not answer but a replica serves reads, the answer is ' +
          '200 with `database: "read-only"`: this process still answers reads, and writes answer 503 until the primary is back.',
        security: [],
        response: {
          200: Success(Health, 'The database (or, read-only, a replica) answers.'),
          503: { ...Type.Ref(ErrorEnvelope), description: `\`${messages.databaseDown}\`: the database (with read replicas: the primary and every replica in service) does not answer. Retry after \`Retry-After\` seconds.` },
        },
      },
    },
    async () => {
      const { database } = deps;
      const primaryUp = await database.ping();
      const replicas = database.replicas?.status();
      // Thrown, so the 503 goes through the error handler like every other error (envelope, log).
      if (!primaryUp && !replicas?.some((replica) => replica.state === 'up')) throw unavailable(messages.databaseDown);
      const changes = deps.changes;
      const snapshot = deps.search.current();
      return ok({
        database: primaryUp ? ('up' as const) : ('read-only' as const),
        driver: database.driver,
        ...(changes && {
          catalogue_version: changes.catalogueVersion,
          change_signal: changes.listening ? ('listening' as const) : ('reconnecting' as const),
        }),
        search: { catalogue_version: snapshot.catalogueVersion, built_at: snapshot.builtAt.toISOString(), build_ms: Math.round(snapshot.buildMs) },
        ...(replicas && { replicas }),
      });
    },
  );
};
