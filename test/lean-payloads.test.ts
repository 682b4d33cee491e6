import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACILITY_CATEGORIES } from '../src/domain/catalogue-codes.js';
import { SUMMARY_FACILITY_FIELDS } from '../src/contract/nearby-facilities.js';
import { ProjectDetail, ProjectListItem } from '../src/contract/schemas/projects.js';
import { UnitModel } from '../src/contract/schemas/units.js';
import { createTestApp, useTestApp, type TestApp } from './helpers/app.js';
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

  useTestApp(driver, bundle, (started) => ({ t, key } = started), { key: { priceVector: 7 } });

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
  describe('nearby_limit and nearby=summary', () => {
    type Entry = { distance: number; facility: Json };
    type Block = Record<string, Entry[]>;
    const nearbyOf = async (query: string) => {
      const res = await get(`/projects/1?${query}`);
      expect(res.statusCode, query).toBe(200);
      return res.json().data.nearby_facilities as Block;
    };
    const summaryOf = (entry: Entry) => ({ distance: entry.distance, facility: pick(entry.facility, SUMMARY_FACILITY_FIELDS) });

    it('keeps the nearest N of each category, a prefix of the full block; the rest of the detail unchanged', async () => {
      const fullRes = (await get('/projects/1')).json().data;
      const full = fullRes.nearby_facilities as Block;
      expect(Object.values(full).some((entries) => entries.length > 3)).toBe(true);
      for (const limit of [1, 2, 3, 5, 1000]) {
        const res = (await get(`/projects/1?nearby_limit=${limit}`)).json().data;
        expect(res.nearby_facilities).toEqual(Object.fromEntries(Object.entries(full).map(([category, entries]) => [category, entries.slice(0, limit)])));
        expect({ ...res, nearby_facilities: null }).toEqual({ ...fullRes, nearby_facilities: null });
      }
      // Nearest first: every kept entry is no farther than any left out of its category.
      const limited = await nearbyOf('nearby_limit=2');
      for (const [category, entries] of Object.entries(full)) {
        const kept = Math.max(...limited[category].map((entry) => entry.distance));
        for (const entry of entries.slice(2)) expect(entry.distance).toBeGreaterThanOrEqual(kept);
      }
    });

    it('summary is the projection of the full form, limited or not, and in the full form\u2019s field order', async () => {
      const full = await nearbyOf('nearby=full');
      expect(full).toEqual(await nearbyOf(''));
      for (const limit of [undefined, 2]) {
        const summary = await nearbyOf(`nearby=summary${limit ? `&nearby_limit=${limit}` : ''}`);
        expect(summary).toEqual(Object.fromEntries(Object.entries(full).map(([category, entries]) => [category, entries.slice(0, limit).map(summaryOf)])));
        for (const entries of Object.values(summary)) {
          for (const entry of entries) expect(Object.keys(entry.facility)).toEqual(['source_id', 'name', 'category', expect.stringMatching(/latitude$/), expect.stringMatching(/longitude$/)]);
        }
      }
      const res = await get('/projects/1?nearby=summary&nearby_limit=3&fields=name,nearby_facilities');
      expect(res.body).toBe(JSON.stringify(res.json()));
      expect(res.body.length).toBeLessThan((await get('/projects/1')).body.length / 2);
    });

    it('answers bad values with 400 naming the parameter', async () => {
      for (const query of ['nearby_limit=0', 'nearby_limit=-1', 'nearby_limit=1.5', 'nearby_limit=abc', 'nearby_limit=1001', 'nearby=brief', 'nearby=']) {
        const res = await get(`/projects/1?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().message, query).toContain(query.split('=')[0]);
      }
    });
  });

  describe('with AMENITIEST_RADIUS', () => {
    let bounded: TestApp;
    let boundedKey: string;
    beforeAll(async () => {
      bounded = await createTestApp(driver, bundle, { AMENITIEST_RADIUS: '900' });
      boundedKey = await bounded.key({ priceVector: 7 });
    });
    afterAll(() => bounded?.close());

    it('bounds the block first; nearby_limit and summary apply within it', async () => {
      const at = async (query: string) =>
        (await bounded.app.inject({ method: 'GET', url: `/projects/1?${query}`, headers: { 'x-api-key': boundedKey } })).json().data.nearby_facilities as Record<
          string,
          { distance: number; facility: Json }[]
        >;
      const within = await at('');
      const unbounded = (await get('/projects/1')).json().data.nearby_facilities as Record<string, { distance: number }[]>;
      expect(Object.values(unbounded).flat().some((entry) => entry.distance >= 900)).toBe(true);
      expect(Object.values(within).flat().every((entry) => entry.distance < 900)).toBe(true);
      const limited = await at('nearby_limit=2&nearby=summary');
      expect(limited).toEqual(
        Object.fromEntries(
          Object.entries(within).map(([category, entries]) => [
            category,
            entries.slice(0, 2).map((entry) => ({ distance: entry.distance, facility: pick(entry.facility, SUMMARY_FACILITY_FIELDS) })),
          ]),
        ),
      );
    });
  });
});
