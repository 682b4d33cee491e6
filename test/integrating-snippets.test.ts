import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogueClient } from '../sdk/src/index.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, generateDemoBundle } from '../src/demo/demo-bundle.js';
import { sql } from 'kysely';
import { apply } from '../docs/snippets/application.js';
import { firstCall } from '../docs/snippets/first-call.js';
import { syncMirror, type Mirror } from '../docs/snippets/mirror.js';
import { projectPage } from '../docs/snippets/project-page.js';
import { mapMarkers, projectsInDrawnArea } from '../docs/snippets/map-search.js';
import { allProjectIds, searchPage } from '../docs/snippets/search-page.js';
import { updateKey } from '../src/queries/api-keys.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import type { Bundle } from './helpers/fixtures.js';

/*
 * docs/integrating.md shows the files of docs/snippets/ verbatim; those files are type-checked by
 * `npm test` (tsconfig includes them) and run here against the real service on the demo catalogue.
 */
describe('docs/integrating.md', () => {
  it('shows every snippet file, each exactly as it is', async () => {
    const guide = await readFile('docs/integrating.md', 'utf8');
    const shown = [...guide.matchAll(/<!-- snippet: (\S+) -->\n\n```ts\n([\s\S]*?)```/g)];
    const files = (await readdir('docs/snippets')).filter((name) => name.endsWith('.ts')).map((name) => `docs/snippets/${name}`);
    expect(shown.map((match) => match[1]).sort()).toEqual(files.sort());
    for (const [, path, code] of shown) {
      if (code !== (await readFile(path, 'utf8'))) expect.fail(`the code block after <!-- snippet: ${path} --> differs from the file: copy the file into the guide`);
    }
    // A marker without its block would escape the check above.
    expect(guide.match(/<!-- snippet:/g)).toHaveLength(files.length);
  });
});

describe.each(drivers)('docs/snippets against the service (%s)', (driver) => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let catalogue: CatalogueClient;
  let privately: CatalogueClient;
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${baseUrl}${path}`, { ...init, headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', ...init.headers } });
    return { status: response.status, body: (await response.json()) as { data: any; message?: string } };
  };

  beforeAll(async () => {
    t = await createTestApp(driver, generateDemoBundle() as Bundle);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    apiKey = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector: 5 });
    catalogue = new CatalogueClient({ baseUrl, apiKey });
    privately = new CatalogueClient({ baseUrl, apiKey: await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector: 5, privateApplications: true }) });
  });
  afterAll(() => t?.close());

  it('first call: the key’s agency and price factor', async () => {
    const me = await firstCall(baseUrl, apiKey);
    expect(me.company.id).toBe(DEMO_AGENCY_ID);
    expect(me.api_key.price_factor).toBe(1.05);
  });

  it('search page: the page and total the API gives for the same filters', async () => {
    const result = await searchPage(catalogue, { bedrooms: [1, 2], priceMax: 3_000_000, nearMetro: true, page: 2 });
    const direct = (await api('/projects?bedrooms=1,2&price_max=3000000&near_transport=true&limit=12&offset=12')).body.data;
    expect(result.total).toBe(direct.total);
    expect(result.total).toBeGreaterThan(12);
    expect(result.pages).toBe(Math.ceil(direct.total / 12));
    expect(result.cards.map((card) => card.id)).toEqual(direct.items.map((project: { id: number }) => project.id));
    expect(result.cards[0]).toEqual({ id: direct.items[0].id, name: direct.items[0].name, developer: direct.items[0].company.name, priceFrom: direct.items[0].price_from, currency: direct.items[0].currency });
  });

  it('map: markers for a viewport agree with the list; a drawn area in the POST form agrees with GET', async () => {
    const view = { west: 54.9, south: 24.8, east: 55.6, north: 25.4 };
    const map = await mapMarkers(catalogue, view, 10, [1, 2]);
    const direct = (await api('/projects?bbox=54.9,24.8,55.6,25.4&bedrooms=1,2&limit=1')).body.data;
    expect(map.total).toBe(direct.total);
    expect(map.total).toBeGreaterThan(0);
    expect(map.markers.length).toBeGreaterThan(1);
    type Cluster = { count: number; price_from: number | null; project: { name: string } | null; match: { price_from: number | null } };
    const clusters: Cluster[] = (await api('/projects/clusters?bbox=54.9,24.8,55.6,25.4&bedrooms=1,2&zoom=12&match=true')).body.data.clusters;
    expect(map.markers.map((marker) => marker.label)).toEqual(clusters.map((c) => c.project?.name ?? String(c.count)));
    // The price of a marker is that of its 1- and 2-bed units, not of the cheapest unit of any size.
    expect(map.markers.map((marker) => marker.priceFrom)).toEqual(clusters.map((c) => c.match.price_from));
    expect(clusters.some((c) => c.match.price_from !== c.price_from)).toBe(true);
    const ring = [[55.1, 25.0], [55.35, 25.0], [55.35, 25.25], [55.1, 25.25], [55.1, 25.0]];
    const drawn = await projectsInDrawnArea(catalogue, { type: 'Polygon', coordinates: [ring] });
    const get = (await api(`/projects?polygon=${ring.flat().join(',')}&sort=price_from&limit=20`)).body.data;
    expect(drawn.total).toBe(get.total);
    expect(drawn.total).toBeGreaterThan(0);
    expect(drawn.names).toEqual(get.items.map((project: { name: string }) => project.name));
  });

  it('all projects: every id, in the API’s order', async () => {
    const direct = (await api('/projects?limit=100')).body.data;
    await expect(allProjectIds(catalogue, { limit: 10 })).resolves.toEqual(direct.items.map((project: { id: number }) => project.id));
  });

  it('project page: units, plan and nearby facilities of the detail', async () => {
    const id = (await api('/projects?limit=1')).body.data.items[0].id;
    const detail = (await api(`/projects/${id}`)).body.data;
    const page = await projectPage(catalogue, id);
    expect(page.title).toBe(detail.name);
    expect(page.units.map((unit) => unit.id)).toEqual(detail.units.map((unit: { id: number }) => unit.id));
    expect(page.paymentPlan).toHaveLength(detail.payment_plans.length);
    expect(Object.keys(page.nearby).sort()).toEqual(Object.keys(detail.nearby_facilities).sort());
  });

  it('application: an offer, the same one again for the same key, and the service’s 400 message', async () => {
    const id = (await api('/projects?price_min=1&limit=1')).body.data.items[0].id;
    const unit = (await api(`/projects/${id}`)).body.data.units.find((candidate: { price: number | null }) => candidate.price !== null);
    const key = `guide-${driver}-${Date.now()}`;
    const first = await apply(privately, unit.id, { firstName: 'Noura', email: `noura.${key}@example.com` }, key);
    expect(first).toMatchObject({ ok: true, name: 'Noura', unit: unit.unit_number, price: unit.price });
    const again = await apply(privately, unit.id, { firstName: 'Noura', email: `noura.${key}@example.com` }, key);
    expect(again).toEqual(first);
    const client = await t.db.selectFrom('clients').select('id').where('email', '=', `noura.${key}@example.com`).executeTakeFirstOrThrow();
    const filed = await t.db.selectFrom('opportunities').select('unit_id').where('client_id', '=', client.id).execute();
    expect(filed).toEqual([{ unit_id: unit.id }]);
    // The same handler works with a key in full (the fields it reads are in both answers).
    expect(await apply(catalogue, unit.id, { firstName: 'Noura', email: `noura.${key}@example.com` })).toEqual(first);

    const refused = await apply(catalogue, unit.id, { firstName: 'Noura', mobile: 'none' });
    const direct = await api(`/units/${unit.id}/applications`, { method: 'POST', body: JSON.stringify({ client: { first_name: 'Noura', mobile_number: 'none' }, preferences: { based_on_unit: true } }) });
    expect(direct.status).toBe(400);
    expect(refused).toEqual({ ok: false, message: direct.body.message });
  });

  it('mirror: the whole catalogue, then what changed, then everything again after new prices', async () => {
    const mirror: Mirror = { projects: new Map(), units: new Map() };
    await syncMirror(catalogue, mirror);
    const ids = await allProjectIds(catalogue, { limit: 100 });
    const byId = (a: number, b: number) => a - b;
    expect([...mirror.projects.keys()].sort(byId)).toEqual([...ids].sort(byId));
    const unitId = mirror.projects.get(ids[0])!.units[0].id;
    expect(mirror.units.get(unitId)).toEqual((await api(`/units/${unitId}`)).body.data);

    await sql`UPDATE units SET price = price + 100 WHERE id = ${unitId}`.execute(t.db);
    await syncMirror(catalogue, mirror);
    expect(mirror.units.get(unitId)).toEqual((await api(`/units/${unitId}`)).body.data);
    expect(mirror.projects.get(ids[0])).toEqual((await api(`/projects/${ids[0]}`)).body.data);

    const [key] = await t.db.selectFrom('api_keys').select('id').where('price_vector', '=', 5).orderBy('id', 'desc').limit(1).execute();
    await updateKey(t.db, key.id, { priceVector: 6 });
    try {
      await syncMirror(catalogue, mirror);
      expect(mirror.units.get(unitId)).toEqual((await api(`/units/${unitId}`)).body.data);
      expect(mirror.units.size).toBe(new Set([...mirror.projects.values()].flatMap((project) => project.units.map((unit) => unit.id))).size);
    } finally {
      await updateKey(t.db, key.id, { priceVector: 5 });
    }
  });
});
