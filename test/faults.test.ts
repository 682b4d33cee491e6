import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { buildApp, type App } from '../src/http/app.js';
import { importBundle } from '../src/import/import-bundle.js';
import { linkBuilder } from '../src/contract/links.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { SearchModel } from '../src/search/search-model.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';
import { crmCounts } from './helpers/crm-counts.js';
import { hasSimpleQuery, hasStatement, TcpProxy, type ChunkAction } from './helpers/tcp-proxy.js';

/*
 * PostgreSQL going away, seen by the app. The shared server is never touched: the app reaches its
 * database through a TCP proxy (helpers/tcp-proxy.ts) that the test cuts and restores, while the test
 * itself checks the data over a direct connection. PostgreSQL only: PGlite runs in-process and has no
 * connection to lose.
 */
const serverUrl = process.env.TEST_DATABASE_URL;

const PROJECT = 100;
const UNIT = 1000;
const BOUND_MS = 5_000;
const UNAVAILABLE = { status: 'error', message: 'service unavailable, retry later' };
/**
 * Reads a warm app (key remembered) answers from memory alone, the database down or not: the searches,
 * and details already asked of this snapshot (kept with it, src/details/compressed-once.ts).
 */
const SERVED_WITHOUT_DATABASE = ['/whoIAm', '/projects?limit=5&bedrooms=2', '/projects/list', `/units/${UNIT}`, `/projects/${PROJECT}`];
const READS = ['/whoIAm', '/projects?limit=5&bedrooms=2', `/projects/${PROJECT}`, `/units/${UNIT}`, '/projects/list', '/areas'];

const catalogue = () =>
  withRecords(baseBundle(), {
    projects: [{ id: PROJECT, company_id: DEV, name: 'Marina Heights', area_id: 1, type: 3, feature_ids: [1, 3] }],
    units: [{ id: UNIT, project_id: PROJECT, unit_number: 'A-101', price: 1_000_000, bedrooms: 2, tag_ids: [1, 2] }],
  });

describe.skipIf(!serverUrl)('PostgreSQL faults through a TCP proxy', () => {
  let direct: TestDatabase;
  let proxy: TcpProxy;
  let proxied: Database;
  /** Looks the key up on every request, like a cold instance: the first query to fail is the key lookup. */
  let app: App;
  /** Remembers the key, like a warm instance: the first query to fail is the route's own. */
  let warmApp: App;
  let key: string;

  beforeAll(async () => {
    direct = await createTestDatabase('postgres');
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    await importBundle(direct.database.db, catalogue(), { facilityLinkRadiusM: config.facilityLinkRadiusM });
    ({ secret: key } = await createApiKey(direct.database.db, { companyId: AGENCY, authorId: OWNER, name: 'faults' }));
    const target = new URL(serverUrl!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    proxied = await openDatabase({ databaseUrl: proxy.rewrite(direct.url!) });
    const search = await SearchModel.create(proxied.db, { links: linkBuilder(config.staticBaseUrl) });
    app = await buildApp({ database: proxied, config, search, logger: false });
    warmApp = await buildApp({ database: proxied, config, search, logger: false, keyCacheTtlMs: 600_000 });
  });

  afterEach(async () => {
    proxy.onClientData(undefined);
    await proxy.up();
  });

  afterAll(async () => {
    await app?.close();
    await warmApp?.close();
    await proxied?.close();
    await proxy?.close();
    await direct?.drop();
  });

  const get = (target: App, url: string) => target.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const apply = (body: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/units/${UNIT}/applications`, headers: { 'x-api-key': key, ...headers }, payload: body });

  async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
    const started = performance.now();
    const result = await run();
    return { result, ms: performance.now() - started };
  }

  async function expectAllReads(status: number) {
    for (const target of [app, warmApp]) {
      // /whoIAm needs nothing but the key, which the warm app still remembers; the searches come from
      // the in-memory search model: with the key remembered, they need no database at all.
      for (const url of target === warmApp && status === 503 ? READS.filter((url) => !SERVED_WITHOUT_DATABASE.includes(url)) : READS) {
        const { result: res, ms } = await timed(() => get(target, url));
        expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
        if (status === 503) {
          expect(res.json()).toEqual(UNAVAILABLE);
          expect(res.headers['retry-after']).toBe('5');
          expect(ms, url).toBeLessThan(BOUND_MS);
        }
      }
      if (target === warmApp && status === 503) {
        for (const url of SERVED_WITHOUT_DATABASE) expect((await get(target, url)).statusCode, url).toBe(200);
      }
    }
  }

  const counts = () => crmCounts(direct.database.db);

  /**
   * Waits until no other session of the test database is inside a transaction: the server has seen
   * the cut connection go and rolled back (or committed) for good, so the counts are final.
   */
  async function settled() {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await sql<{ open: number }>`
        SELECT count(*)::int AS open FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`.execute(direct.database.db);
      if (rows[0].open === 0) return;
      if (Date.now() > deadline) throw new Error('a transaction of the app is still open 10 s after the cut');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Cuts the application's connection once, at the first chunk `matches` recognises; records what went before. */
  function cutOnce(matches: (chunk: Buffer) => boolean, action: Exclude<ChunkAction, 'forward'>) {
    const sent: string[] = [];
    let done = false;
    proxy.onClientData((chunk) => {
      if (done) return 'forward';
      // Kysely quotes identifiers; the one raw statement (the card's links) does not.
      for (const table of ['clients', 'offers', 'opportunities', 'offer_opportunities']) {
        if (hasStatement(chunk, `insert into "${table}"`) || hasStatement(chunk, `insert into ${table} `)) sent.push(table);
      }
      if (!matches(chunk)) return 'forward';
      done = true;
      return action;
    });
    return { sent, fired: () => done };
  }

  const application = (email: string) => ({ client: { first_name: 'Jane', last_name: 'Doe', email }, preferences: { based_on_unit: true } });

  it('answers reads 503 with Retry-After within 5 s while PostgreSQL is down, and recovers without a restart', async () => {
    await expectAllReads(200);
    expect(proxy.connections).toBeGreaterThan(0);

    await proxy.down();
    await expectAllReads(503);
    const health = await timed(() => app.inject({ method: 'GET', url: '/health' }));
    expect(health.result.statusCode).toBe(503);
    expect(health.result.json()).toEqual({ status: 'error', message: 'database is down' });
    expect(health.result.headers['retry-after']).toBe('5');
    expect(health.ms).toBeLessThan(BOUND_MS);

    const before = await counts();
    const refused = await apply(application('down@example.com'));
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual(UNAVAILABLE);
    expect(await counts()).toEqual(before);

    // Same app, same pool: the next requests after the database returns simply work.
    await proxy.up();
    await expectAllReads(200);
    const healthy = await app.inject({ method: 'GET', url: '/health' });
    expect(healthy.statusCode).toBe(200);
    expect(healthy.json()).toMatchObject({ status: 'success', data: { database: 'up', driver: 'postgres' } });
    expect((await apply(application('back@example.com'))).statusCode).toBe(201);
  });

  it('answers 503 within 5 s when PostgreSQL accepts connections but never answers', async () => {
    proxy.blackhole();
    const reads = await Promise.all([
      ...READS.map((url) => timed(() => get(app, url))),
      ...READS.filter((url) => !SERVED_WITHOUT_DATABASE.includes(url)).map((url) => timed(() => get(warmApp, url))),
    ]);
    for (const { result: res, ms } of reads) {
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toEqual(UNAVAILABLE);
      expect(res.headers['retry-after']).toBe('5');
      expect(ms).toBeLessThan(BOUND_MS);
    }
    const health = await timed(() => app.inject({ method: 'GET', url: '/health' }));
    expect(health.result.statusCode).toBe(503);
    expect(health.result.json()).toEqual({ status: 'error', message: 'database is down' });
    expect(health.ms).toBeLessThan(BOUND_MS);

    await proxy.up();
    await expectAllReads(200);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('keeps reads answering while applications queue behind a board lock held elsewhere', async () => {
    const before = await counts();
    const queued = 15;
    await direct.database.db.connection().execute(async (holder) => {
      await sql`BEGIN`.execute(holder);
      // A long transaction on the agency's board (e.g. the main backend's): every application of the
      // agency now waits for it. More of them than the pool has connections arrive meanwhile.
      await sql`SELECT id FROM board_stages WHERE company_id = ${AGENCY} FOR UPDATE`.execute(holder);
      const applications = Array.from({ length: queued }, (_, i) => apply(application(`queued${i}@example.com`)));
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (const url of READS) {
          const { result: res, ms } = await timed(() => get(app, url));
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          // Below the pool's wait timeout (3 s): the read found a free connection.
          expect(ms, url).toBeLessThan(3_000);
        }
      } finally {
        await sql`COMMIT`.execute(holder);
      }
      for (const res of await Promise.all(applications)) expect(res.statusCode, res.body).toBe(201);
    });
    expect(await counts()).toMatchObject({ clients: before.clients + queued, opportunities: before.opportunities + queued, offers: before.offers + queued });
  });

  it('leaves no partial rows when the connection is cut in the middle of an application', async () => {
    const before = await counts();
    const cut = cutOnce((chunk) => hasStatement(chunk, 'insert into offer_opportunities '), 'cut');
    const res = await apply(application('mid@example.com'), { 'idempotency-key': 'cut-mid' });
    expect(cut.fired()).toBe(true);
    // The client, the offer and the opportunity were already inserted in the transaction when it broke.
    expect(cut.sent).toEqual(['clients', 'offers', 'opportunities', 'offer_opportunities']);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(UNAVAILABLE);
    expect(res.headers['retry-after']).toBe('5');

    await settled();
    expect(await counts()).toEqual(before);

    // Nothing was remembered for the Idempotency-Key either: the retry goes through once.
    const retry = await apply(application('mid@example.com'), { 'idempotency-key': 'cut-mid' });
    expect(retry.statusCode, retry.body).toBe(201);
    const after = await counts();
    expect(after).toMatchObject({ clients: before.clients + 1, opportunities: before.opportunities + 1, offers: before.offers + 1, offer_opportunities: before.offer_opportunities + 1 });
  });

  it('leaves no partial rows when the connection is cut as the COMMIT is sent', async () => {
    const before = await counts();
    const cut = cutOnce((chunk) => hasSimpleQuery(chunk, 'commit'), 'cut');
    const res = await apply(application('commit@example.com'));
    expect(cut.fired()).toBe(true);
    expect(cut.sent).toEqual(['clients', 'offers', 'opportunities', 'offer_opportunities']);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(UNAVAILABLE);

    await settled();
    expect(await counts()).toEqual(before);
    const rows = await direct.database.db.selectFrom('clients').select('id').where('email', '=', 'commit@example.com').execute();
    expect(rows).toEqual([]);
  });

  it('keeps a committed application exactly once when the reply to COMMIT is lost; the Idempotency-Key retry replays it', async () => {
    const before = await counts();
    const cut = cutOnce((chunk) => hasSimpleQuery(chunk, 'commit'), 'lose-reply');
    const res = await apply(application('lost-reply@example.com'), { 'idempotency-key': 'lost-reply' });
    expect(cut.fired()).toBe(true);
    // The service cannot know the outcome: 503, and the client is told to retry.
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(UNAVAILABLE);

    await settled();
    const committed = await counts();
    expect(committed).toEqual({
      ...before,
      clients: before.clients + 1,
      opportunities: before.opportunities + 1,
      opportunity_tags: before.opportunity_tags + 2,
      opportunity_project_features: before.opportunity_project_features + 2,
      offers: before.offers + 1,
      offer_opportunities: before.offer_opportunities + 1,
      idempotency_keys: before.idempotency_keys + 1,
    });

    const retry = await apply(application('lost-reply@example.com'), { 'idempotency-key': 'lost-reply' });
    expect(retry.statusCode, retry.body).toBe(201);
    const stored = await direct.database.db
      .selectFrom('opportunities as o')
      .innerJoin('clients as c', 'c.id', 'o.client_id')
      .innerJoin('offer_opportunities as l', 'l.opportunity_id', 'o.id')
      .where('c.email', '=', 'lost-reply@example.com')
      .select(['c.id as client_id', 'o.id as opportunity_id', 'l.offer_id'])
      .execute();
    expect(stored).toHaveLength(1);
    const { data } = retry.json();
    expect({ client_id: data.client.id, opportunity_id: data.opportunity.id, offer_id: data.offer.id }).toEqual(stored[0]);
    expect(await counts()).toEqual(committed);
  });
});

describe.skipIf(!serverUrl)('PostgreSQL query timeout', () => {
  it('fails a query the server leaves unanswered past queryTimeoutMs, and sets no limit with null (the CLI\u2019s imports)', async () => {
    const limited = await openDatabase({ databaseUrl: serverUrl, poolSize: 1, queryTimeoutMs: 100 });
    const unlimited = await openDatabase({ databaseUrl: serverUrl, poolSize: 1, queryTimeoutMs: null });
    try {
      await expect(sql`SELECT pg_sleep(0.4)`.execute(limited.db)).rejects.toThrow(/timeout/i);
      await expect(sql`SELECT pg_sleep(0.4)`.execute(unlimited.db)).resolves.toBeDefined();
    } finally {
      await limited.close();
      await unlimited.close();
    }
  });
});
