import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, generateDemoBundle } from '../src/demo/demo-bundle.js';
import { CatalogueApiError, CatalogueClient, isFullApplicationResult } from '../sdk/src/index.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import type { Bundle } from './helpers/fixtures.js';

/* The SDK against the real service listening on a port, on the demo catalogue (48 projects). */
describe.each(drivers)('SDK against the service (%s)', (driver) => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let requests: string[] = [];
  let sdk: CatalogueClient;

  beforeAll(async () => {
    t = await createTestApp(driver, generateDemoBundle() as Bundle);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    apiKey = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID });
    const counting: typeof fetch = (input, init) => {
      requests.push(input instanceof Request ? `${input.method} ${new URL(input.url).pathname}${new URL(input.url).search}` : String(input));
      return fetch(input, init);
    };
    sdk = new CatalogueClient({ baseUrl, apiKey, fetch: counting });
  });
  afterAll(() => t?.close());

  const count = async <T>(work: () => Promise<T>): Promise<{ result: T; requests: string[] }> => {
    requests = [];
    const result = await work();
    return { result, requests };
  };
  const collect = async <T>(iterator: AsyncIterable<T>): Promise<T[]> => {
    const items: T[] = [];
    for await (const item of iterator) items.push(item);
    return items;
  };

  it('iterates every page of GET /projects and stops when offset + items reaches total, with no extra request', async () => {
    const everything = await sdk.listProjects({ limit: 100 });
    expect(everything.total).toBeGreaterThan(20);
    expect(everything.items).toHaveLength(everything.total);
    const { result, requests } = await count(() => collect(sdk.projects({ limit: 7 })));
    expect(result.map((project) => project.id)).toEqual(everything.items.map((project) => project.id));
    expect(requests).toHaveLength(Math.ceil(everything.total / 7));
    expect(requests.at(-1)).toContain(`offset=${7 * (requests.length - 1)}`);
  });

  it('keeps the filters on every page, and an exact multiple of the page size ends without an empty page', async () => {
    const filtered = await sdk.listProjects({ bedrooms: '2', price_max: 3_000_000, limit: 100 });
    expect(filtered.total).toBeGreaterThan(2);
    const pageSize = filtered.total % 2 === 0 ? 2 : 1;
    const { result, requests } = await count(() => collect(sdk.projectPages({ bedrooms: '2', price_max: 3_000_000, limit: pageSize })));
    expect(result.flatMap((page) => page.items.map((project) => project.id))).toEqual(filtered.items.map((project) => project.id));
    expect(requests).toHaveLength(filtered.total / pageSize);
    for (const request of requests) expect(request).toMatch(/bedrooms=2&price_max=3000000&limit=\d/);
  });

  it('an empty result is one request and no item', async () => {
    const { result, requests } = await count(() => collect(sdk.projects({ search: 'no project is called this' })));
    expect(result).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it('iterates every page of GET /changes, resumes from the last next_cursor, and a 410 says start over', async () => {
    const everything = await sdk.listProjects({ limit: 100 });
    const { result, requests } = await count(() => collect(sdk.changes({ limit: 40 })));
    const entries = result.flatMap((page) => page.items);
    const byId = (a: number, b: number) => a - b;
    expect(entries.filter((entry) => entry.type === 'project').map((entry) => entry.id).sort(byId)).toEqual(everything.items.map((project) => project.id).sort(byId));
    expect(entries.every((entry) => entry.change === 'upsert')).toBe(true);
    expect(result.length).toBeGreaterThan(2);
    expect(requests).toHaveLength(result.length);
    expect(requests[0]).not.toContain('cursor=');
    requests.slice(1).forEach((request, i) => expect(request).toContain(`cursor=${encodeURIComponent(result[i].next_cursor)}`));
    expect(result.map((page) => page.has_more)).toEqual([...result.slice(1).map(() => true), false]);

    // Resumed later with nothing changed meanwhile: one request, no entry, the same position.
    const last = result.at(-1)!;
    const later = await collect(sdk.changes({ cursor: last.next_cursor }));
    expect(later).toEqual([{ items: [], next_cursor: last.next_cursor, has_more: false, catalogue_version: last.catalogue_version }]);

    const otherKey = new CatalogueClient({ baseUrl, apiKey: await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID }) });
    await expect(collect(otherKey.changes({ cursor: last.next_cursor }))).rejects.toMatchObject({
      status: 410,
      message: 'cursor expired: start over without a cursor',
    });
  });

  it('throws CatalogueApiError with the service message, status and request id', async () => {
    const invalid = await sdk.listProjects({ price_min: -1 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(CatalogueApiError);
    const direct = await fetch(`${baseUrl}/projects?price_min=-1`, { headers: { 'X-API-Key': apiKey } });
    expect(invalid).toMatchObject({ status: 400, message: ((await direct.json()) as { message: string }).message });
    expect((invalid as CatalogueApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(sdk.getProject(999_999)).rejects.toMatchObject({ status: 404, message: 'project not found' });
    const stranger = new CatalogueClient({ baseUrl, apiKey: `ck_${'0'.repeat(64)}` });
    await expect(stranger.whoAmI()).rejects.toMatchObject({ status: 401, message: 'invalid api key' });
  });

  it('answers every read operation', async () => {
    const me = await sdk.whoAmI();
    expect(me).toBeTypeOf('object');
    const developers = await sdk.listDevelopers();
    expect(developers.length).toBeGreaterThan(0);
    const areas = await sdk.listAreas({ city: 'Dubai' });
    expect(areas.every((area) => area.city === 'Dubai')).toBe(true);
    expect((await sdk.listUnitTags()).length).toBeGreaterThan(0);
    const features = await sdk.listProjectFeatures({ type: 2 });
    expect(features.features).toEqual([]);
    expect(features.amenities.length).toBeGreaterThan(0);
    const flat = await sdk.listAllProjects();
    const project = await sdk.getProject(flat[0].id);
    expect(project.name).toBe(flat[0].name);
    expect((await sdk.getProjectContacts(project.id)).company.id).toBe(project.company.id);
    expect((await sdk.getUnit(project.units[0].id)).id).toBe(project.units[0].id);
  });

  it('submits an application; the same Idempotency-Key returns the same offer and writes nothing more', async () => {
    const { items } = await sdk.listProjects({ price_min: 1, limit: 1 });
    const unit = (await sdk.getProject(items[0].id)).units.find((candidate) => candidate.price !== null)!;
    const idempotencyKey = randomUUID();
    const body = { client: { first_name: 'Layla', last_name: 'Haddad', email: `layla.${idempotencyKey}@example.com` }, message: 'Call after 6 pm' };
    const created = await sdk.submitApplication(unit.id, body, { idempotencyKey });
    if (!isFullApplicationResult(created)) throw new Error('a key without private applications answers in full');
    expect(created.offer).toMatchObject({ unit: { id: unit.id, project_id: items[0].id }, price: unit.price, is_sent: false });
    const again = await sdk.submitApplication(unit.id, body, { idempotencyKey });
    expect(again).toEqual(created);
    const offers = await t.db.selectFrom('offers').select('id').where('unit_id', '=', unit.id).execute();
    expect(offers.map((offer) => offer.id)).toEqual([created.offer.id]);
    await expect(sdk.submitApplication(unit.id, { ...body, message: 'changed' }, { idempotencyKey })).rejects.toMatchObject({ status: 409 });
  });
});
