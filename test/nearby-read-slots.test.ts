import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACILITY_CATEGORIES } from '../src/domain/catalogue-codes.js';
import { halfThePool } from '../src/db/pool-slots.js';
import { nearbyBlockRequests } from '../src/metrics/instruments.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';

/*
 * A burst of never-asked project details holds half the pool at most (src/details/nearby-on-demand.ts):
 * the other requests still find a connection. The nearby reads are made slow for real: another session
 * holds project_facilities locked, so each read waits on the lock holding its pooled connection, as a
 * cold burst's reads hold theirs while PostgreSQL works. PostgreSQL only: PGlite has one session.
 */
const serverUrl = process.env.TEST_DATABASE_URL;

const CENTRE = { lat: 25.2, lng: 55.27 };
/** More never-asked projects than the pool (10) has connections. */
const PROJECTS = Array.from({ length: 16 }, (_, i) => 900 + i);
const UNIT = 9_000;

function catalogue() {
  return withRecords(baseBundle(), {
    facilities: Array.from({ length: 24 }, (_, i) => ({
      category: FACILITY_CATEGORIES[i % FACILITY_CATEGORIES.length],
      source_id: 7000 + i,
      data: { name: `Facility ${i}`, asset_latitude: CENTRE.lat + (i % 5) * 0.001, asset_longitude: CENTRE.lng + (i % 7) * 0.001 },
    })),
    projects: PROJECTS.map((id, i) => ({ id, company_id: DEV, name: `Tower ${id}`, area_id: 1, latitude: CENTRE.lat + (i % 4) * 0.001, longitude: CENTRE.lng })),
    units: [{ id: UNIT, project_id: PROJECTS[0], unit_number: 'A-1', price: 1_000_000, bedrooms: 2 }],
  });
}

describe.skipIf(!serverUrl)('nearby reads on demand hold half the pool at most (postgres)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp('postgres', catalogue());
    key = await t.key();
  });
  afterAll(() => t?.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  it('answers other reads while never-asked details wait on their nearby reads, then answers every detail', async () => {
    expect(PROJECTS.length).toBeGreaterThan(t.database.poolSize);
    let details: ReturnType<typeof get>[] = [];
    await t.db.connection().execute(async (holder) => {
      await sql`BEGIN`.execute(holder);
      await sql`LOCK TABLE project_facilities IN ACCESS EXCLUSIVE MODE`.execute(holder);
      try {
        details = PROJECTS.map((id) => get(`/projects/${id}`));
        await new Promise((resolve) => setTimeout(resolve, 500));
        const inUse = t.database.pools()[0].inUse;
        // The blocked reads hold half the pool, and the holder one connection of the same pool: the rest is free.
        expect(inUse).toBeLessThanOrEqual(halfThePool(t.database.poolSize) + 1);
        // Each of these needs a pooled connection: the key is looked up on every request here.
        for (const url of ['/whoIAm', `/units/${UNIT}`, '/areas', '/projects?limit=5']) {
          const started = performance.now();
          const res = await get(url);
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          // Below the pool's wait timeout (3 s): the read found a free connection.
          expect(performance.now() - started, url).toBeLessThan(3_000);
        }
      } finally {
        await sql`COMMIT`.execute(holder);
      }
    });
    const answers = await Promise.all(details);
    for (const [i, res] of answers.entries()) {
      expect(res.statusCode, res.body).toBe(200);
      const body = (res.json() as { data: { id: number; nearby_facilities: Record<string, unknown[]> } }).data;
      expect(body.id).toBe(PROJECTS[i]);
      expect(Object.values(body.nearby_facilities).flat().length).toBeGreaterThan(0);
      // The same body asked again (now from what the reads kept).
      expect((await get(`/projects/${PROJECTS[i]}`)).body).toBe(res.body);
    }
  });
});

/*
 * PGlite: half its one connection is one slot, so a second request for the same never-asked project
 * waits for the first's read, then finds the links and texts that read kept and writes the block from
 * memory (a hit, no second read). On PostgreSQL both would read at once (five slots).
 */
describe('a request waiting for the nearby read slot (pglite)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp('pglite', catalogue());
    key = await t.key({ priceVector: 2 });
  });
  afterAll(() => t?.close());

  const count = async (result: string) => (await nearbyBlockRequests.get()).values.find((value) => value.labels.result === result)?.value ?? 0;

  it('answers the same never-asked project twice at once with one read, the second from what the first kept', async () => {
    const before = { hit: await count('hit'), miss: await count('miss') };
    const url = `/projects/${PROJECTS[3]}`;
    const [first, second] = await Promise.all([url, url].map((target) => t.app.inject({ method: 'GET', url: target, headers: { 'x-api-key': key } })));
    expect(first.statusCode, first.body).toBe(200);
    expect(second.body).toBe(first.body);
    expect({ hit: (await count('hit')) - before.hit, miss: (await count('miss')) - before.miss }).toEqual({ hit: 1, miss: 1 });
    // A summary of another project waits the same way and is read on its own.
    const summary = await t.app.inject({ method: 'GET', url: `/projects/${PROJECTS[4]}?nearby=summary`, headers: { 'x-api-key': key } });
    expect(summary.statusCode).toBe(200);
    expect((await count('miss')) - before.miss).toBe(2);
  });
});
