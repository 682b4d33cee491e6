import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineM } from '../src/domain/geo.js';
import { createTestApp, useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Four visible projects, each filter has a case that matches some and not others. Items come back in
 * name order, so the expected lists are in that order too:
 *   P4 "Creek 50%_Tower", P2 "Downtown Heights", P1 "Marina Vista", P3 "Yas Bay Residences".
 * Invisible projects (draft, deleted, non-contracted, pending, deleted developer) match every filter.
 */
const ALDAR = 14;
const P1 = 1;
const P2 = 2;
const P3 = 3;
const P4 = 4;

const P1_AT = { lat: 25.08, lng: 55.14 };
const P2_AT = { lat: 25.1972, lng: 55.2744 };
const P4_AT = { lat: 24.4539, lng: 54.3773 };

const everything = {
  type: 1,
  development_status: 1,
  is_branded: true,
  is_resale: true,
  escrow_account: 'ESC-X',
  handover_date: '2026-06-30T12:00:00Z',
  latitude: P1_AT.lat,
  longitude: P1_AT.lng,
  payment_plans: [{ type: 1, percent: 0 }, { type: 3, percent: 100 }],
  feature_ids: [1, 2, 3, 4],
};

const hidden = [
  { id: 5, company_id: DEV, name: 'Marina Hidden Draft', is_draft: true, ...everything },
  { id: 6, company_id: DEV, name: 'Marina Hidden Deleted', deleted: true, ...everything },
  { id: 7, company_id: DEV_NO_CONTRACT, name: 'Marina Hidden Uncontracted', ...everything },
  { id: 8, company_id: DEV_PENDING, name: 'Marina Hidden Pending', ...everything },
  { id: 9, company_id: DEV_DELETED, name: 'Marina Hidden Gone', ...everything },
];

/** `lat` offset in degrees from P1 (about 111 m per 0.001). */
const nearP1 = (dLat: number, dLng = 0) => ({ asset_latitude: P1_AT.lat + dLat, asset_longitude: P1_AT.lng + dLng });

export const filterBundle: Bundle = withRecords(baseBundle(), {
  companies: [{ id: ALDAR, company_type: 3, company_name: 'Aldar Properties' }],
  contracts: [{ agency_id: 1, developer_id: ALDAR, status: 'approved' }],
  projects: [
    {
      id: P1, company_id: DEV, name: 'Marina Vista', type: 1, development_status: 1, is_branded: true, is_resale: false,
      escrow_account: 'ESC-001', handover_date: '2026-06-30T12:00:00Z', latitude: P1_AT.lat, longitude: P1_AT.lng,
      payment_plans: [{ type: 1, percent: 20 }, { type: 2, percent: 40 }, { type: 3, percent: 40 }], feature_ids: [1, 3],
    },
    {
      id: P2, company_id: ALDAR, name: 'Downtown Heights', type: 2, development_status: 2, is_branded: false, is_resale: true,
      escrow_account: '', handover_date: '2027-12-31T00:00:00Z', latitude: P2_AT.lat, longitude: P2_AT.lng,
      payment_plans: [{ type: 1, percent: 10 }, { type: 2, percent: 90 }], feature_ids: [2, 4],
    },
    { id: P3, company_id: DEV, name: 'Yas Bay Residences', type: 1, development_status: 3, escrow_account: '   ', feature_ids: [1] },
    {
      id: P4, company_id: ALDAR, name: 'Creek 50%_Tower', type: 3, development_status: 2, is_branded: true, is_resale: true,
      escrow_account: 'ESC-004', handover_date: '2028-01-01T00:00:00Z', latitude: P4_AT.lat, longitude: P4_AT.lng,
      payment_plans: [{ type: 3, percent: 100 }], feature_ids: [1, 2, 3, 4],
    },
    ...hidden,
  ],
  units: [
    { id: 101, project_id: P1, unit_number: '101', bedrooms: 2, status: 4, price: 1000000, unit_area: 100, parking: 1, tag_ids: [1] },
    { id: 102, project_id: P1, unit_number: '102', bedrooms: 3, status: 3, price: 3000000, unit_area: 200, parking: 2, tag_ids: [2] },
    // Deleted: would match bedrooms=1, statuses=2, price_max=1, parking_min=9 and every tag.
    { id: 103, project_id: P1, unit_number: '103', bedrooms: 1, status: 2, price: 1, unit_area: 1, parking: 9, tag_ids: [1, 2, 3], deleted: true },
    { id: 201, project_id: P2, unit_number: '201', bedrooms: 0, status: 1, price: 500000.5, unit_area: 40, parking: 0, tag_ids: [1, 2] },
    { id: 202, project_id: P2, unit_number: '202', bedrooms: 6, status: 5, price: 12000000, unit_area: 600, parking: 4 },
    { id: 301, project_id: P3, unit_number: '301', bedrooms: 1, status: 2, unit_area: 70, parking: 1, tag_ids: [3] },
    { id: 401, project_id: P4, unit_number: '401', bedrooms: 4, status: 4, price: 2000000, unit_area: 150, parking: 3, tag_ids: [3] },
    ...hidden.map((project) => ({
      id: 500 + project.id, project_id: project.id, unit_number: 'H', bedrooms: 2, status: 4, price: 1000000, unit_area: 100, parking: 9, tag_ids: [1, 2, 3],
    })),
  ],
  facilities: [
    { category: 'transport', source_id: 'T1', data: { name: 'Marina Metro', ...nearP1(0.004) } }, // ~445 m
    { category: 'employment', source_id: 'EM1', data: { name: 'Media City', ...nearP1(0.005) } }, // ~556 m
    { category: 'lifestyle', source_id: 'L1', data: { name: 'JBR Walk', ...nearP1(0.006) } }, // ~667 m
    { category: 'retail', source_id: 'R1', data: { name: 'Marina Mall', ...nearP1(0.007) } }, // ~778 m
    { category: 'tourism', source_id: 'TO1', data: { name: 'Ain Dubai', ...nearP1(0.008) } }, // ~890 m
    { category: 'education', source_id: 'ED1', data: { name: 'Marina School', ...nearP1(0.027) } }, // ~3 km
    { category: 'airports_ports', source_id: 'A1', data: { name: 'Marina Port', latitude: P1_AT.lat, longitude: P1_AT.lng + 0.05 } }, // ~5 km
    { category: 'healthcare', source_id: 'H1', data: { name: 'Downtown Clinic', asset_latitude: P2_AT.lat + 0.002, asset_longitude: P2_AT.lng } }, // ~222 m from P2
  ],
});

const P1_TO_P2_KM = haversineM(P1_AT.lat, P1_AT.lng, P2_AT.lat, P2_AT.lng) / 1000;

/** [query, expected ids in order]; every parameter appears with a matching and a non-matching case. */
const cases: [string, number[]][] = [
  ['', [P4, P2, P1, P3]],
  // search: project name or developer name, case-insensitive, LIKE wildcards literal
  ['search=marina', [P1]],
  ['search=VISTA', [P1]],
  ['search=aldar', [P4, P2]],
  ['search=emaar', [P1, P3]],
  ['search=50%25_', [P4]],
  ['search=%25', [P4]],
  ['search=_', [P4]],
  ['search=s_a', []],
  ['search=nowhere', []],
  // developer_ids
  ['developer_ids=14', [P4, P2]],
  ['developer_ids=10,14', [P4, P2, P1, P3]],
  [`developer_ids=${DEV_NO_CONTRACT}`, []],
  // unit_types
  ['unit_types=2', [P2]],
  ['unit_types=1,3', [P4, P1, P3]],
  ['unit_types=9', []],
  // development_status
  ['development_status=3', [P3]],
  ['development_status=1,2', [P4, P2, P1]],
  // bedrooms: 0 = studio, 5 = five or more; deleted units never count
  ['bedrooms=0', [P2]],
  ['bedrooms=5', [P2]],
  ['bedrooms=4', [P4]],
  ['bedrooms=1', [P3]],
  ['bedrooms=2,3', [P1]],
  ['bedrooms=0,5', [P2]],
  // statuses
  ['statuses=5', [P2]],
  ['statuses=2', [P3]],
  ['statuses=4', [P4, P1]],
  // price (key price = base price here: price vector 0)
  ['price_min=2000000', [P4, P2, P1]],
  ['price_max=500000.5', [P2]],
  ['price_max=500000.49', []],
  ['price_min=12000000.01', []],
  ['price_min=1000000&price_max=1000000', [P1]],
  // price per m²: 101 10000, 102 15000, 201 12500.0125, 202 20000, 401 13333.33
  ['price_per_m2_min=20000', [P2]],
  ['price_per_m2_max=10000', [P1]],
  ['price_per_m2_max=9999.99', []],
  ['price_per_m2_min=13333&price_per_m2_max=13334', [P4]],
  // price per ft²: 101 929.0304, 202 1858.06
  ['price_per_ft2_max=929.04', [P1]],
  ['price_per_ft2_max=929.03', []],
  ['price_per_ft2_min=1858', [P2]],
  ['price_per_ft2_min=1858.1', []],
  // size (m²)
  ['size_min=600', [P2]],
  ['size_max=40', [P2]],
  ['size_min=70&size_max=70', [P3]],
  ['size_min=601', []],
  // parking_min
  ['parking_min=4', [P2]],
  ['parking_min=3', [P4, P2]],
  ['parking_min=5', []],
  // project booleans: false filters too
  ['is_branded=true', [P4, P1]],
  ['is_branded=false', [P2, P3]],
  ['is_resale=true', [P4, P2]],
  ['is_resale=false', [P1, P3]],
  ['is_escrow=true', [P4, P1]],
  ['is_escrow=false', [P2, P3]],
  // handover (P1 2026-06-30T12:00Z, P2 2027-12-31T00:00Z, P4 2028-01-01T00:00Z, P3 none)
  ['handover_from=2027-12-31', [P4, P2]],
  ['handover_from=2027-12-31T00:00:01Z', [P4]],
  ['handover_from=2028-01-02', []],
  ['handover_to=2026-06-30', [P1]],
  ['handover_to=2026-06-29', []],
  ['handover_to=2026-06-30T12:00:00Z', [P1]],
  ['handover_to=2026-06-30T11:59:59Z', []],
  ['handover_to=2026-06-30T16:00:00%2B04:00', [P1]],
  ['handover_from=2026-06-30&handover_to=2026-06-30', [P1]],
  ['handover_from=2026-01-01&handover_to=2027-12-31', [P2, P1]],
  // payment plans (pre-handover = types 1 + 2: P1 60, P2 100, P4 0; after = type 3: P1 40, P2 0, P4 100; P3 none)
  ['payment_max_pre_handover=60', [P4, P1]],
  ['payment_max_pre_handover=59.9', [P4]],
  ['payment_max_pre_handover=100', [P4, P2, P1]],
  ['payment_min_after_handover=40', [P4, P1]],
  ['payment_min_after_handover=41', [P4]],
  ['payment_min_after_handover=0', [P4, P2, P1]],
  ['payment_only_post_handover=true', [P4, P1]],
  ['payment_only_post_handover=false', [P4, P2, P1, P3]],
  // great-circle radius
  [`lat=${P1_AT.lat}&lng=${P1_AT.lng}&radius_km=1`, [P1]],
  [`lat=${P1_AT.lat}&lng=${P1_AT.lng}&radius_km=${(P1_TO_P2_KM + 0.01).toFixed(3)}`, [P2, P1]],
  [`lat=${P1_AT.lat}&lng=${P1_AT.lng}&radius_km=${(P1_TO_P2_KM - 0.01).toFixed(3)}`, [P1]],
  [`lat=${P4_AT.lat}&lng=${P4_AT.lng}&radius_km=0.5`, [P4]],
  ['lat=0&lng=0&radius_km=100', []],
  // near_* (no AMENITIEST_RADIUS in this app: any linked facility counts); false = no constraint
  ['near_transport=true', [P1]],
  ['near_employment=true', [P1]],
  ['near_lifestyle=true', [P1]],
  ['near_retail=true', [P1]],
  ['near_tourism=true', [P1]],
  ['near_education=true', [P1]],
  ['near_airport=true', [P1]],
  ['near_healthcare=true', [P2]],
  ['near_healthcare=true&near_transport=true', []],
  ['near_transport=false', [P4, P2, P1, P3]],
  // preference_ids: all of them
  ['preference_ids=1', [P4, P1, P3]],
  ['preference_ids=1,3', [P4, P1]],
  ['preference_ids=2,4', [P4, P2]],
  ['preference_ids=1,2,3,4', [P4]],
  ['preference_ids=99', []],
  // unit_preference_ids: one unit carries all of them
  ['unit_preference_ids=1', [P2, P1]],
  ['unit_preference_ids=1,2', [P2]],
  ['unit_preference_ids=3', [P4, P3]],
  ['unit_preference_ids=1,3', []],
  // the single-unit rule
  ['bedrooms=3&price_max=1000000', []],
  ['bedrooms=2&price_max=1000000', [P1]],
  ['bedrooms=3&price_min=3000000', [P1]],
  ['bedrooms=0&statuses=5', []],
  ['unit_preference_ids=2&price_max=1000000', [P2]],
  ['unit_preference_ids=1&price_min=2000000', []],
  ['unit_preference_ids=2&size_min=200&parking_min=2', [P1]],
  ['size_min=600&statuses=1', []],
  // combinations of project- and unit-level filters
  ['developer_ids=10&bedrooms=2,4', [P1]],
  ['is_branded=true&bedrooms=2,4&near_transport=true', [P1]],
];

describe.each(drivers)('GET /projects filters (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, filterBundle, (started) => ({ t, key, assertDocumented } = started), { documented: true });

  async function ids(query: string): Promise<number[]> {
    const res = await t.app.inject({ method: 'GET', url: `/projects?limit=100&${query}`, headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    assertDocumented('GET', '/projects', 200, res.json());
    const { total, items } = res.json().data as { total: number; items: { id: number }[] };
    expect(total).toBe(items.length);
    return items.map((item) => item.id);
  }

  it.each(cases)('?%s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it('the single-unit rule: a cheap 2-bed and an expensive 3-bed do not make a cheap 3-bed', async () => {
    expect(await ids('bedrooms=2&price_max=1000000')).toEqual([P1]);
    expect(await ids('bedrooms=3')).toEqual([P1]);
    expect(await ids('bedrooms=3&price_max=1000000')).toEqual([]);
  });
});

describe.each(drivers)('GET /projects near_* with AMENITIEST_RADIUS (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, filterBundle, (started) => ({ t, key } = started), { env: { AMENITIEST_RADIUS: '1000' } });

  const ids = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/projects?${query}`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    return (res.json().data.items as { id: number }[]).map((item) => item.id);
  };

  it.each([
    ['near_transport=true', [P1]], // ~445 m
    ['near_tourism=true', [P1]], // ~890 m
    ['near_healthcare=true', [P2]], // ~222 m
    ['near_education=true', []], // ~3 km: linked, but beyond 1000 m
    ['near_airport=true', []], // ~5 km
  ] as [string, number[]][])('?%s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });
});

/*
 * Prices round-trip: for every key, a unit shown at P (in /projects/{id} and /units/{id}) is matched by
 * price_min=P&price_max=P, and a single-unit project is not matched by P ± 0.01.
 */
const probeBundle: Bundle = withRecords(baseBundle(), {
  projects: [
    { id: 1, company_id: DEV, name: 'Probe Multi' },
    ...[2, 3, 4, 5, 6, 7, 8].map((id) => ({ id, company_id: DEV, name: `Probe Single ${id}` })),
  ],
  units: [
    { id: 11, project_id: 1, unit_number: 'A', price: 1000000, unit_area: 50 },
    { id: 12, project_id: 1, unit_number: 'B', price: 3000000, unit_area: 90 },
    { id: 13, project_id: 1, unit_number: 'C', unit_area: 90 },
    { id: 21, project_id: 2, unit_number: 'A', price: 1234567.89, unit_area: 70 },
    { id: 31, project_id: 3, unit_number: 'A', price: 0.04, unit_area: 70 },
    { id: 41, project_id: 4, unit_number: 'A', price: 99999999.99, unit_area: 70 },
    { id: 51, project_id: 5, unit_number: 'A', price: 333.33, unit_area: 70 },
    { id: 61, project_id: 6, unit_number: 'A', price: 0.01, unit_area: 70 },
    { id: 71, project_id: 7, unit_number: 'A', price: 7777777.77, unit_area: 70 },
    { id: 81, project_id: 8, unit_number: 'A', price: 2.22, unit_area: 70 },
  ],
});

const VECTORS = [0, 12.5, -7.3, 0.1, 100, -99.9, 33.333, -50];

describe.each(drivers)('price filters round-trip displayed prices (%s)', (driver) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(driver, probeBundle);
  });
  afterAll(() => t?.close());

  it.each(VECTORS)('price vector %s', async (priceVector) => {
    const key = await t.key({ priceVector });
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const matches = async (query: string) => {
      const res = await get(`/projects?limit=100&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.items as { id: number }[]).map((item) => item.id);
    };
    const list = (await get('/projects?limit=100')).json().data.items as { id: number; price_from: number | null }[];

    for (const projectId of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const detail = (await get(`/projects/${projectId}`)).json().data as { units: { id: number; price: number | null }[]; price_from: number | null };
      const priced = detail.units.filter((unit) => unit.price !== null).map((unit) => unit.price!);
      expect(detail.price_from).toBe(priced.length ? Math.min(...priced) : null);
      expect(list.find((item) => item.id === projectId)!.price_from).toBe(detail.price_from);

      for (const unit of detail.units) {
        const shown = (await get(`/units/${unit.id}`)).json().data.price as number | null;
        expect(shown).toBe(unit.price);
        if (shown === null) continue;
        expect(Number(shown.toFixed(2))).toBe(shown);
        expect(await matches(`price_min=${shown}&price_max=${shown}`)).toContain(projectId);
        if (detail.units.length === 1) {
          const above = Number((shown + 0.01).toFixed(2));
          const below = Number((shown - 0.01).toFixed(2));
          expect(await matches(`price_min=${above}`)).not.toContain(projectId);
          if (below >= 0) expect(await matches(`price_max=${below}`)).not.toContain(projectId);
        }
      }
    }
  });
});
