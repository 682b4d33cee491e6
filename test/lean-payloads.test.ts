import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACILITY_CATEGORIES } from '../src/domain/catalogue-codes.js';
import { ProjectDetail, ProjectListItem } from '../src/contract/schemas/projects.js';
import { UnitModel } from '../src/contract/schemas/units.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, TS, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * Field selection (`fields=`) and the nearby block as the page needs it (`nearby_limit`, `nearby=summary`):
 * additions that must leave the specified answer alone and cut the selected one from it.
 */

const AT = { lat: 25.08, lng: 55.14 };

// Three projects with priced units; around the first, facilities of every category at scattered distances,
// some at equal distances (the order then goes by facility id), some beyond a 1 km radius.
const facilities = FACILITY_CATEGORIES.flatMap((category, c) =>
  Array.from({ length: 3 + (c % 4) }, (_, i) => {
    const dLat = (((i * 7 + c * 3) % 11) + 1) * 0.0015 * (i % 2 === 0 ? 1 : -1);
    const [latKey, lngKey] = category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
    return {
      category,
      source_id: `${category}-${i}`,
      data: { name: `${category} ${i}`, category, rating: i, [latKey]: AT.lat + dLat, [lngKey]: AT.lng, note: 'master \u2014 data', extra: { a: [i] } },
    };
  }),
);

const bundle: Bundle = withRecords(baseBundle(), {
  projects: [1, 2, 3].map((id) => ({
    id, company_id: DEV, area_id: 1, name: `Project ${id}`, description: 'Lean.', type: 2, status: 3, development_status: 1,
    latitude: AT.lat, longitude: AT.lng + (id - 1) * 0.3, payment_plans: [{ type: 1, percent: 100 }], feature_ids: [1, 3],
    handover_date: '2027-03-31T00:00:00Z', currency: 'AED', created_at: TS, updated_at: TS,
  })),
  units: [1, 2, 3].flatMap((project) =>
    [0, 1, 2].map((i) => ({
      id: project * 10 + i, project_id: project, unit_number: `U-${i}`, bedrooms: i, status: 4, furnishing: 2, price: 1_000_000.15 * (i + 1), unit_area: 50 + i,
    })),
  ),
  facilities,
});

type Json = Record<string, unknown>;
const pick = (value: Json, names: readonly string[]) => Object.fromEntries(Object.entries(value).filter(([key]) => names.includes(key)));
const selection = (schema: { properties: object }) => fc.subarray(Object.keys(schema.properties), { minLength: 1 });

describe.each(drivers)('field selection and the lean nearby block (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, bundle);
    key = await t.key({ priceVector: 7 });
  });
  afterAll(() => t?.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });

  describe('fields=', () => {
    const routes = [
      { path: '/projects/1', schema: ProjectDetail },
      { path: '/units/21', schema: UnitModel },
    ];

    it.each(routes)('$path: the full answer with the other properties removed, for random selections', async ({ path, schema }) => {
      const full = await get(path);
      expect(full.statusCode).toBe(200);
      const data = full.json().data as Json;
      await fc.assert(
        fc.asyncProperty(selection(schema), async (names) => {
          const res = await get(`${path}?fields=${names.join(',')}`);
          expect(res.statusCode).toBe(200);
          // Byte for byte: the selected properties, in the full answer's order, as compact JSON.
          expect(res.body).toBe(JSON.stringify({ status: 'success', data: pick(data, names) }));
        }),
        { numRuns: 12 },
      );
    });

    it('GET /projects: each item the full item with the other properties removed; total and facets unchanged', async () => {
      const query = 'bedrooms=1,2&facets=bedrooms&limit=2&offset=1';
      const full = (await get(`/projects?${query}`)).json().data as { total: number; facets: unknown; items: Json[] };
      expect(full.items.length).toBe(2);
      // Priced in the key's prices (vector 7: factor 1.07), so a selection keeping price_from carries the key's figure.
      expect(full.items.map((item) => item.price_from)).toEqual([1_070_000.16, 1_070_000.16]);
      await fc.assert(
        fc.asyncProperty(selection(ProjectListItem), async (names) => {
          const res = await get(`/projects?${query}&fields=${names.join(',')}`);
          expect(res.statusCode).toBe(200);
          expect(res.json().data).toEqual({ total: full.total, facets: full.facets, items: full.items.map((item) => pick(item, names)) });
          expect(res.body).toBe(JSON.stringify(res.json()));
        }),
        { numRuns: 12 },
      );
    });

    it('without fields, or with every name, the answer is the specified one byte for byte', async () => {
      for (const { path, schema } of routes) {
        const full = await get(path);
        const all = await get(`${path}?fields=${Object.keys(schema.properties).join(',')}`);
        expect(all.body).toBe(full.body);
        expect(all.headers.etag).toBe(full.headers.etag);
      }
    });

    it('answers unknown names with 400 listing them, and an empty list with 400', async () => {
      for (const path of ['/projects', '/projects/1', '/units/21']) {
        const res = await get(`${path}?fields=id,colour,nearby,colour`);
        expect(res.statusCode, path).toBe(400);
        expect(res.json()).toEqual({ status: 'error', message: expect.stringMatching(/^fields has unknown names: colour, nearby \(known: id, /) });
        const empty = await get(`${path}?fields=,`);
        expect(empty.statusCode).toBe(400);
        expect(empty.json().message).toBe('fields must name at least one property');
      }
    });

    it('gives each selection its own ETag, answers If-None-Match with 304, and compresses the selected body', async () => {
      const a = await get('/projects/1?fields=name,units');
      const b = await get('/projects/1?fields=name,media');
      expect(a.headers.etag).not.toBe(b.headers.etag);
      expect((await get('/projects/1?fields=name,units', { 'if-none-match': a.headers.etag as string })).statusCode).toBe(304);
      expect((await get('/projects/1?fields=name,media', { 'if-none-match': a.headers.etag as string })).statusCode).toBe(200);
      const full = await get('/projects/1', { 'accept-encoding': 'br' });
      const lean = await get('/projects/1?fields=name,nearby_facilities', { 'accept-encoding': 'br' });
      expect(lean.headers['content-encoding']).toBe('br');
      expect(lean.rawPayload.length).toBeLessThan(full.rawPayload.length);
      expect(JSON.parse(brotliDecompressSync(lean.rawPayload).toString()).data).toEqual(
        pick((await get('/projects/1')).json().data, ['name', 'nearby_facilities']),
      );
    });

    it('an unknown project is still 404 with a valid selection', async () => {
      expect((await get('/projects/999?fields=name')).statusCode).toBe(404);
      expect((await get('/units/999?fields=price')).statusCode).toBe(404);
    });
  });
});
