import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';

/*
 * What every database session of the app is set up with (src/db/database.ts): UTC on both drivers;
 * on PostgreSQL no parallel workers per query and no JIT compilation (with many requests at once
 * they only add start-up cost; docs/performance.md, "No parallel query, no JIT").
 */
describe.each(drivers)('database sessions (%s)', (driver) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(driver);
  });
  afterAll(() => t?.drop());

  it('run in UTC', async () => {
    const { rows } = await sql<{ zone: string }>`SELECT current_setting('TimeZone') AS zone`.execute(t.database.db);
    expect(rows[0].zone).toBe('UTC');
  });

  it.runIf(driver === 'postgres')('use no parallel workers and no JIT, on every pooled connection', async () => {
    // More queries at once than one connection can take: the pool opens several.
    const settings = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.database.db.connection().execute(async (connection) => {
          await sql`SELECT pg_sleep(0.05)`.execute(connection);
          const { rows } = await sql<{ workers: string; jit: string }>`
            SELECT current_setting('max_parallel_workers_per_gather') AS workers, current_setting('jit') AS jit`.execute(connection);
          return `${rows[0].workers}/${rows[0].jit}`;
        }),
      ),
    );
    expect(settings).toEqual(Array(5).fill('0/off'));
  });
});
