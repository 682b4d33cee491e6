import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { haversineM } from '../src/domain/geo.js';
import { importBundle } from '../src/import/import-bundle.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { untilSignalled } from './helpers/detail-differential.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, TS, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

const AT = { lat: 25.08, lng: 55.14 };
const BASE = 'https://static.example.com';

const file = (id: number, path: string, mime = 'image/jpeg') => ({
  id, path, original_name: path.split('/').pop(), storage_name: `s${id}`, mime_type: mime, size: id * 1000, created_at: TS, updated_at: TS,
});

const schoolData = {
  name: 'Marina International School \u2014 \u0645\u062f\u0631\u0633\u0629 \u{1F3EB}',
  curriculum: 'British',
  khda_rating: 'Outstanding',
  asset_latitude: AT.lat + 0.027,
  asset_longitude: AT.lng,
};

const bundle: Bundle = withRecords(baseBundle(), {
  files: [
    file(60, 'projects/1/cover.jpg'),
    file(61, 'projects/1/lobby.jpg'),
    file(62, 'projects/1/floor-plan.pdf', 'application/pdf'),
    file(63, 'projects/1/brochure.pdf', 'application/pdf'),
    file(64, 'projects/1/general-plan.pdf', 'application/pdf'),
  ],
  users: [
    { id: 112, name: 'Ali Shouty', email: 'ali@emaar.example' },
    { id: 113, name: 'Bob Manager', email: 'bob@emaar.example' },
    { id: 114, name: 'Gone Broker', email: 'gone@emaar.example', deleted: true },
  ],
  company_members: [
    { company_id: DEV, user_id: 112, role: ' CEO ' },
    { company_id: DEV, user_id: 113, role: 'manager' },
    { company_id: DEV, user_id: 114, role: 'broker' },
  ],
  projects: [
    {
      id: 1, company_id: DEV, author_id: 111, area_id: 1, name: 'Marina Vista', description: 'Waterfront living.', type: 2, status: 3,
      development_status: 1, readiness_progress: 45, total_floors: 40, developer_registration_id: 'DR-1', trakheesi_project_id: 'TR-1',
      escrow_account: 'ESC-001', oqood_registration: 'OQ-1', launch_date: '2025-01-15T00:00:00Z', launch_time: '10:00',
      handover_date: '2027-03-31T00:00:00Z', resale_conditions: 'After 30% paid', floors_formula: 'G+P+40', is_branded: true,
      is_resale: false, service_charge: 18.5, currency: 'AED', commission_type: 2, latitude: AT.lat, longitude: AT.lng,
      address: 'Al Marsa Street', floor_plan_file_id: 62, brochure_file_id: 63, general_plan_file_id: 64,
      payment_plans: [{ type: 1, percent: 10 }, { type: 2, percent: 50 }, { type: 3, percent: 40 }],
      image_file_ids: [60, 61], tours: ['https://tours.example.com/marina-vista'], presentations: ['https://docs.example.com/mv.pdf'],
      feature_ids: [1, 3], created_at: TS, updated_at: TS,
    },
    { id: 2, company_id: DEV, name: 'Hidden Draft', is_draft: true },
    { id: 3, company_id: DEV, name: 'Hidden Deleted', deleted: true },
    { id: 4, company_id: DEV_NO_CONTRACT, name: 'Hidden Uncontracted' },
    { id: 5, company_id: DEV_PENDING, name: 'Hidden Pending' },
    { id: 6, company_id: DEV_DELETED, name: 'Hidden Gone' },
    { id: 7, company_id: DEV, name: 'Bare Project', created_at: TS, updated_at: TS },
  ],
  units: [
    { id: 11, project_id: 1, unit_number: 'B-2', bedrooms: 3, status: 4, furnishing: 2, price: 2500000, unit_area: 150.5 },
    { id: 12, project_id: 1, unit_number: 'A-2', bedrooms: 0, status: 1, furnishing: 1, price: 650000.25, unit_area: 38 },
    { id: 13, project_id: 1, unit_number: 'A-10', bedrooms: 1, status: 5, furnishing: 4, unit_area: 70 },
    { id: 14, project_id: 1, unit_number: 'A-1', bedrooms: 1, price: 5, unit_area: 5, deleted: true },
  ],
  facilities: [
    { category: 'transport', source_id: 'T-FAR', data: { name: 'Tram stop', asset_latitude: AT.lat + 0.004, asset_longitude: AT.lng } },
    { category: 'transport', source_id: 'T-NEAR', data: { name: 'Metro station', asset_latitude: AT.lat + 0.002, asset_longitude: AT.lng } },
    { category: 'education', source_id: 1077, data: schoolData },
    // Its own source_id field is kept as the source gave it.
    { category: 'airports_ports', source_id: 'AP-1', data: { source_id: 'DXB-PORT', name: 'Marina Port', latitude: AT.lat, longitude: AT.lng + 0.05 } },
    { category: 'healthcare', source_id: 'FAR-AWAY', data: { name: 'Abu Dhabi Clinic', asset_latitude: 24.45, asset_longitude: 54.37 } },
  ],
});

const distanceTo = (lat: number, lng: number) => haversineM(AT.lat, AT.lng, lat, lng);

describe.each(drivers)('GET /projects/{id} and contacts (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { key: { priceVector: 10 }, documented: true });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  it('returns every block of the detail, prices in the key\u2019s prices, links equal to paths without a static base', async () => {
    const res = await get('/projects/1');
    expect(res.statusCode).toBe(200);
    assertDocumented('GET', '/projects/{id}', 200, res.json());
    const { nearby_facilities: nearby, ...detail } = res.json().data;
    const fileObject = (id: number, path: string, mime = 'image/jpeg') => ({ ...file(id, path, mime), created_at: TS, updated_at: TS, url: path });
    expect(detail).toEqual({
      id: 1,
      name: 'Marina Vista',
      description: 'Waterfront living.',
      type: 2,
      status: 3,
      development_status: 1,
      is_draft: false,
      is_branded: true,
      is_resale: false,
      is_escrow: true,
      area_name: 'Dubai Marina',
      area_city: 'Dubai',
      handover_date: '2027-03-31T00:00:00.000Z',
      launch_date: '2025-01-15T00:00:00.000Z',
      launch_time: '10:00',
      readiness_progress: 45,
      total_floors: 40,
      developer_registration_id: 'DR-1',
      trakheesi_project_id: 'TR-1',
      escrow_account: 'ESC-001',
      oqood_registration: 'OQ-1',
      resale_conditions: 'After 30% paid',
      floors_formula: 'G+P+40',
      price_from: 715000.28,
      size_from: 38,
      logo: 'projects/1/cover.jpg',
      company: { id: DEV, name: 'Emaar Properties', logo: 'companies/10/logo.png' },
      location: { area_id: 1, area_name: 'Dubai Marina', area_city: 'Dubai', address: 'Al Marsa Street', latitude: AT.lat, longitude: AT.lng },
      cost: { currency: 'AED', commission_type: 2, service_charge: 18.5 },
      payment_plans: [
        { type: 1, percent: 10 },
        { type: 2, percent: 50 },
        { type: 3, percent: 40 },
      ],
      media: {
        images: [
          { id: 60, position: expect.any(Number), file: fileObject(60, 'projects/1/cover.jpg') },
          { id: 61, position: expect.any(Number), file: fileObject(61, 'projects/1/lobby.jpg') },
        ],
        tours: ['https://tours.example.com/marina-vista'],
        presentations: ['https://docs.example.com/mv.pdf'],
        floor_plan_file: fileObject(62, 'projects/1/floor-plan.pdf', 'application/pdf'),
        brochure_file: fileObject(63, 'projects/1/brochure.pdf', 'application/pdf'),
        general_plan_file: fileObject(64, 'projects/1/general-plan.pdf', 'application/pdf'),
      },
      units: [
        { id: 13, unit_number: 'A-10', bedrooms: 1, status: 5, furnishing: 4, price: null, unit_area: 70 },
        { id: 12, unit_number: 'A-2', bedrooms: 0, status: 1, furnishing: 1, price: 715000.28, unit_area: 38 },
        { id: 11, unit_number: 'B-2', bedrooms: 3, status: 4, furnishing: 2, price: 2750000, unit_area: 150.5 },
      ],
      preferences: {
        features: [{ id: 1, name: 'Smart Home', type: 1 }],
        amenities: [{ id: 3, name: 'Swimming Pool', type: 2 }],
      },
      created_at: TS,
      updated_at: TS,
    });
    const [first, second] = detail.media.images as { position: number }[];
    expect(first.position).toBeLessThan(second.position);
    expect(Object.keys(nearby).sort()).toEqual(['airports_ports', 'education', 'employment', 'healthcare', 'lifestyle', 'retail', 'tourism', 'transport']);
  });

  it('lists nearby facilities per category, nearest first, facility records as imported plus their source id', async () => {
    const nearby = (await get('/projects/1')).json().data.nearby_facilities;
    expect(nearby.transport.map((entry: { facility: { source_id: string } }) => entry.facility.source_id)).toEqual(['T-NEAR', 'T-FAR']);
    expect(nearby.transport[0].distance).toBeCloseTo(distanceTo(AT.lat + 0.002, AT.lng), 0);
    expect(nearby.transport[0].facility).toEqual({ source_id: 'T-NEAR', name: 'Metro station', asset_latitude: AT.lat + 0.002, asset_longitude: AT.lng });
    expect(nearby.education).toEqual([{ distance: expect.any(Number), facility: { source_id: '1077', ...schoolData } }]);
    expect(nearby.education[0].distance).toBeCloseTo(distanceTo(AT.lat + 0.027, AT.lng), 0);
    expect(nearby.airports_ports).toEqual([
      { distance: expect.any(Number), facility: { source_id: 'DXB-PORT', name: 'Marina Port', latitude: AT.lat, longitude: AT.lng + 0.05 } },
    ]);
    expect(nearby.healthcare).toEqual([]);
    expect(nearby.retail).toEqual([]);
  });

  it('serves each facility record with its fields in the order imported, and the whole detail as compact JSON', async () => {
    const res = await get('/projects/1');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const nearby = res.json().data.nearby_facilities;
    expect(Object.keys(nearby.education[0].facility)).toEqual(['source_id', ...Object.keys(schoolData)]);
    expect(Object.keys(nearby.airports_ports[0].facility)).toEqual(['source_id', 'name', 'latitude', 'longitude']);
    // The stored facility texts are spliced in: the body must be the same text as the parsed body re-serialized.
    expect(res.body).toBe(JSON.stringify(res.json()));
  });

  it('answers HEAD with the headers of GET (the body sent as bytes) and no body', async () => {
    const full = await get('/projects/1');
    const head = await t.app.inject({ method: 'HEAD', url: '/projects/1', headers: { 'x-api-key': key } });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers.etag).toBe(full.headers.etag);
    expect(Number(full.headers['content-length'])).toBe(Buffer.byteLength(full.body));
  });

  it('a re-imported facility record is served as re-imported (both stored forms are written together)', async () => {
    const renamed = { name: 'Metro station (Line 2)', asset_latitude: AT.lat + 0.002, asset_longitude: AT.lng, line: 2 };
    const facility = { category: 'transport', source_id: 'T-NEAR' };
    // Served from the snapshot: from the import's change signal on.
    const reimport = async (data: Record<string, unknown>) => {
      const signalled = t.changes.catalogueVersion;
      await importBundle(t.db, withRecords(baseBundle(), { facilities: [{ ...facility, data }] }), { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
      await untilSignalled(t, signalled);
    };
    await reimport(renamed);
    try {
      const nearby = (await get('/projects/1')).json().data.nearby_facilities;
      expect(nearby.transport[0].facility).toEqual({ source_id: 'T-NEAR', ...renamed });
    } finally {
      await reimport({ name: 'Metro station', asset_latitude: AT.lat + 0.002, asset_longitude: AT.lng });
    }
    expect((await get('/projects/1')).json().data.nearby_facilities.transport[0].facility.name).toBe('Metro station');
  });

  it('a facility written without its served text (manual SQL, an older importer) gets it derived', async () => {
    await sql`UPDATE facilities SET data = data || '{"name": "Metro station (by hand)"}' WHERE source_id = 'T-NEAR'`.execute(t.db);
    await sql`INSERT INTO facilities (category, source_id, data) VALUES ('tourism', 'BY-HAND', '{"name": "Souk"}')`.execute(t.db);
    // Served from the snapshot (a detail asked before is kept with it): from the writes' snapshot on.
    await t.refresh();
    try {
      expect((await get('/projects/1')).json().data.nearby_facilities.transport[0].facility.name).toBe('Metro station (by hand)');
      const { rows } = await sql<{ facility: unknown }>`SELECT facility_json::jsonb AS facility FROM facilities WHERE source_id = 'BY-HAND'`.execute(t.db);
      expect(rows[0].facility).toEqual({ source_id: 'BY-HAND', name: 'Souk' });
    } finally {
      await sql`DELETE FROM facilities WHERE source_id = 'BY-HAND'`.execute(t.db);
      await importBundle(
        t.db,
        withRecords(baseBundle(), { facilities: [{ category: 'transport', source_id: 'T-NEAR', data: { name: 'Metro station', asset_latitude: AT.lat + 0.002, asset_longitude: AT.lng } }] }),
        { facilityLinkRadiusM: t.config.facilityLinkRadiusM },
      );
      await t.refresh();
    }
  });

  it('gives nulls and empty blocks for a bare project', async () => {
    const res = await get('/projects/7');
    assertDocumented('GET', '/projects/{id}', 200, res.json());
    const detail = res.json().data;
    expect(detail).toMatchObject({
      area_name: null,
      area_city: null,
      price_from: null,
      size_from: null,
      logo: null,
      is_escrow: false,
      location: { area_id: null, area_name: null, area_city: null, address: null, latitude: null, longitude: null },
      cost: { currency: 'AED', commission_type: null, service_charge: null },
      payment_plans: [],
      media: { images: [], tours: [], presentations: [], floor_plan_file: null, brochure_file: null, general_plan_file: null },
      units: [],
      preferences: { features: [], amenities: [] },
    });
    expect(Object.values(detail.nearby_facilities)).toEqual(Array(8).fill([]));
  });

  it('returns the contacts: the developer and its staff without CEOs and deleted users', async () => {
    const res = await get('/projects/1/contacts');
    expect(res.statusCode).toBe(200);
    assertDocumented('GET', '/projects/{id}/contacts', 200, res.json());
    expect(res.json().data).toEqual({
      company: { id: DEV, name: 'Emaar Properties', avatar: 'companies/10/logo.png' },
      workers: [
        {
          user_id: 113,
          name: 'Bob Manager',
          email: 'bob@emaar.example',
          role: 'manager',
          avatar: null,
          contact_phone: null,
          social_links: { telegram: '', instagram: '', linkedin: '', facebook: '', twitter: '', whatsapp: '', website: '' },
          languages: null,
          bio: null,
        },
        {
          user_id: 111,
          name: 'Sara Lee',
          email: 'sara@emaar.example',
          role: 'broker',
          avatar: 'users/110/avatar.jpg',
          contact_phone: '+971 55 123 4567',
          social_links: { telegram: 'saralee', instagram: '', linkedin: '', facebook: '', twitter: '', whatsapp: '+971551234567', website: '' },
          languages: ['English', 'Arabic'],
          bio: 'Off-plan specialist.',
        },
      ],
    });
  });

  it.each([
    [2, 'draft'],
    [3, 'deleted'],
    [4, 'developer without contract'],
    [5, 'developer with a pending contract'],
    [6, 'deleted developer'],
    [999999, 'unknown'],
    // A positive integer is an id by the specification's rule, even beyond what storage holds (32 bits).
    [2147483648, 'beyond storage'],
    [99999999999, 'beyond storage'],
  ])('answers 404 project not found for project %i (%s), detail and contacts alike', async (id) => {
    for (const [url, template] of [
      [`/projects/${id}`, '/projects/{id}'],
      [`/projects/${id}/contacts`, '/projects/{id}/contacts'],
    ]) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'project not found' });
      assertDocumented('GET', template, 404, res.json());
    }
  });

  it.each(['abc', '0', '-1', '1.5'])('answers 400 for /projects/%s', async (id) => {
    for (const [url, template] of [
      [`/projects/${id}`, '/projects/{id}'],
      [`/projects/${id}/contacts`, '/projects/{id}/contacts'],
    ]) {
      const res = await get(url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'id must be a positive integer' });
      assertDocumented('GET', template, 400, res.json());
    }
  });

  it('rejects query parameters on the detail', async () => {
    const res = await get('/projects/1?lang=en');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('lang');
  });
});

describe.each(drivers)('GET /projects/{id} with AMENITIEST_RADIUS and STATIC_BASE_URL (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { env: { AMENITIEST_RADIUS: '1000', STATIC_BASE_URL: BASE }, documented: true });

  it('keeps only facilities strictly closer than the radius', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/projects/1', headers: { 'x-api-key': key } });
    assertDocumented('GET', '/projects/{id}', 200, res.json());
    const nearby = res.json().data.nearby_facilities;
    expect(nearby.transport.map((entry: { facility: { source_id: string } }) => entry.facility.source_id)).toEqual(['T-NEAR', 'T-FAR']);
    expect(nearby.education).toEqual([]);
    expect(nearby.airports_ports).toEqual([]);
    expect(Object.keys(nearby)).toHaveLength(8);
  });

  it('the radius is strict: a facility exactly at the radius is left out, in the detail and in near_*', async () => {
    const links = await t.db.selectFrom('project_facilities').select(['project_id', 'facility_id', 'distance_m']).where('category', '=', 'transport').execute();
    const nearest = await t.db.selectFrom('projects').select(['id', 'nearest_transport_m']).where('nearest_transport_m', 'is not', null).execute();
    // The importer keeps projects.nearest_transport_m (what near_transport reads) in step with the links.
    await t.db.updateTable('project_facilities').set({ distance_m: 1000 }).where('category', '=', 'transport').execute();
    await t.db.updateTable('projects').set({ nearest_transport_m: 1000 }).where('nearest_transport_m', 'is not', null).execute();
    // GET /projects reads the in-memory search: it sees direct writes once refreshed.
    await t.refresh();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/projects/1', headers: { 'x-api-key': key } });
      expect(res.json().data.nearby_facilities.transport).toEqual([]);
      const filtered = await t.app.inject({ method: 'GET', url: '/projects?near_transport=true', headers: { 'x-api-key': key } });
      expect(filtered.json().data.total).toBe(0);
    } finally {
      for (const link of links) {
        await t.db
          .updateTable('project_facilities')
          .set({ distance_m: link.distance_m })
          .where('project_id', '=', link.project_id)
          .where('facility_id', '=', link.facility_id)
          .execute();
      }
      for (const project of nearest) {
        await t.db.updateTable('projects').set({ nearest_transport_m: project.nearest_transport_m }).where('id', '=', project.id).execute();
      }
      await t.refresh();
    }
    const restored = await t.app.inject({ method: 'GET', url: '/projects?near_transport=true', headers: { 'x-api-key': key } });
    expect(restored.json().data.items.map((item: { id: number }) => item.id)).toEqual([1]);
  });

  it('builds every link from the static base', async () => {
    const detail = (await t.app.inject({ method: 'GET', url: '/projects/1', headers: { 'x-api-key': key } })).json().data;
    expect(detail.logo).toBe(`${BASE}/projects/1/cover.jpg`);
    expect(detail.company.logo).toBe(`${BASE}/companies/10/logo.png`);
    expect(detail.media.images[0].file.url).toBe(`${BASE}/projects/1/cover.jpg`);
    expect(detail.media.images[0].file.path).toBe('projects/1/cover.jpg');
    expect(detail.media.brochure_file.url).toBe(`${BASE}/projects/1/brochure.pdf`);
    const contacts = (await t.app.inject({ method: 'GET', url: '/projects/1/contacts', headers: { 'x-api-key': key } })).json().data;
    expect(contacts.company.avatar).toBe(`${BASE}/companies/10/logo.png`);
    expect(contacts.workers[1].avatar).toBe(`${BASE}/users/110/avatar.jpg`);
  });
});
