import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProjectDetail, ProjectListItem } from '../src/contract/schemas/projects.js';
import { UnitModel } from '../src/contract/schemas/units.js';
import { useTestApp, type StartedApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, TS, withRecords, type Bundle } from './helpers/fixtures.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/*
 * Answers with `fields=` are described by the published document: ajv, as a validating proxy or a
 * generated client would, accepts every selected answer of every route that takes `fields`, for random
 * selections and with the other additions (`currency`, `match`, `nearby`); the answer without
 * `fields` still satisfies the whole object, every specified property required.
 */

const AT = { lat: 25.08, lng: 55.14 };
const bundle: Bundle = withRecords(baseBundle(), {
  currency_rates: [{ currency: 'USD', aed_per_unit: 3.6725, as_of: '2026-11-20T12:00:00Z' }],
  projects: [1, 2, 3].map((id) => ({
    id, company_id: DEV, area_id: 1, name: `Project ${id}`, description: 'Selected.', type: 2, status: 3, development_status: 1,
    latitude: AT.lat, longitude: AT.lng + (id - 1) * 0.3, payment_plans: [{ type: 1, percent: 100 }], feature_ids: [1, 3],
    handover_date: '2027-03-31T00:00:00Z', currency: 'AED', created_at: TS, updated_at: TS,
  })),
  units: [1, 2, 3].flatMap((project) =>
    [0, 1, 2].map((i) => ({
      id: project * 10 + i, project_id: project, unit_number: `U-${i}`, bedrooms: i, status: 4, furnishing: 2, price: 1_000_000.15 * (i + 1), unit_area: 50 + i,
    })),
  ),
  facilities: [
    { category: 'education', source_id: 'school-1', data: { name: 'School', asset_latitude: AT.lat + 0.001, asset_longitude: AT.lng } },
    { category: 'transport', source_id: 'tram-1', data: { name: 'Tram', asset_latitude: AT.lat - 0.002, asset_longitude: AT.lng } },
  ],
});

const names = (schema: { properties: object }) => fc.subarray(Object.keys(schema.properties), { minLength: 1 });
const oneOf = <T>(...values: T[]) => fc.constantFrom(...values);

describe.each(drivers)('field-selected answers against the published document (%s)', (driver) => {
  let started: StartedApp;
  let document: Record<string, any>;
  let ajv: Ajv2020;

  useTestApp(driver, bundle, async (s) => {
    started = s;
    document = (await s.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'openapi' });
  }, { documented: true });

  const send = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    started.t.app.inject({ method, url, headers: { 'x-api-key': started.key }, ...(payload !== undefined && { payload: payload as object }) });

  /** The named object of the document, whole: every specified property required. */
  const whole = (name: string) => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
    if (!validate) throw new Error(`no component ${name}`);
    return validate;
  };

  it('GET /projects/{id}: every selection validates, with and without the nearby options and currency', async () => {
    await fc.assert(
      fc.asyncProperty(names(ProjectDetail), oneOf('', '&currency=USD'), oneOf('', '&nearby=summary', '&nearby_limit=1'), oneOf(1, 2), async (fields, currency, nearby, id) => {
        const res = await send('GET', `/projects/${id}?fields=${fields.join(',')}${currency}${nearby}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(Object.keys(res.json().data)).toEqual(Object.keys(ProjectDetail.properties).filter((name) => fields.includes(name)));
        started.assertDocumented('GET', '/projects/{id}', 200, res.json());
      }),
      { numRuns: 25 },
    );
  });

  it('GET /units/{id}: every selection validates, with and without currency', async () => {
    await fc.assert(
      fc.asyncProperty(names(UnitModel), oneOf('', '&currency=USD'), oneOf(10, 21, 32), async (fields, currency, id) => {
        const res = await send('GET', `/units/${id}?fields=${fields.join(',')}${currency}`);
        expect(res.statusCode, res.body).toBe(200);
        started.assertDocumented('GET', '/units/{id}', 200, res.json());
      }),
      { numRuns: 25 },
    );
  });

  it('GET /projects and POST /projects/search: every selection validates, with facets, match and currency', async () => {
    await fc.assert(
      fc.asyncProperty(names(ProjectListItem), oneOf('', '&bedrooms=1,2&match=true', '&match=true'), oneOf('', '&facets=bedrooms,developer'), oneOf('', '&currency=USD'), async (fields, match, facets, currency) => {
        const query = `fields=${fields.join(',')}${match}${facets}${currency}`;
        const res = await send('GET', `/projects?${query}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.items.length).toBeGreaterThan(0);
        started.assertDocumented('GET', '/projects', 200, res.json());
        const body = Object.fromEntries(new URLSearchParams(query));
        const posted = await send('POST', '/projects/search', { ...body, ...(body.match && { match: true }) });
        expect(posted.statusCode, posted.body).toBe(200);
        expect(posted.json()).toEqual(res.json());
        started.assertDocumented('POST', '/projects/search', 200, posted.json());
      }),
      { numRuns: 25 },
    );
  });

  it('without fields, the answers satisfy the whole objects, every specified property required', async () => {
    const project = (await send('GET', '/projects/1')).json().data;
    expect(whole('ProjectDetail')(project), ajv.errorsText(whole('ProjectDetail').errors)).toBe(true);
    const unit = (await send('GET', '/units/21')).json().data;
    expect(whole('UnitDetail')(unit), ajv.errorsText(whole('UnitDetail').errors)).toBe(true);
    for (const item of (await send('GET', '/projects?match=true')).json().data.items) expect(whole('ProjectListItem')(item)).toBe(true);
    // The whole objects keep their required properties: a selected answer is not one of them.
    expect(document.components.schemas.ProjectDetail.required).toEqual(expect.arrayContaining(['id', 'name', 'units', 'nearby_facilities']));
    const selected = (await send('GET', '/projects/1?fields=name,units')).json().data;
    expect(whole('ProjectDetail')(selected)).toBe(false);
    expect(whole('ProjectDetailSelection')(selected)).toBe(true);
  });

  it('every route that takes fields documents both forms', () => {
    const routes: Array<[string, string, string]> = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
        const takesFields =
          (operation.parameters ?? []).some((parameter: { name: string; in: string }) => parameter.in === 'query' && parameter.name === 'fields') ||
          operation.requestBody?.content['application/json'].schema.properties?.fields !== undefined;
        if (!takesFields) continue;
        const data = operation.responses['200'].content['application/json'].schema.properties.data;
        const union = data.anyOf ?? data.properties.items.items.anyOf;
        routes.push([method, path, union.map((branch: { $ref: string }) => branch.$ref.split('/').pop()).join(' | ')]);
      }
    }
    expect(routes.sort()).toEqual([
      ['get', '/projects', 'ProjectListItem | ProjectListItemSelection'],
      ['get', '/projects/{id}', 'ProjectDetail | ProjectDetailSelection'],
      ['get', '/units/{id}', 'UnitDetail | UnitDetailSelection'],
      ['post', '/projects/search', 'ProjectListItem | ProjectListItemSelection'],
    ]);
  });
});
