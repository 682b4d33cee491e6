import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, withRecords } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

const bundle = withRecords(baseBundle(), {
  areas: [
    { id: 4, name: 'Al Reem Island', city: 'Abu Dhabi' },
    { id: 5, name: 'Aljada', city: 'Sharjah' },
  ],
  companies: [{ id: 14, company_type: 3, company_name: 'Azizi Developments' }],
  contracts: [{ agency_id: 1, developer_id: 14, status: 'approved' }],
  projects: [
    { id: 1, company_id: DEV, name: 'Marina Vista', area_id: 1 },
    { id: 2, company_id: DEV_NO_CONTRACT, name: 'Hidden Tower', area_id: 1 },
    { id: 3, company_id: DEV_PENDING, name: 'Pending Tower', area_id: 1 },
    { id: 4, company_id: DEV_DELETED, name: 'Gone Tower', area_id: 1 },
    // Azizi is contracted but has only a draft and a deleted project: not a developer to filter by.
    { id: 5, company_id: 14, name: 'Draft Tower', is_draft: true },
    { id: 6, company_id: 14, name: 'Deleted Tower', deleted: true },
  ],
});

describe.each(drivers)('reference endpoints (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { env: { STATIC_BASE_URL: 'https://static.example.com/' }, documented: true });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  it('GET /companies lists contracted developers with a published project, logo as a link', async () => {
    const res = await get('/companies');
    expect(res.statusCode).toBe(200);
    assertDocumented('GET', '/companies', 200, res.json());
    expect(res.json().data).toEqual({ items: [{ id: DEV, name: 'Emaar Properties', logo: 'https://static.example.com/companies/10/logo.png' }] });
  });

  it('GET /companies follows a contract that becomes approved', async () => {
    await t.db.updateTable('contracts').set({ status: 'approved' }).where('developer_id', '=', DEV_PENDING).execute();
    try {
      const names = (await get('/companies')).json().data.items.map((c: { name: string }) => c.name);
      expect(names).toEqual(['Emaar Properties', 'Pending Developments']);
    } finally {
      await t.db.updateTable('contracts').set({ status: 'pending' }).where('developer_id', '=', DEV_PENDING).execute();
    }
  });

  it('GET /areas sorts by city then name', async () => {
    const res = await get('/areas');
    assertDocumented('GET', '/areas', 200, res.json());
    const areas = res.json().data as { name: string; city: string; created_at: string }[];
    expect(areas.map((a) => `${a.city}/${a.name}`)).toEqual([
      'Abu Dhabi/Al Reem Island',
      'Abu Dhabi/Yas Island',
      'Dubai/Business Bay',
      'Dubai/Dubai Marina',
      'Sharjah/Aljada',
    ]);
    expect(Object.keys(areas[0]).sort()).toEqual(['city', 'created_at', 'id', 'name', 'updated_at']);
    expect(new Date(areas[0].created_at).toISOString()).toBe(areas[0].created_at);
  });

  it('GET /areas?city= matches the city exactly, ignoring case', async () => {
    expect((await get('/areas?city=dubai')).json().data.map((a: { name: string }) => a.name)).toEqual(['Business Bay', 'Dubai Marina']);
    expect((await get('/areas?city=ABU%20DHABI')).json().data).toHaveLength(2);
    expect((await get('/areas?city=Dub')).json().data).toEqual([]);
  });

  it('GET /preferences lists unit tags sorted by name', async () => {
    const res = await get('/preferences');
    assertDocumented('GET', '/preferences', 200, res.json());
    expect(res.json().data.map((tag: { name: string }) => tag.name)).toEqual(['Balcony', 'Corner Unit', 'Sea View']);
    expect(Object.keys(res.json().data[0]).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
  });

  it('GET /project-preferences splits features and amenities', async () => {
    const res = await get('/project-preferences');
    assertDocumented('GET', '/project-preferences', 200, res.json());
    expect(res.json().data).toEqual({
      features: [
        { id: 2, name: 'Private Beach', type: 1 },
        { id: 1, name: 'Smart Home', type: 1 },
      ],
      amenities: [
        { id: 4, name: 'Gym', type: 2 },
        { id: 3, name: 'Swimming Pool', type: 2 },
      ],
    });
  });

  it('GET /project-preferences?type= restricts to one section', async () => {
    expect((await get('/project-preferences?type=1')).json().data).toEqual({
      features: [
        { id: 2, name: 'Private Beach', type: 1 },
        { id: 1, name: 'Smart Home', type: 1 },
      ],
      amenities: [],
    });
    expect((await get('/project-preferences?type=2')).json().data.features).toEqual([]);
  });

  it.each(['3', '0', 'x', '1.5'])('GET /project-preferences?type=%s is a 400 naming the parameter', async (value) => {
    const res = await get(`/project-preferences?type=${value}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe('error');
    expect(res.json().message).toMatch(/^type /);
    assertDocumented('GET', '/project-preferences', 400, res.json());
  });

  it('rejects unknown query parameters, naming them', async () => {
    const res = await get('/preferences?sort=name');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'unknown query parameter: sort' });
  });
});
