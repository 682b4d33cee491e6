import { describe, expect, it } from 'vitest';
import { importBundle } from '../src/import/import-bundle.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Names for every code: the bundle sections `project_types` and `development_statuses` (migration
 * 0011), GET /project-types and GET /development-statuses, and the `label` / `filterable` of every
 * facet value of GET /projects.
 */
const bundle = withRecords(baseBundle(), {
  project_types: [
    { id: 2, name: 'Villas' },
    { id: 1, name: 'Apartments' },
  ],
  development_statuses: [
    { id: 3, name: 'Ready' },
    { id: 0, name: 'Announced' },
    { id: 1, name: 'Off-plan' },
  ],
  projects: [
    { id: 1, company_id: DEV, name: 'Alpha', type: 1, development_status: 0, area_id: 1, is_branded: true },
    { id: 2, company_id: DEV, name: 'Beta', type: 1, development_status: 1, area_id: 1 },
    { id: 3, company_id: DEV, name: 'Gamma', type: 2, development_status: 3 },
    // Type 7 and status 2 have no name in the catalogue.
    { id: 4, company_id: DEV, name: 'Delta', type: 7, development_status: 2 },
  ],
  units: [
    { id: 11, project_id: 1, unit_number: 'A1', bedrooms: 0, status: 4, price: 900000 },
    { id: 12, project_id: 2, unit_number: 'B1', bedrooms: 2, status: 5, price: 1900000 },
    { id: 13, project_id: 3, unit_number: 'C1', bedrooms: 6, status: 1, price: 4900000 },
    { id: 14, project_id: 4, unit_number: 'D1', bedrooms: 1, status: 3, price: 1200000 },
  ],
});

type FacetValue = { value: number | boolean; label: string | null; filterable: boolean; count: number };

describe.each(drivers)('names for codes (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { documented: true });

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    if (res.statusCode === 200) assertDocumented('GET', new URL(url, 'http://x').pathname, 200, res.json());
    return res;
  };

  it('GET /project-types and GET /development-statuses list the imported names by id', async () => {
    expect((await get('/project-types')).json()).toEqual({ status: 'success', data: [{ id: 1, name: 'Apartments' }, { id: 2, name: 'Villas' }] });
    expect((await get('/development-statuses')).json()).toEqual({
      status: 'success',
      data: [{ id: 0, name: 'Announced' }, { id: 1, name: 'Off-plan' }, { id: 3, name: 'Ready' }],
    });
  });

  it('every facet value carries its label; the value stays the id', async () => {
    const res = await get('/projects?facets=bedrooms,statuses,development_status,developer,unit_types,area,is_branded');
    expect(res.statusCode).toBe(200);
    const facets = res.json().data.facets as Record<string, FacetValue[]>;
    const labels = (name: string) => facets[name].map(({ value, label }) => [value, label]);
    expect(labels('development_status')).toEqual([[0, 'Announced'], [1, 'Off-plan'], [2, null], [3, 'Ready']]);
    expect(labels('unit_types')).toEqual([[1, 'Apartments'], [2, 'Villas'], [7, null]]);
    expect(labels('bedrooms')).toEqual([[0, 'Studio'], [1, '1 bedroom'], [2, '2 bedrooms'], [5, '5+ bedrooms']]);
    expect(labels('statuses')).toEqual([[1, 'Announced'], [3, 'Start of sales'], [4, 'On sale'], [5, 'Out of stock']]);
    expect(labels('area')).toEqual([[1, bundle.areas!.find((a) => a.id === 1)!.name]]);
    expect(labels('developer')).toEqual([[DEV, bundle.companies!.find((c) => c.id === DEV)!.company_name]]);
    expect(labels('is_branded')).toEqual([[false, 'Not branded'], [true, 'Branded']]);
  });

  it('development_status 0 and areas are counted but not filterable; every filterable value is a filter that answers its count', async () => {
    const facets = (await get('/projects?facets=development_status,unit_types,bedrooms,area')).json().data.facets as Record<string, FacetValue[]>;
    expect(facets.development_status.find((v) => v.value === 0)).toEqual({ value: 0, label: 'Announced', filterable: false, count: 1 });
    expect(facets.area.every((v) => !v.filterable)).toBe(true);
    // The marking is the filter's own rule: the value it refuses answers 400.
    expect((await get('/projects?development_status=0')).statusCode).toBe(400);
    const filters: Record<string, string> = { development_status: 'development_status', unit_types: 'unit_types', bedrooms: 'bedrooms' };
    for (const [facet, parameter] of Object.entries(filters)) {
      for (const { value, filterable, count } of facets[facet]) {
        if (!filterable) continue;
        const res = await get(`/projects?${parameter}=${value}`);
        expect(res.statusCode, `${parameter}=${value}`).toBe(200);
        expect(res.json().data.total, `${parameter}=${value}`).toBe(count);
      }
    }
  });

  it('a renamed code is served at once, in the list and as a facet label', async () => {
    await importBundle(t.db, { project_types: [{ id: 7, name: 'Duplexes' }], development_statuses: [{ id: 1, name: 'Under construction' }] }, { facilityLinkRadiusM: 1000 });
    await t.refresh();
    expect((await get('/project-types')).json().data).toContainEqual({ id: 7, name: 'Duplexes' });
    const facets = (await get('/projects?facets=development_status,unit_types')).json().data.facets as Record<string, FacetValue[]>;
    expect(facets.unit_types.find((v) => v.value === 7)?.label).toBe('Duplexes');
    expect(facets.development_status.find((v) => v.value === 1)?.label).toBe('Under construction');
  });

  it('the importer validates the sections: range, duplicates, required name, unknown fields; nothing is written', async () => {
    const attempt = (extra: Bundle) => importBundle(t.db, extra, { facilityLinkRadiusM: 1000 }).then(() => 'imported', (error: Error) => error.message);
    expect(await attempt({ development_statuses: [{ id: 4, name: 'Later' }] })).toMatch(/^development_statuses\[0\]\.id: /);
    expect(await attempt({ project_types: [{ id: 5, name: 'A' }, { id: 5, name: 'B' }] })).toBe('project_types[1].id: duplicate of project_types[0]');
    expect(await attempt({ project_types: [{ id: 6 } as never] })).toMatch(/^project_types\[0\]/);
    expect(await attempt({ development_statuses: [{ id: 2, name: 'X', colour: 'red' } as never] })).toMatch(/^development_statuses\[0\]/);
    expect((await get('/project-types')).json().data.map((row: { id: number }) => row.id)).toEqual([1, 2, 7]);
  });
});
