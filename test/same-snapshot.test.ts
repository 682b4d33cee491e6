import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSnapshotOf } from '../src/db/same-snapshot.js';
import { openDatabase } from '../src/db/database.js';
import { linkBuilder } from '../src/contract/links.js';
import { buildSnapshot } from '../src/search/snapshot.js';
import { importBundle } from '../src/import/import-bundle.js';
import { oneUnitCatalogue } from './helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

/*
 * The search snapshot's second read (src/db/same-snapshot.ts, used by src/search/snapshot.ts on
 * PostgreSQL): a read started beside a REPEATABLE READ transaction sees what that transaction sees,
 * not what was committed since. PostgreSQL only (PGlite has one connection: the build reads in turn).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('inSnapshotOf (postgres)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  const version = async (db: typeof t.database.db) => (await db.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version;

  it('reads on another connection what the transaction sees, not a commit made meanwhile', async () => {
    const db = t.database.db;
    const seen = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const before = await version(trx);
        // Committed by another connection after the transaction's snapshot was taken.
        await sql`UPDATE catalogue_state SET version = version + 1 WHERE id = 1`.execute(db);
        const beside = await inSnapshotOf(trx, db, async (other) => ({
          version: await version(other),
          backend: (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(other)).rows[0].pid,
        }));
        const own = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0].pid;
        return { before, beside: await beside.rows, own };
      });
    expect(seen.beside.version).toBe(seen.before);
    expect(seen.beside.backend, 'another connection').not.toBe(seen.own);
    expect(await version(db)).toBe(seen.before + 1);
  });

  it('a build whose second connection cannot start reads in turn: the same snapshot, and the failure reported', async () => {
    await importBundle(t.database.db, oneUnitCatalogue(), { facilityLinkRadiusM: 10_000 });
    const links = linkBuilder(undefined);
    const inTurn = await buildSnapshot(t.database.db, { links, generation: 1 });
    // A pool of one connection: the build's transaction holds it, the second waits out the pool's
    // connection timeout (src/db/database.ts) and fails.
    const one = await openDatabase({ databaseUrl: t.url, poolSize: 1 });
    try {
      const failures: unknown[] = [];
      const beside = await buildSnapshot(one.db, { links, generation: 1, concurrentReads: true, onConcurrentReadFailed: (error) => failures.push(error) });
      expect(failures).toHaveLength(1);
      expect(beside.units.count).toBeGreaterThan(0);
      expect(Array.from(beside.units.id)).toEqual(Array.from(inTurn.units.id));
      expect(beside.catalogueVersion).toBe(inTurn.catalogueVersion);
    } finally {
      await one.close();
    }
  }, 30_000);

  it('a failing read fails where it is awaited, and leaves nothing unhandled', async () => {
    const db = t.database.db;
    await expect(
      db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await version(trx);
          const beside = await inSnapshotOf(trx, db, async (other) => sql`SELECT 1 / 0`.execute(other));
          await version(trx);
          return beside.rows;
        }),
    ).rejects.toThrow(/division by zero/);
  });
});
