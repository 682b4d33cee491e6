import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

const ALDAR = 14;
const BASE = 'https://static.example.com';

/** 104 generated projects with only ten distinct names, so the id tie-break is exercised. */
const generated = Array.from({ length: 104 }, (_, i) => ({
  id: 100 + i,
  company_id: i % 2 === 0 ? DEV : ALDAR,
  name: `Tower ${i % 10}`,
}));

const bundle: Bundle = withRecords(baseBundle(), {
  files: [
    { id: 50, path: 'projects/1/cover.jpg', original_name: 'cover.jpg', storage_name: 'c1.jpg', mime_type: 'image/jpeg', size: 5000 },
    { id: 51, path: 'projects/1/pool.jpg', original_name: 'pool.jpg', storage_name: 'c2.jpg', mime_type: 'image/jpeg', size: 6000 },
  ],
  companies: [{ id: ALDAR, company_type: 3, company_name: 'Aldar Properties' }],
  contracts: [{ agency_id: 1, developer_id: ALDAR, status: 'approved' }],
  projects: [
    {
      id: 1, company_id: DEV, name: 'Marina Vista', status: 7, development_status: 2, is_branded: true, escrow_account: 'ESC-1',
      handover_date: '2027-03-31T00:00:00Z', currency: 'AED', image_file_ids: [50, 51],
      payment_plans: [{ type: 1, percent: 20 }, { type: 2, percent: 30.5 }, { type: 3, percent: 49.5 }], feature_ids: [4, 1, 3],
    },
    ...generated,
    { id: 2, company_id: DEV, name: 'Hidden Draft', is_draft: true },
    { id: 3, company_id: DEV, name: 'Hidden Deleted', deleted: true },
    { id: 4, company_id: DEV_NO_CONTRACT, name: 'Hidden Uncontracted' },
    { id: 5, company_id: DEV_PENDING, name: 'Hidden Pending' },
    { id: 6, company_id: DEV_DELETED, name: 'Hidden Gone' },
  ],
  units: [
    { id: 1, project_id: 1, unit_number: 'A-101', bedrooms: 1, price: 1000000, unit_area: 80 },
    { id: 2, project_id: 1, unit_number: 'A-102', bedrooms: 2, price: 900000.5, unit_area: 55.5 },
    { id: 3, project_id: 1, unit_number: 'A-103', bedrooms: 3, unit_area: 120 },
    { id: 4, project_id: 1, unit_number: 'A-104', bedrooms: 1, price: 10, unit_area: 1, deleted: true },
    ...generated.map((project, i) => ({ id: 1000 + i, project_id: project.id, unit_number: 'U1', bedrooms: i % 4, price: 100000 * (i + 1), unit_area: 50 + i })),
    ...[2, 3, 4, 5, 6].map((projectId) => ({ id: 2000 + projectId, project_id: projectId, unit_number: 'X', bedrooms: 1, price: 1 })),
  ],
});

const VISIBLE = 105;

describe.each(drivers)('GET /projects and /projects/list (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { env: { STATIC_BASE_URL: BASE }, documented: true });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  async function page(query: string): Promise<{ total: number; items: { id: number; name: string }[] }> {
    const res = await get(`/projects?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    assertDocumented('GET', '/projects', 200, res.json());
    return res.json().data;
  }

  async function everything(filter = ''): Promise<{ id: number; name: string }[]> {
    const first = await page(`limit=100&offset=0&${filter}`);
    const second = await page(`limit=100&offset=100&${filter}`);
    return [...first.items, ...second.items];
  }

  it('lists an item exactly as specified, prices and sizes over live units, links from the static base', async () => {
    const { total, items } = await page('search=marina%20vista');
    expect(total).toBe(1);
    expect(items).toEqual([
      {
        id: 1,
        name: 'Marina Vista',
        status: 7,
        development_status: 2,
        is_branded: true,
        is_resale: false,
        is_escrow: true,
        handover_date: '2027-03-31T00:00:00.000Z',
        price_from: 900000.5,
        size_from: 55.5,
        currency: 'AED',
        logo: `${BASE}/projects/1/cover.jpg`,
        company: { id: DEV, name: 'Emaar Properties', logo: `${BASE}/companies/10/logo.png` },
        payment_plans: [
          { type: 1, percent: 20 },
          { type: 2, percent: 30.5 },
          { type: 3, percent: 49.5 },
        ],
        preferences: {
          features: [{ id: 1, name: 'Smart Home', type: 1 }],
          amenities: [
            { id: 4, name: 'Gym', type: 2 },
            { id: 3, name: 'Swimming Pool', type: 2 },
          ],
        },
      },
    ]);
  });

  it('gives nulls and empty lists for a bare project', async () => {
    const item = (await page('search=tower%201&developer_ids=14&limit=1')).items[0] as Record<string, unknown>;
    expect(item).toMatchObject({
      logo: null,
      is_escrow: false,
      handover_date: null,
      company: { id: ALDAR, name: 'Aldar Properties', logo: null },
      payment_plans: [],
      preferences: { features: [], amenities: [] },
    });
  });

  it('gives price_from null when no unit has a price', async () => {
    await t.db.updateTable('units').set({ price: null }).where('project_id', '=', 101).execute();
    await t.refresh();
    try {
      const item = (await page('search=tower%201&developer_ids=14')).items.find((i) => i.id === 101) as unknown as Record<string, unknown>;
      expect(item.price_from).toBeNull();
      expect(item.size_from).toBe(51);
    } finally {
      await t.db.updateTable('units').set({ price: 200000 }).where('id', '=', 1001).execute();
      await t.refresh();
    }
  });

  it('shows only published projects of contracted developers', async () => {
    const all = await everything();
    expect(all).toHaveLength(VISIBLE);
    const ids = all.map((item) => item.id);
    for (const hidden of [2, 3, 4, 5, 6]) expect(ids).not.toContain(hidden);
    expect((await page('search=hidden')).total).toBe(0);
    expect((await page('bedrooms=1&price_max=1')).total).toBe(0);
  });

  it('orders by name, then id', async () => {
    const all = await everything();
    const sorted = [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
    expect(all.map((item) => item.id)).toEqual(sorted.map((item) => item.id));
  });

  it.each([1, 2, 7])('pages through everything with limit %i: nothing repeated or lost, total stable', async (limit) => {
    const expected = (await everything()).map((item) => item.id);
    const seen: number[] = [];
    for (let offset = 0; ; offset += limit) {
      const { total, items } = await page(`limit=${limit}&offset=${offset}`);
      expect(total).toBe(VISIBLE);
      expect(items.length).toBeLessThanOrEqual(limit);
      seen.push(...items.map((item) => item.id));
      if (offset + items.length >= total) break;
    }
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(VISIBLE);
  });

  it('pages through a filtered list the same way', async () => {
    const expected = (await everything('bedrooms=1')).map((item) => item.id);
    expect(expected.length).toBeGreaterThan(20);
    const seen: number[] = [];
    for (let offset = 0; ; offset += 2) {
      const { total, items } = await page(`bedrooms=1&limit=2&offset=${offset}`);
      expect(total).toBe(expected.length);
      seen.push(...items.map((item) => item.id));
      if (offset + items.length >= total) break;
    }
    expect(seen).toEqual(expected);
  });

  it('defaults to 20 items and caps limit at 100', async () => {
    expect((await page('')).items).toHaveLength(20);
    const capped = await page('limit=1000');
    expect(capped.items).toHaveLength(100);
    expect(capped.total).toBe(VISIBLE);
    expect((await page('limit=100000000000')).items).toHaveLength(100);
  });

  it('answers an empty page past the end, still with the total', async () => {
    expect(await page('offset=500')).toEqual({ total: VISIBLE, items: [] });
    expect(await page('offset=500&bedrooms=1&developer_ids=10')).toEqual({ total: expect.any(Number), items: [] });
  });

  it.each([
    ['bedrooms=two', 'bedrooms'],
    ['bedrooms=6', 'bedrooms'],
    ['bedrooms=1,,2', 'bedrooms'],
    ['statuses=0', 'statuses'],
    ['development_status=4', 'development_status'],
    ['developer_ids=a', 'developer_ids'],
    ['unit_types=0', 'unit_types'],
    ['preference_ids=x', 'preference_ids'],
    ['unit_preference_ids=1.5', 'unit_preference_ids'],
    ['price_min=abc', 'price_min'],
    ['price_max=-1', 'price_max'],
    ['price_max=Infinity', 'price_max'],
    ['price_per_ft2_min=x', 'price_per_ft2_min'],
    ['price_per_m2_max=x', 'price_per_m2_max'],
    ['size_min=-5', 'size_min'],
    ['size_max=big', 'size_max'],
    ['parking_min=1.5', 'parking_min'],
    ['is_branded=yes', 'is_branded'],
    ['is_resale=1', 'is_resale'],
    ['is_escrow=maybe', 'is_escrow'],
    ['near_transport=yes', 'near_transport'],
    ['payment_only_post_handover=2', 'payment_only_post_handover'],
    ['lat=25', 'lng'],
    ['lat=25&lng=55', 'radius_km'],
    ['radius_km=5', 'lat'],
    ['lat=91&lng=0&radius_km=1', 'lat'],
    ['lat=0&lng=-181&radius_km=1', 'lng'],
    ['lat=0&lng=0&radius_km=0', 'radius_km'],
    ['lat=0&lng=0&radius_km=-1', 'radius_km'],
    ['payment_max_pre_handover=101', 'payment_max_pre_handover'],
    ['payment_min_after_handover=-1', 'payment_min_after_handover'],
    ['handover_from=2026-13-45', 'handover_from'],
    ['handover_to=next%20year', 'handover_to'],
    ['limit=0', 'limit'],
    ['limit=x', 'limit'],
    ['offset=-1', 'offset'],
    ['search=' + 'x'.repeat(201), 'search'],
    // `sort` takes the listed orders only (GET /projects has sorting now; an unknown value is still refused).
    ['sort=price', 'sort'],
    ['sort=-distance', 'sort'],
    ['facets=rooms', 'facets'],
    ['offset=9007199254740992', 'offset'],
  ])('?%s is a 400 naming %s', async (query, parameter) => {
    const res = await get(`/projects?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe('error');
    expect(res.json().message).toContain(parameter);
    assertDocumented('GET', '/projects', 400, res.json());
  });

  it('GET /projects/list gives every visible project {id, name, logo} by name, then id', async () => {
    const res = await get('/projects/list');
    expect(res.statusCode).toBe(200);
    assertDocumented('GET', '/projects/list', 200, res.json());
    const items = res.json().data.items as { id: number; name: string; logo: string | null }[];
    expect(items).toHaveLength(VISIBLE);
    expect(items.map((item) => item.id)).toEqual((await everything()).map((item) => item.id));
    expect(items.find((item) => item.id === 1)).toEqual({ id: 1, name: 'Marina Vista', logo: `${BASE}/projects/1/cover.jpg` });
    expect(items.find((item) => item.id === 100)).toEqual({ id: 100, name: 'Tower 0', logo: null });
    for (const item of items) expect(Object.keys(item).sort()).toEqual(['id', 'logo', 'name']);
  });

  it('GET /projects/list takes no parameters', async () => {
    const res = await get('/projects/list?limit=5');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('limit');
  });

  it('needs a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/projects' });
    expect(res.statusCode).toBe(401);
    assertDocumented('GET', '/projects', 401, res.json());
  });

  it('an agency without contracts sees nothing', async () => {
    await t.db.updateTable('contracts').set({ status: 'rejected' }).where('agency_id', '=', 1).where('status', '=', 'approved').execute();
    try {
      const other = await t.key();
      const res = await t.app.inject({ method: 'GET', url: '/projects', headers: { 'x-api-key': other } });
      expect(res.json().data).toEqual({ total: 0, items: [] });
      const list = await t.app.inject({ method: 'GET', url: '/projects/list', headers: { 'x-api-key': other } });
      expect(list.json().data).toEqual({ items: [] });
    } finally {
      await t.db.updateTable('contracts').set({ status: 'approved' }).where('agency_id', '=', 1).where('developer_id', 'in', [DEV, ALDAR, DEV_DELETED]).execute();
    }
  });
});
