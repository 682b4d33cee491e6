import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DB } from './schema.js';

export type Driver = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  driver: Driver;
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

// The OIDs of the types whose text form we parse. Both drivers get the same parsers, so rows look the
// same whichever database is behind: numeric/bigint as numbers, timestamps as RFC 3339 strings.
const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184, date: 1082 } as const;
const toNumber = (value: string) => Number(value);
const toIsoTimestamp = (value: string) => new Date(value).toISOString();
const toIsoTimestampUtc = (value: string) => new Date(`${value}Z`).toISOString();

const textParsers: Record<number, (value: string) => unknown> = {
  [OID.int8]: toNumber,
  [OID.numeric]: toNumber,
  [OID.timestamptz]: toIsoTimestamp,
  [OID.timestamp]: toIsoTimestampUtc,
  [OID.date]: (value: string) => value,
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options.dataDir ?? './data', options.loadDataDir);
}

function openPostgres(connectionString: string, max: number): Database {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 5_000,
    // Fail fast rather than queue forever when the server is gone.
    query_timeout: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.query(`SET TIME ZONE 'UTC'`).catch(() => {});
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, driver: 'postgres', ping: () => ping(db), close: () => db.destroy() };
}

async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  const pglite = new PGlite({
    dataDir: dataDir === 'memory://' ? undefined : dataDir,
    loadDataDir,
    parsers: textParsers,
    relaxedDurability: false,
  });
  await pglite.waitReady;
  await pglite.exec(`SET TIME ZONE 'UTC'`);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return { db, driver: 'pglite', ping: () => ping(db), close: () => db.destroy() };
}

async function ping(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
