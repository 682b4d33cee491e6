import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACILITY_CATEGORIES } from '../src/domain/catalogue-codes.js';
import { LARGE_BODY, largeBodyCounts } from '../src/bodies/large-bodies.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';

/*
 * The memory of a large body (a project detail over LARGE_BODY) is used again for the next one once the
 * socket has taken it (src/bodies/large-bodies.ts). Over a real socket, many concurrent requests for
 * details of different sizes, with and without Brotli, some cut mid-way by their client, must each get
 * exactly the body the app answers alone: a slab given back too early would show another body's bytes.
 */

const PROJECTS = [801, 802, 803];
const CENTRE = { lat: 25.2, lng: 55.27 };

function catalogue() {
  // Bodies of several MB: more than the kernel's socket buffers take at once, so some writes are still in flight when the next body is made.
  const filler = 'x'.repeat(24_000);
  return withRecords(baseBundle(), {
    facilities: Array.from({ length: 320 }, (_, i) => ({
      category: FACILITY_CATEGORIES[i % FACILITY_CATEGORIES.length],
      source_id: 5000 + i,
      data: { name: `Facility ${i}`, notes: `${i} ${filler}`, asset_latitude: CENTRE.lat + (i % 17) * 0.001, asset_longitude: CENTRE.lng + (i % 13) * 0.001 },
    })),
    projects: PROJECTS.map((id, i) => ({ id, company_id: DEV, name: `Tower ${id}`, latitude: CENTRE.lat + i * 0.002, longitude: CENTRE.lng })),
  });
}

/** Requests of several sizes: full blocks (pooled), a limited one (pooled or not), a summary (small). */
const URLS = PROJECTS.flatMap((id) => [`/projects/${id}`, `/projects/${id}?nearby_limit=20`, `/projects/${id}?nearby=summary`, `/projects/${id}?nearby_limit=40&fields=name,nearby_facilities`]);

describe.each(drivers)('large bodies used again once sent, over a real socket (%s)', (driver) => {
  let t: TestApp;
  let base: string;
  let key: string;
  const expected = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key({ priceVector: 2.5 });
    // Each body as the app answers it alone (light-my-request copies what it is sent).
    for (const url of URLS) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(200);
      expected.set(url, res.body);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t?.close());

  it('has bodies on both sides of the bound', () => {
    const sizes = [...expected.values()].map((body) => Buffer.byteLength(body));
    // Several MB: more than the loopback socket takes at once, so writes are still in flight when the next body is made.
    expect(sizes.some((size) => size > 4 * 1024 * 1024)).toBe(true);
    expect(sizes.some((size) => size < LARGE_BODY)).toBe(true);
  });

  it('sends every body whole and unmixed under concurrency, with Brotli and with cut connections', async () => {
    const before = { ...largeBodyCounts };
    for (let round = 0; round < 4; round++) {
      const requests = Array.from({ length: 48 }, async (_, i) => {
        const url = URLS[(i * 7 + round) % URLS.length];
        const headers: Record<string, string> = { 'x-api-key': key, 'accept-encoding': i % 3 === 0 ? 'br' : 'identity' };
        if (i % 11 === 5) {
          // Cut after the first bytes: this body's memory is never given back (no 'finish').
          await new Promise<void>((resolve, reject) => {
            const req = get(`${base}${url}`, { headers, agent: false }, (res) => res.once('data', () => req.destroy()));
            req.on('error', () => undefined).on('close', resolve).on('timeout', () => reject(new Error('cut request timed out')));
          });
          return;
        }
        const res = await fetch(`${base}${url}`, { headers });
        expect(res.status).toBe(200);
        const body = await res.text();
        if (body !== expected.get(url)) throw new Error(`${url}: a body of ${body.length} characters differs from the one answered alone (${expected.get(url)!.length})`);
      });
      await Promise.all(requests);
    }
    // Slabs were used again (without that this test would prove nothing), and far fewer made than bodies sent.
    expect(largeBodyCounts.reused - before.reused).toBeGreaterThan(20);
    expect(largeBodyCounts.made - before.made).toBeLessThan(largeBodyCounts.reused - before.reused);
  });
});
