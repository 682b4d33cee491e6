import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { PGliteWorkerClient } from './pglite-client.js';
import { namePreparedStatements, StatementNames } from './prepared-statements.js';
import type { DB } from './schema.js';
import { textParsers } from './type-parsers.mjs';

export type Driver = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  driver: Driver;
  /** Connections that can be in use at once (1 for PGlite, which has a single one). */
  poolSize: number;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** PGlite data directory; `memory://` keeps everything in memory. */
  dataDir?: string;
  /** PGlite only: start from a tarball made by `dumpDataDir` (tests clone a migrated template this way). */
  loadDataDir?: Blob;
  poolSize?: number;
}

/** How long a request may wait for a PostgreSQL connection (new or from the pool). */
export const CONNECT_TIMEOUT_MS = 3_000;
/** The healthcheck reports the database down when SELECT 1 takes longer than this. */
export const PING_TIMEOUT_MS = 2_000;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options.dataDir ?? './data', options.loadDataDir);
}

function openPostgres(connectionString: string, max: number): Database {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Bounds both opening a connection and waiting for a free one in the pool: with the server gone
    // (or the pool exhausted for this long) a request fails within this time and is answered 503.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Fail fast rather than queue forever when the server stops answering on an open connection.
    query_timeout: 30_000,
    // Detects a dead peer on idle pooled connections without waiting for the next query.
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const statementNames = new StatementNames();
  pool.on('connect', (client) => {
    // pg-pool listens for errors only while a client is idle. A client checked out by a request also
    // emits 'error' when its socket dies (besides failing the query in progress, which is how the
    // request learns of it): without a listener that event would be an uncaught exception and take
    // the whole process down. The broken client is dropped from the pool when it is released.
    client.on('error', () => {});
    // No parallel workers: with many requests at once they only add start-up cost per query (measured
    // on the L catalogue: a unit-tag filter took 68 ms with a Gather Merge, 40 ms without).
    // No JIT: a plan whose estimated cost passes jit_above_cost is compiled first, which costs far more
    // than these queries run (a /projects page with every filter: 11 ms to run, 1.3 s with JIT).
    client.query(`SET TIME ZONE 'UTC'; SET max_parallel_workers_per_gather = 0; SET jit = off`).catch(() => {});
    namePreparedStatements(client, statementNames);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, driver: 'postgres', poolSize: max, ping: () => ping(db), close: () => db.destroy() };
}

async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  // In a worker thread (pglite-client.ts), so that a query does not stop HTTP handling.
  const client = await PGliteWorkerClient.open({ dataDir: dataDir === 'memory://' ? undefined : dataDir, loadDataDir });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client as unknown as ConstructorParameters<typeof PGliteDialect>[0]) });
  return { db, driver: 'pglite', poolSize: 1, ping: () => ping(db), close: () => db.destroy() };
}

async function ping(db: Kysely<DB>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  // A half-open connection would only fail at query_timeout; a healthcheck must answer sooner.
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  const query = sql`SELECT 1`.execute(db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
