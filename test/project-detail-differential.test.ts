import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACILITY_CATEGORIES } from '../src/domain/catalogue-codes.js';
import { selectableFields, selectEnvelopeData } from '../src/contract/field-selection.js';
import { spliceRawProperty } from '../src/contract/json-splice.js';
import { EMPTY_NEARBY_FACILITIES, NEARBY_FORMS, nearbyFacilitiesJsonParts, type NearbyForm } from '../src/contract/nearby-facilities.js';
import { ok } from '../src/contract/schemas/envelope.js';
import { ProjectDetail } from '../src/contract/schemas/projects.js';
import type { App } from '../src/http/app.js';
import { toProjectDetail } from '../src/details/project-detail-presenter.js';
import { importBundle } from '../src/import/import-bundle.js';
import type { KeyRecord } from '../src/queries/api-keys.js';
import { findProjectDetail } from '../src/queries/project-detail.js';
import { float8Text } from '../src/search/project-nearby.js';
import { nearbyBlockRequests } from '../src/metrics/instruments.js';
import { detailCacheBounds } from '../src/details/detail-cache-budget.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY2, AGENCY2_OWNER, closeAll, contractsWith, drawer, expectSameAnswer, keyring, LINKS, routeSerializer, scopeOf, RATES, secondApp, STATIC_BASE, storableText, untilSignalled, type Agency } from './helpers/detail-differential.js';
import { AGENCY, baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, withRecords, type Bundle } from './helpers/fixtures.js';
import { priceVectorArb } from './helpers/project-scenarios.js';

/*
 * GET /projects/{id} from the search snapshot (the nearby block written from its compact form,
 * src/search/project-nearby.ts; the rest kept per snapshot, src/details/project-detail-body.ts) against the
 * SQL path (src/queries/project-detail.ts, the reference: the project query and the nearby query, the
 * presenter, the route's response serializer and the splice, as the route answered before): over a
 * catalogue drawn with fast-check (text from every corner of Unicode in the project and in the
 * facilities' own records, facilities of every category around the projects, distances written
 * directly with ties, zero, sub-1e-4 and huge values, images, payment plans, features, units with
 * prices, drafts, deleted records, developers with and without contracts, currencies with and without
 * a rate), random requests (any project id, two agencies, price vectors other than 0, `currency=`,
 * `fields=`, `nearby_limit`, `nearby=summary`) must get the SQL path's body byte for byte, or the same
 * 404. One app has STATIC_BASE_URL set and no radius, the other has it unset and AMENITIEST_RADIUS set.
 * After a second import (a facility renamed, prices changed, a project drafted) the next request sees
 * the new catalogue, and the comparison runs again.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261126);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 300);
const RADIUS_M = 1500;

const DEV2 = 14;
const FILE_IDS = Array.from({ length: 10 }, (_, i) => 500 + i);
const AREA_IDS = [20, 21, 22];
const FEATURE_IDS = [1, 2, 3, 4];
const PROJECT_IDS = [701, 702, 703, 704, 705, 706, 707, 708, 709, 710, 711];
const CURRENCIES = ['AED', 'USD', 'EUR', 'KWD'];
const CENTRE = { lat: 25.08, lng: 55.14 };

const text = storableText;

function catalogue(seed: number): Bundle {
  const draw = drawer(seed);
  const pick = <T>(values: readonly T[]) => draw(fc.constantFrom(...values));
  const maybe = <T>(value: () => T) => (draw(fc.boolean()) ? value() : null);
  // Within ~3 km of the centre: some closer than the radius, some not.
  const near = () => ({ lat: CENTRE.lat + draw(fc.double({ min: -0.02, max: 0.02, noNaN: true })), lng: CENTRE.lng + draw(fc.double({ min: -0.02, max: 0.02, noNaN: true })) });
  const base = baseBundle();
  const facilityData = (category: string) => {
    const at = near();
    const coordinates = category === 'airports_ports' ? { latitude: at.lat, longitude: at.lng } : { asset_latitude: at.lat, asset_longitude: at.lng };
    const extra = Object.fromEntries(draw(fc.array(fc.tuple(text, fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean())), { maxLength: 6 })));
    return { ...extra, name: draw(text), ...(draw(fc.boolean()) && { category: draw(text) }), ...coordinates };
  };
  return withRecords(base, {
    files: FILE_IDS.map((id) => ({ id, path: `${draw(text)}/${id}.jpg`, original_name: maybe(() => draw(text)), mime_type: 'image/jpeg', size: draw(fc.nat()) })),
    areas: AREA_IDS.map((id) => ({ id, name: draw(text), city: draw(text) })),
    companies: [
      { id: AGENCY2, company_type: 2, company_name: 'Second Realty', licence_status: 'approved' },
      { id: DEV2, company_type: 3, company_name: draw(text), logo_file_id: FILE_IDS[1] },
    ],
    users: [{ id: AGENCY2_OWNER, name: 'Second Owner', email: 'owner@second.example' }],
    company_members: [{ company_id: AGENCY2, user_id: AGENCY2_OWNER, role: 'ceo' }],
    contracts: contractsWith(DEV2),
    currency_rates: RATES,
    facilities: Array.from({ length: 60 }, (_, i) => {
      const category = pick(FACILITY_CATEGORIES);
      return { category, source_id: draw(fc.boolean()) ? `${draw(text)}-${i}` : 1000 + i, data: facilityData(category) };
    }),
    projects: PROJECT_IDS.map((id, i) => {
      const at = near();
      return {
        id,
        company_id: [DEV, DEV, DEV2, DEV, DEV2, DEV_NO_CONTRACT, DEV_NO_CONTRACT, DEV_PENDING, DEV_DELETED, DEV, DEV][i],
        name: draw(text),
        area_id: maybe(() => pick(AREA_IDS)),
        description: draw(text),
        type: draw(fc.integer({ min: 1, max: 4 })),
        development_status: draw(fc.integer({ min: 0, max: 3 })),
        escrow_account: draw(text),
        launch_time: maybe(() => draw(text)),
        is_branded: draw(fc.boolean()),
        service_charge: maybe(() => draw(fc.double({ min: 0, max: 1e6, noNaN: true }))),
        currency: pick([...CURRENCIES, 'XYZ']),
        latitude: at.lat,
        longitude: at.lng,
        address: draw(text),
        floor_plan_file_id: maybe(() => pick(FILE_IDS)),
        brochure_file_id: maybe(() => pick(FILE_IDS)),
        payment_plans: draw(fc.array(fc.record({ type: fc.integer({ min: 1, max: 3 }), percent: fc.integer({ min: 0, max: 100 }) }), { maxLength: 3 })),
        image_file_ids: draw(fc.array(fc.constantFrom(...FILE_IDS), { maxLength: 4 })),
        tours: draw(fc.array(text, { maxLength: 2 })),
        feature_ids: draw(fc.subarray(FEATURE_IDS)),
        is_draft: i === 9,
        deleted: i === 10,
      };
    }),
    units: Array.from({ length: 40 }, (_, i) => ({
      id: 9000 + i * 7,
      project_id: pick(PROJECT_IDS),
      unit_number: draw(text),
      bedrooms: draw(fc.integer({ min: 0, max: 6 })),
      status: draw(fc.integer({ min: 1, max: 5 })),
      price: draw(fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1e12 }).map((cents) => cents / 100))),
      unit_area: draw(fc.double({ min: 0, max: 1e6, noNaN: true })),
      deleted: i % 9 === 0,
    })),
  });
}

interface Request {
  projectId: number;
  agency: 'first' | 'second';
  priceVector: number;
  currency: string | undefined;
  fields: string[] | undefined;
  limit: number | undefined;
  form: NearbyForm | undefined;
  staticBase: boolean;
}

describe('float8Text', () => {
  it('writes a double as PostgreSQL writes a float8', () => {
    expect([0, -0, 1, 0.1, 123.456, 1e-4, 5e-5, 1.25e-7, 1e15, 1.5e15, 123456789012345.6, 1e21, 1e-300].map(float8Text)).toEqual([
      '0', '-0', '1', '0.1', '123.456', '0.0001', '5e-05', '1.25e-07', '1e+15', '1.5e+15', '123456789012345.6', '1e+21', '1e-300',
    ]);
  });
});

// NEARBY_IN_MEMORY on: the block written from the snapshot; off (the default): from the links and facility
// texts kept as they are asked (src/details/nearby-on-demand.ts), read at the snapshot's version.
// 'on demand, small budget': DETAIL_CACHE_MB so small (~31 kB in all) that most links, facility texts,
// envelopes and bodies are refused or pushed out between requests: answers must not depend on what is kept.
const SMALL_BUDGET_MB = 0.03;
const modes = drivers.flatMap((driver) => [[driver, 'in memory'] as const, [driver, 'on demand'] as const, [driver, 'on demand, small budget'] as const]);
const ENV = { 'in memory': { NEARBY_IN_MEMORY: 'true' }, 'on demand': {}, 'on demand, small budget': { DETAIL_CACHE_MB: String(SMALL_BUDGET_MB) } } as const;

describe.each(modes)('GET /projects/{id} from the snapshot agrees with the SQL path (%s, nearby block %s)', (driver, mode) => {
  const nearbyEnv: Record<string, string> = ENV[mode];
  const runs = mode === 'on demand, small budget' ? Math.ceil(NUM_RUNS / 3) : NUM_RUNS;
  let t: TestApp;
  let plain: App;
  let serializer: Awaited<ReturnType<typeof routeSerializer>>;
  const keyFor = keyring(() => t);
  const links = LINKS;
  let bundle: Bundle;

  /** Distances a float8 writes in other notations, and ties: written directly, as another writer of the database could. */
  const oddDistances = async () => {
    await sql`UPDATE project_facilities SET distance_m = (ARRAY[0, 5e-05, 1.25e-07, 1e15, 1.5e15, 100, 100, 0.1])[1 + facility_id % 8]
      WHERE facility_id % 3 = 0`.execute(t.db);
    await t.refresh();
  };

  beforeAll(async () => {
    bundle = catalogue(SEED);
    t = await createTestApp(driver, bundle, { STATIC_BASE_URL: STATIC_BASE, ...nearbyEnv });
    expect(t.search.current().nearby === undefined).toBe(mode !== 'in memory');
    await oddDistances();
    plain = await secondApp(t, links.without, { AMENITIEST_RADIUS: String(RADIUS_M), ...nearbyEnv });
    serializer = await routeSerializer(ProjectDetail);
  });
  afterAll(() => closeAll(serializer, plain, t));

  /** The SQL path's answer, as the route made it before: the two queries, the presenter, the serializer, the selection, the splice. */
  async function sqlAnswer(request: Request, record: KeyRecord): Promise<string | undefined> {
    const scope = scopeOf(record, request.currency);
    const withNearby = !request.fields || request.fields.includes('nearby_facilities');
    const radius = request.staticBase ? undefined : RADIUS_M;
    const row = await findProjectDetail(t.db, scope, request.projectId, withNearby ? { amenitiesRadiusM: radius, limit: request.limit, form: request.form } : undefined);
    if (!row) return undefined;
    const serialized = await serializer.serialize(ok(toProjectDetail(row, request.staticBase ? links.withBase : links.without)));
    const selected = request.fields ? selectEnvelopeData(serialized, new Set(request.fields)) : serialized;
    if (!withNearby) return selected;
    return spliceRawProperty(selected, 'nearby_facilities', EMPTY_NEARBY_FACILITIES, nearbyFacilitiesJsonParts(row.nearby)).join('');
  }

  async function compare(request: Request): Promise<boolean> {
    const { secret, record } = await keyFor(request.agency, request.priceVector);
    const query = new URLSearchParams();
    if (request.currency !== undefined) query.set('currency', request.currency);
    if (request.fields) query.set('fields', request.fields.join(','));
    if (request.limit !== undefined) query.set('nearby_limit', String(request.limit));
    if (request.form !== undefined) query.set('nearby', request.form);
    const app = request.staticBase ? t.app : plain;
    const res = await app.inject({ method: 'GET', url: `/projects/${request.projectId}?${query}`, headers: { 'x-api-key': secret } });
    return expectSameAnswer(res, await sqlAnswer(request, record), 'project not found');
  }

  const requestArb = () =>
    fc.record({
      projectId: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PROJECT_IDS) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 31 - 1 }) }),
      agency: fc.constantFrom<Agency>('first', 'first', 'second'),
      priceVector: fc.oneof(priceVectorArb, fc.constant(0)),
      currency: fc.option(fc.constantFrom(...CURRENCIES), { nil: undefined }),
      fields: fc.option(fc.subarray([...selectableFields(ProjectDetail)], { minLength: 1 }), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      form: fc.option(fc.constantFrom(...NEARBY_FORMS), { nil: undefined }),
      staticBase: fc.boolean(),
    });

  const everyProject = async () => {
    const seen = { first: 0, second: 0, neither: 0 };
    for (const projectId of PROJECT_IDS) {
      let first = false;
      for (const staticBase of [true, false]) first = await compare({ projectId, agency: 'first', priceVector: 12.5, currency: undefined, fields: undefined, limit: undefined, form: undefined, staticBase });
      const second = await compare({ projectId, agency: 'second', priceVector: -7.3, currency: 'KWD', fields: undefined, limit: 2, form: 'summary', staticBase: true });
      if (first) seen.first++;
      if (second) seen.second++;
      if (!first && !second) seen.neither++;
    }
    expect(seen).toEqual({ first: 5, second: 4, neither: 4 });
  };

  it('has nearby blocks worth comparing (every category, odd distances, some beyond the radius)', async () => {
    const rows = await sql<{ category: string; beyond: boolean; odd: boolean }>`SELECT DISTINCT category, distance_m >= ${RADIUS_M} AS beyond, distance_m < 1e-4 OR distance_m >= 1e15 AS odd FROM project_facilities`.execute(t.db);
    expect(new Set(rows.rows.map((row) => row.category)).size).toBe(FACILITY_CATEGORIES.length);
    expect(rows.rows.some((row) => row.beyond)).toBe(true);
    expect(rows.rows.some((row) => row.odd)).toBe(true);
  });

  it('answers every project as the SQL path does (both apps, two agencies, a price vector, KWD, a limited summary)', everyProject);

  it('answers random requests as the SQL path does, byte for byte', async () => {
    await fc.assert(fc.asyncProperty(requestArb(), async (request) => void (await compare(request))), { seed: SEED, numRuns: runs });
  });

  it('sends the same body again from what it kept (identity and Brotli), with the same ETag', async () => {
    const { secret } = await keyFor('first', 12.5);
    const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: `/projects/${PROJECT_IDS[0]}`, headers: { 'x-api-key': secret, ...headers } });
    const variants: Record<string, string>[] = [{}, { 'accept-encoding': 'br' }];
    for (const headers of variants) {
      const [a, b] = [await get(headers), await get(headers)];
      expect(b.rawPayload.equals(a.rawPayload)).toBe(true);
      expect(b.headers.etag).toBe(a.headers.etag);
    }
  });

  it.runIf(mode === 'on demand')('keeps the links and facility texts it read: asked again with other options, nothing is read', async () => {
    const { secret } = await keyFor('first', 3.25);
    const count = async (result: string) => (await nearbyBlockRequests.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
    const ask = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/projects/${PROJECT_IDS[0]}?${query}`, headers: { 'x-api-key': secret } });
      expect(res.statusCode).toBe(200);
    };
    // A snapshot of its own, so that nothing asked by the tests before is kept.
    await oddDistances();
    const [hits, misses] = [await count('hit'), await count('miss')];
    await ask('nearby=summary&nearby_limit=2');
    expect([await count('hit') - hits, await count('miss') - misses]).toEqual([0, 1]);
    // Fewer of the same facilities, and a field selection (a body not kept): links and texts from memory.
    await ask('nearby=summary&nearby_limit=1&fields=name,nearby_facilities');
    expect([await count('hit') - hits, await count('miss') - misses]).toEqual([1, 1]);
    // The full form's texts were not read yet.
    await ask('nearby_limit=1');
    expect([await count('hit') - hits, await count('miss') - misses]).toEqual([1, 2]);
    await ask('nearby_limit=1&fields=nearby_facilities');
    expect([await count('hit') - hits, await count('miss') - misses]).toEqual([2, 2]);
  });

  it.runIf(mode === 'on demand, small budget')('keeps no more than its share of DETAIL_CACHE_MB, and reads again what it could not keep', async () => {
    const { secret } = await keyFor('first', 3.25);
    const count = async (result: string) => (await nearbyBlockRequests.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
    const bounds = detailCacheBounds(SMALL_BUDGET_MB);
    const visible = PROJECT_IDS.slice(0, 5);
    const askAll = async () => {
      for (const projectId of visible) {
        const res = await t.app.inject({ method: 'GET', url: `/projects/${projectId}`, headers: { 'x-api-key': secret } });
        expect(res.statusCode).toBe(200);
      }
    };
    await askAll();
    const misses = await count('miss');
    await askAll();
    // Asked again, the default budget answers every block from memory (the test above); this one cannot hold them.
    expect(await count('miss')).toBeGreaterThan(misses);
    const kept = t.details.projects.nearby.keptBytes(t.search.current());
    expect(kept.full).toBeGreaterThan(0);
    expect(kept.full).toBeLessThanOrEqual(bounds.nearbyFull);
    expect(kept.links).toBeLessThanOrEqual(bounds.nearbyLinks);
    // The projects' references to their texts (a block written again reads them without the cache's
    // lookups) hold nothing the texts' cache let go: its bound stays the memory bound.
    expect(kept.strayReferences).toBe(0);
    // Asked all at once (requests gathering texts while others push texts out), the same holds when they are done.
    const together = await Promise.all([...visible, ...visible].map((projectId) => t.app.inject({ method: 'GET', url: `/projects/${projectId}?nearby_limit=${(projectId % 3) + 1}`, headers: { 'x-api-key': secret } })));
    expect(together.map((res) => res.statusCode)).toEqual(together.map(() => 200));
    expect(t.details.projects.nearby.keptBytes(t.search.current()).strayReferences).toBe(0);
    // As counted and as walked: lru-cache miscounts (below zero) an entry let in above the cache's size.
    const identity = t.details.bodies.identityBodies(t.search.current());
    expect(identity.bodyBytes).toBeLessThanOrEqual(identity.bytes);
    expect(identity.bytes).toBeLessThanOrEqual(bounds.identityProjects + bounds.identityUnits);
  });

  it('serves the next import on the next request (no refresh asked), and still agrees with the SQL path', async () => {
    const { secret } = await keyFor('first', 0);
    const get = () => t.app.inject({ method: 'GET', url: `/projects/${PROJECT_IDS[0]}?nearby=summary`, headers: { 'x-api-key': secret } });
    const before = (await get()).json().data.nearby_facilities;
    const signalled = t.changes.catalogueVersion;
    bundle = {
      ...bundle,
      facilities: bundle.facilities.map((facility) => ({ ...facility, data: { ...(facility.data as object), name: `${String((facility.data as { name: string }).name)} v2` } })),
      units: bundle.units.map((unit, i) => (i % 3 === 0 ? { ...unit, price: i * 1000 } : unit)),
      projects: bundle.projects.map((project) => (project.id === PROJECT_IDS[1] ? { ...project, is_draft: true } : project)),
    };
    await importBundle(t.db, bundle, { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
    await untilSignalled(t, signalled);
    const after = (await get()).json().data.nearby_facilities;
    const names = (block: Record<string, { facility: { name: string } }[]>) => Object.values(block).flat().map((entry) => entry.facility.name);
    // The import linked the facilities again (distances as computed, in their order): the same facilities, renamed.
    expect(names(after).sort()).toEqual(names(before).map((name) => `${name} v2`).sort());
    await oddDistances();
    // Written directly, without a change signal: the second app's model is made again.
    await plain.close();
    plain = await secondApp(t, links.without, { AMENITIEST_RADIUS: String(RADIUS_M), ...nearbyEnv });
    await fc.assert(fc.asyncProperty(requestArb(), async (request) => void (await compare(request))), { seed: SEED + 2, numRuns: Math.ceil(runs / 2) });
  });
});
