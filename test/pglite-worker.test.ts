import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { PGliteWorkerClient } from '../src/db/pglite-client.js';
import { buildApp } from '../src/http/app.js';
import { PGLITE_KEY_CACHE_TTL_MS } from '../src/service/compose.js';
import { createTestApp, useTestApp, type TestApp } from './helpers/app.js';
import { baseBundle } from './helpers/fixtures.js';

/*
 * The embedded database runs in a worker thread (src/db/pglite-client.ts): a query in progress must
 * not stop the API thread, errors keep their PostgreSQL fields, and a data directory survives a
 * close and reopen.
 */
describe('PGlite in a worker thread', () => {
  let t: TestApp;
  let key: string;

  useTestApp('pglite', baseBundle(), (started) => ({ t, key } = started));

  it('runs with 32MB of shared buffers (the 128MB default took ~113 MB more of the process memory)', async () => {
    const { rows } = await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(t.db);
    expect(rows[0].shared_buffers).toBe('32MB');
  });

  it('keeps answering HTTP while a long query runs', async () => {
    // With the key cache (as served), a warm /whoIAm needs no query of its own.
    const app = await buildApp({ database: t.database, search: t.search, config: t.config, logger: false, keyCacheTtlMs: 60_000 });
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const slow = sql`SELECT pg_sleep(1.5)`.execute(t.db);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } });
    const elapsed = performance.now() - started;
    expect(res.statusCode).toBe(200);
    // In the API's own thread the request would wait for the whole sleep.
    expect(elapsed).toBeLessThan(1_000);
    await slow;
    await app.close();
  });

  it('answers health 200 and serves a warm key while a transaction holds the engine (an import), as the server caches keys', async () => {
    // PGLITE_KEY_CACHE_TTL_MS: no time limit on the embedded database (signals keep the cache exact).
    const app = await buildApp({ database: t.database, search: t.search, config: t.config, logger: false, keyCacheTtlMs: PGLITE_KEY_CACHE_TTL_MS, changes: t.changes });
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/projects', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const transaction = t.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_sleep(3)`.execute(trx);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const [health, projects] = await Promise.all([
      app.inject({ method: 'GET', url: '/health' }),
      app.inject({ method: 'GET', url: '/projects', headers: { 'x-api-key': key } }),
    ]);
    expect(health.statusCode, health.body).toBe(200);
    expect(projects.statusCode).toBe(200);
    // Neither waited for the transaction (SELECT 1 would have, and the health check timed out at 2 s).
    expect(performance.now() - started).toBeLessThan(1_500);
    await transaction;
    await app.close();
  });

  it('answers health 503 once the worker is gone', async () => {
    const own = await createTestApp('pglite', baseBundle());
    try {
      expect((await own.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      await own.database.close();
      const res = await own.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'error', message: 'database is down' });
    } finally {
      await own.close().catch(() => {});
    }
  });

  it('passes errors on with their PostgreSQL fields', async () => {
    const error = await sql`INSERT INTO areas (id, name, city) VALUES (1, 'x', 'y'), (1, 'x', 'y')`.execute(t.db).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 'areas_pkey' });
  });

  it('fails at once after the worker is gone, shares concurrent closes, survives a parameter it cannot send', async () => {
    const client = await PGliteWorkerClient.open({});
    await expect(client.query('SELECT $1::int AS n', [{ toPostgres: () => 1 }])).rejects.toThrow(/could not be cloned/);
    expect((await client.query('SELECT $1::int AS n', [7])).rows).toEqual([{ n: 7 }]);
    await Promise.all([client.close(), client.close()]);
    await client.close();
    const started = performance.now();
    await expect(client.query('SELECT 1')).rejects.toThrow('the embedded database is closed');
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('keeps a data directory across close and reopen, and reports one it cannot open', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-pglite-'));
    try {
      const first = await openDatabase({ dataDir: dir });
      await sql`CREATE TABLE kept (value int)`.execute(first.db);
      await sql`INSERT INTO kept VALUES (42)`.execute(first.db);
      await first.close();
      const second = await openDatabase({ dataDir: dir });
      expect((await sql<{ value: number }>`SELECT value FROM kept`.execute(second.db)).rows).toEqual([{ value: 42 }]);
      await second.close();
      await expect(openDatabase({ dataDir: join(dir, 'PG_VERSION') })).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
