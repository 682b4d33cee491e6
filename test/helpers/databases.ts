import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { openDatabase, type Database, type Driver } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export type { Driver };

/*
 * Every suite runs on the embedded database; with TEST_DATABASE_URL (any database on a PostgreSQL
 * server) it runs on PostgreSQL too, in a database of its own that is dropped afterwards.
 *
 *   describe.each(drivers)('... (%s)', (driver) => { ... createTestDatabase(driver) ... })
 */
export const drivers: Driver[] = ['pglite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])];

export interface TestDatabase {
  database: Database;
  /** PostgreSQL only: the connection string of the database (e.g. to reach it through a proxy). */
  url?: string;
  /** Closes the database and, on PostgreSQL, drops it. */
  drop(): Promise<void>;
}

/** A freshly migrated, empty database; with `migrate: false` not even the schema (migration tests). */
export async function createTestDatabase(driver: Driver, { migrate = true } = {}): Promise<TestDatabase> {
  if (driver === 'postgres') return createPostgresDatabase(migrate);
  if (!migrate) {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, drop: () => database.close() };
  }
  return createPgliteDatabase();
}

// Migrating a new PGlite takes seconds; cloning a migrated one from its tarball is much quicker.
let pgliteTemplate: Promise<Blob> | undefined;

async function migratedPgliteTemplate(): Promise<Blob> {
  const pglite = new PGlite();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
    return (await pglite.dumpDataDir('none')) as Blob;
  } finally {
    await db.destroy();
  }
}

async function createPgliteDatabase(): Promise<TestDatabase> {
  pgliteTemplate ??= migratedPgliteTemplate();
  const database = await openDatabase({ dataDir: 'memory://', loadDataDir: await pgliteTemplate });
  return { database, drop: () => database.close() };
}

async function createPostgresDatabase(migrate: boolean): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `cat_test_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  try {
    if (migrate) await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    throw error;
  }
  return {
    database,
    url: url.toString(),
    async drop() {
      // Already closed when a server it was handed to has stopped (test/helpers/running-server.ts).
      await database.close().catch(() => {});
      await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
