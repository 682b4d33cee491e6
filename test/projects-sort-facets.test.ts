import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * GET /projects `sort` and `facets` on a catalogue small enough to state every answer by hand: missing
 * values last in both directions, ties by id, distance only with a centre; facet counts under every
 * filter but their own; no `facets` key unless asked for. Also the two limits that went: any number
 * of CSV ids, any offset up to 2^53 - 1.
 */

const at = (day: string) => `${day}T00:00:00.000Z`;
const catalogue = withRecords(baseBundle(), {
  projects: [
    { id: 201, company_id: DEV, name: 'Alpha', area_id: 1, type: 1, handover_date: at('2027-01-01'), created_at: at('2026-01-01'), latitude: 25.0, longitude: 55.0 },
    { id: 202, company_id: DEV, name: 'Beta', area_id: 2, type: 2, created_at: at('2026-02-01'), latitude: 25.1, longitude: 55.0 },
    { id: 203, company_id: DEV, name: 'Gamma', area_id: 2, type: 1, handover_date: at('2026-06-01'), created_at: at('2026-03-01'), latitude: 25.2, longitude: 55.0 },
    { id: 204, company_id: DEV, name: 'Alpha', type: 1, is_branded: true, handover_date: at('2027-01-01'), created_at: at('2026-03-01'), latitude: 25.0, longitude: 55.0 },
    { id: 205, company_id: DEV, name: 'Delta', area_id: 1, type: 3, handover_date: at('2028-01-01'), created_at: at('2025-12-01') },
  ],
  units: [
    { id: 2011, project_id: 201, unit_number: '1', bedrooms: 1, status: 4, price: 300_000, unit_area: 80 },
    { id: 2012, project_id: 201, unit_number: '2', bedrooms: 2, status: 3, price: 400_000, unit_area: 90 },
    { id: 2021, project_id: 202, unit_number: '1', bedrooms: 2, status: 4, price: 100_000, unit_area: 50 },
    { id: 2041, project_id: 204, unit_number: '1', bedrooms: 3, status: 4, price: 100_000, unit_area: 120 },
    { id: 2051, project_id: 205, unit_number: '1', bedrooms: 0, status: 1, unit_area: 30 },
  ],
});

describe.each(drivers)('GET /projects sort and facets (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, catalogue, (started) => ({ t, key, assertDocumented } = started), { key: { priceVector: 10 }, documented: true });

  const get = (query: string) => t.app.inject({ method: 'GET', url: `/projects?${query}`, headers: { 'x-api-key': key } });
  const ids = async (query: string) => {
    const res = await get(query);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data.items as { id: number }[]).map((item) => item.id);
  };

  it.each([
    ['', [201, 204, 202, 205, 203]],
    ['sort=name', [201, 204, 202, 205, 203]],
    ['sort=-name', [203, 205, 202, 201, 204]],
    // 202 and 204 share the lowest price: by id. 203 has no unit, 205 no priced unit: last, by id.
    ['sort=price_from', [202, 204, 201, 203, 205]],
    ['sort=-price_from', [201, 202, 204, 203, 205]],
    ['sort=size_from', [205, 202, 201, 204, 203]],
    ['sort=-size_from', [204, 201, 202, 205, 203]],
    ['sort=handover_date', [203, 201, 204, 205, 202]],
    ['sort=-handover_date', [205, 201, 204, 203, 202]],
    ['sort=newest', [203, 204, 202, 201, 205]],
    ['sort=-newest', [205, 201, 202, 203, 204]],
    // 205 has no coordinates, so the radius never holds it; 201 and 204 sit at the centre.
    ['sort=distance&lat=25&lng=55&radius_km=100', [201, 204, 202, 203]],
    ['sort=-distance&lat=25&lng=55&radius_km=100', [203, 202, 201, 204]],
  ])('?%s orders %j', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it('pages through a sort without repeats or gaps', async () => {
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2) pages.push(...(await ids(`sort=-price_from&limit=2&offset=${offset}`)));
    expect(pages).toEqual([201, 202, 204, 203, 205]);
  });

  it('refuses sort=distance without a centre, naming sort', async () => {
    const res = await get('sort=distance');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'sort by distance needs lat, lng and radius_km' });
    assertDocumented('GET', '/projects', 400, res.json());
  });

  it('counts each facet under every filter except its own', async () => {
    const res = await get('bedrooms=2&unit_types=1&facets=bedrooms,statuses,developer,area,unit_types,is_branded,development_status');
    expect(res.statusCode, res.body).toBe(200);
    const { total, facets, items } = res.json().data;
    // bedrooms=2 and unit_types=1: only 201 (202 is of type 2).
    expect(total).toBe(1);
    expect(items.map((item: { id: number }) => item.id)).toEqual([201]);
    // The counts; their labels and `filterable` are test/code-names.test.ts's.
    const counts = Object.fromEntries(
      Object.entries(facets as Record<string, { value: unknown; count: number }[]>).map(([name, values]) => [name, values.map(({ value, count }) => ({ value, count }))]),
    );
    expect(counts).toEqual({
      // Type 1 projects with a unit of each bucket: 201 (1 and 2 bedrooms), 204 (3); 203 has no unit.
      bedrooms: [
        { value: 1, count: 1 },
        { value: 2, count: 1 },
        { value: 3, count: 1 },
      ],
      // Units with 2 bedrooms of type-1 projects: 2012 (status 3).
      statuses: [{ value: 3, count: 1 }],
      development_status: [{ value: 0, count: 1 }],
      developer: [{ value: DEV, count: 1 }],
      // Without its own filter: 201 (type 1) and 202 (type 2) have a 2-bedroom unit.
      unit_types: [
        { value: 1, count: 1 },
        { value: 2, count: 1 },
      ],
      area: [{ value: 1, count: 1 }],
      is_branded: [{ value: false, count: 1 }],
    });
    assertDocumented('GET', '/projects', 200, res.json());
  });

  it('adds facets only when asked, and refuses an unknown one naming facets', async () => {
    const plain = await get('bedrooms=2');
    expect(plain.body).not.toContain('facets');
    expect(Object.keys(plain.json().data)).toEqual(['total', 'items']);
    const unknown = await get('facets=bedrooms,colour');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toMatch(/^facets must be a comma-separated list of: bedrooms, /);
  });

  it('takes any number of ids in a CSV filter', async () => {
    const many = Array.from({ length: 500 }, (_, i) => i + 1).join(',');
    const res = await get(`developer_ids=${many}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBe(5);
  });

  it('answers an empty page with the right total for any offset up to 2^53 - 1', async () => {
    for (const offset of [5, 2 ** 31, 2 ** 53 - 1]) {
      const res = await get(`offset=${offset}&bedrooms=2`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({ total: 2, items: [] });
    }
    const beyond = await get(`offset=${2 ** 53}`);
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().message).toContain('offset');
  });
});
