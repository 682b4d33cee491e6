import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { currentWalLsn, lsnToBigInt } from '../src/db/wal-position.js';
import { linkBuilder } from '../src/contract/links.js';
import { SearchModel } from '../src/search/search-model.js';
import { buildApp, type App } from '../src/http/app.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { crmCounts } from './helpers/crm-counts.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';
import { hasStatement, TcpProxy } from './helpers/tcp-proxy.js';

/*
 * Read routing and its fallbacks, quickly, on the shared PostgreSQL server: the "replica" is the same
 * database reached through a TCP proxy (helpers/tcp-proxy.ts), so the test sees which statements go
 * to it and can make it vanish. Replication itself (lag, a real standby, the primary stopped) is
 * tested on real clusters by `npm run test:scale-out` (test/scale-out).
 */
const serverUrl = process.env.TEST_DATABASE_URL;

const PROJECT = 100;
const UNIT = 1000;
const READS = ['/projects?limit=5', `/projects/${PROJECT}`, `/units/${UNIT}`, '/projects/list', '/areas'];

describe('read replica configuration', () => {
  it('reads DATABASE_READ_URL as a comma-separated list and the lag bound', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db/primary',
      DATABASE_READ_URL: ' postgres://r1/db , postgresql://r2/db,',
      DATABASE_READ_MAX_LAG_S: '2.5',
    });
    expect(config.databaseReadUrls).toEqual(['postgres://r1/db', 'postgresql://r2/db']);
    expect(config.databaseReadMaxLagS).toBe(2.5);
    expect(loadConfig({}).databaseReadUrls).toEqual([]);
  });

  it.each([
    [{ DATABASE_READ_URL: 'postgres://r1/db' }, /DATABASE_READ_URL needs DATABASE_URL/],
    [{ DATABASE_URL: 'postgres://db/p', DATABASE_READ_URL: 'postgres://r1/db,mysql://r2/db' }, /DATABASE_READ_URL must be postgres/],
    [{ DATABASE_URL: 'postgres://db/p', DATABASE_READ_MAX_LAG_S: '0' }, /DATABASE_READ_MAX_LAG_S must be a positive number of seconds/],
  ])('stops on %o, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('orders WAL positions by their 64-bit value', () => {
    expect(lsnToBigInt('0/0')).toBe(0n);
    expect(lsnToBigInt('1/0') - lsnToBigInt('0/FFFFFFFF')).toBe(1n);
    expect(lsnToBigInt('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(() => lsnToBigInt('16-B3')).toThrow(/not a WAL position/);
  });
});

describe.skipIf(!serverUrl)('read routing with DATABASE_READ_URL (PostgreSQL)', () => {
  let direct: TestDatabase;
  let proxy: TcpProxy;
  let routed: Database;
  let app: App;
  let key: string;
  /** Statements seen on the replica's connections since the last reset. */
  let onReplica: Buffer[] = [];

  beforeAll(async () => {
    direct = await createTestDatabase('postgres');
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    await importBundle(
      direct.database.db,
      withRecords(baseBundle(), {
        projects: [{ id: PROJECT, company_id: DEV, name: 'Marina Heights', area_id: 1, type: 3 }],
        units: [{ id: UNIT, project_id: PROJECT, unit_number: 'A-101', price: 1_000_000 }],
      }),
      { facilityLinkRadiusM: config.facilityLinkRadiusM },
    );
    ({ secret: key } = await createApiKey(direct.database.db, { companyId: AGENCY, authorId: OWNER, name: 'replicas' }));
    const target = new URL(serverUrl!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    routed = await openDatabase({ databaseUrl: direct.url, readUrls: [proxy.rewrite(direct.url!)] });
    app = await buildApp({ database: routed, config, search: await SearchModel.create(routed.db, { links: linkBuilder(config.staticBaseUrl) }), logger: false });
  });

  afterEach(async () => {
    await proxy.up();
    await routed.replicas!.check();
    onReplica = [];
    proxy.onClientData((chunk) => {
      onReplica.push(chunk);
      return 'forward';
    });
  });

  afterAll(async () => {
    await app?.close();
    await routed?.close();
    await proxy?.close();
    await direct?.drop();
  });

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const sentToReplica = (statement: string) => onReplica.some((chunk) => hasStatement(chunk, statement));
  const health = async () => (await app.inject({ method: 'GET', url: '/health' })).json();

  it('sends catalogue reads to the replica, the key lookup and the application to the primary', async () => {
    onReplica = [];
    proxy.onClientData((chunk) => {
      onReplica.push(chunk);
      return 'forward';
    });
    for (const url of READS) expect((await get(url)).statusCode, url).toBe(200);
    expect(sentToReplica('from "projects"')).toBe(true);
    expect(sentToReplica('from "areas"')).toBe(true);
    expect(sentToReplica('api_keys')).toBe(false);

    const before = await crmCounts(direct.database.db);
    const res = await app.inject({
      method: 'POST',
      url: `/units/${UNIT}/applications`,
      headers: { 'x-api-key': key, 'idempotency-key': 'replicas-1' },
      payload: { client: { first_name: 'Jane', email: 'jane.replicas@example.com' } },
    });
    expect(res.statusCode).toBe(201);
    expect((await crmCounts(direct.database.db)).opportunities).toBe(before.opportunities + 1);
    for (const table of ['idempotency_keys', 'clients', 'opportunities', 'offers', 'board_stages']) expect(sentToReplica(table), table).toBe(false);
  });

  it('reports the replica in health; a server not in recovery counts as caught up', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    const url = new URL(proxy.rewrite(direct.url!));
    expect(res.json()).toMatchObject({
      status: 'success',
      data: { database: 'up', driver: 'postgres', replicas: [{ name: `127.0.0.1:${url.port}${url.pathname}`, state: 'up', lag_bytes: 0, lag_seconds: 0 }] },
    });
    expect(res.json().data.replicas).toHaveLength(1);
    const lsn = await currentWalLsn(direct.database.db);
    expect((await routed.replicas!.readerAfter(lsn)).source).toBe(`127.0.0.1:${url.port}${url.pathname}`);
  });

  it('answers reads from the primary when the replica goes down, before and after the monitor notices', async () => {
    await proxy.down();
    for (const url of READS) expect((await get(url)).statusCode, url).toBe(200);
    await routed.replicas!.check();
    expect((await health()).data).toMatchObject({ database: 'up', replicas: [{ state: 'down', lag_bytes: null, lag_seconds: null }] });
    for (const url of READS) expect((await get(url)).statusCode, url).toBe(200);
    // The rebuild of a read model waits for no replica that is out of service.
    expect((await routed.replicas!.readerAfter(await currentWalLsn(direct.database.db), { waitMs: 200 })).source).toBe('primary');

    await proxy.up();
    await routed.replicas!.check();
    expect((await health()).data.replicas[0].state).toBe('up');
    onReplica = [];
    // A currency not asked before (the detail's text is kept per snapshot, project, prices and currency): read anew.
    expect((await get(`/projects/${PROJECT}?currency=AED`)).statusCode).toBe(200);
    expect(sentToReplica('from "projects"')).toBe(true);
  });

  it('runs a read again on the primary when the replica connection breaks mid-query', async () => {
    let cut = 0;
    // A read of the database (GET /units/{id} is answered from the search snapshot).
    proxy.onClientData((chunk) => {
      if (cut === 0 && hasStatement(chunk, 'from "areas"')) {
        cut++;
        return 'cut';
      }
      return 'forward';
    });
    const res = await get('/areas');
    expect(cut).toBe(1);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.length).toBeGreaterThan(0);
  });
});
