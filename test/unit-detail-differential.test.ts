import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectableFields, selectEnvelopeData } from '../src/contract/field-selection.js';
import { ok } from '../src/contract/schemas/envelope.js';
import { UnitModel } from '../src/contract/schemas/units.js';
import type { App } from '../src/http/app.js';
import { toUnitModel } from '../src/details/units-presenter.js';
import { importBundle } from '../src/import/import-bundle.js';
import type { KeyRecord } from '../src/queries/api-keys.js';
import { findUnit } from '../src/queries/units.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY2, AGENCY2_OWNER, closeAll, contractsWith, drawer, expectSameAnswer, keyring, LINKS, routeSerializer, scopeOf, RATES, secondApp, STATIC_BASE, storableText, untilSignalled, type Agency } from './helpers/detail-differential.js';
import { AGENCY, baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, withRecords, type Bundle } from './helpers/fixtures.js';
import { priceVectorArb } from './helpers/project-scenarios.js';

/*
 * GET /units/{id} from the search snapshot (src/search/find-unit.ts) against the SQL path it replaced
 * (src/queries/units.ts, kept as the reference): over a catalogue drawn with fast-check (text from every
 * corner of Unicode, sparse unit ids out of project order, timestamps to the microsecond across the
 * storable years, prices with cents, tiny and huge areas, plan files, tags, drafts, deleted records,
 * developers with and without contracts, projects in currencies with and without a rate), random
 * requests (any unit id, two agencies, price vectors other than 0, `currency=`, `fields=`) must get the
 * body the SQL rows give through the route's own response serializer, byte for byte, or the same 404.
 * One app has STATIC_BASE_URL set, the other has it unset and AMENITIEST_RADIUS set. After a second
 * import (tags added at a later instant, prices changed, units deleted, a project drafted) the next
 * request sees the new catalogue, and the comparison runs again.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261126);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 400);

const DEV2 = 14;
const FILE_IDS = Array.from({ length: 12 }, (_, i) => 500 + i);
const TAG_IDS = [30, 31, 32, 33, 34];
const AREA_IDS = [20, 21, 22, 23];
const PROJECT_IDS = [701, 702, 703, 704, 705, 706, 707, 708, 709, 710, 711];
const CURRENCIES = ['AED', 'USD', 'EUR', 'JPY', 'KWD'];

const text = storableText;

/** An RFC 3339 instant within the storable years, to the microsecond. */
const timestamp = fc
  .tuple(fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }), fc.integer({ min: 0, max: 999 }))
  .map(([date, micros]) => date.toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`));

function catalogue(seed: number): Bundle {
  const draw = drawer(seed);
  const pick = <T>(values: readonly T[]) => draw(fc.constantFrom(...values));
  const maybe = <T>(value: () => T) => (draw(fc.boolean()) ? value() : null);
  const times = () => ({ created_at: draw(timestamp), updated_at: draw(timestamp) });
  const base = baseBundle();
  const developer = base.companies.find((company) => company.id === DEV)!;
  Object.assign(developer, {
    company_name: draw(text), legal_name: draw(text), trade_license_code: draw(text), office_address: draw(text),
    organisation_description: draw(text), project_portfolio_url: draw(text), specialisation: draw(fc.integer()), status: draw(fc.integer()),
    logo_file_id: FILE_IDS[0], ...times(),
  });
  const unitIds = draw(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { minLength: 70, maxLength: 70 }));
  return withRecords(base, {
    files: FILE_IDS.map((id) => ({
      id, path: `${draw(text)}/${id}.pdf`, original_name: maybe(() => draw(text)), storage_name: maybe(() => draw(text)), mime_type: maybe(() => draw(text)),
      size: draw(fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.nat())), ...times(),
    })),
    areas: AREA_IDS.map((id) => ({ id, name: draw(text), city: draw(text), ...times() })),
    unit_tags: TAG_IDS.map((id) => ({ id, name: draw(text), ...times() })),
    companies: [
      { id: AGENCY2, company_type: 2, company_name: 'Second Realty', licence_status: 'approved' },
      { id: DEV2, company_type: 3, company_name: draw(text), logo_file_id: FILE_IDS[1], rera_license_code: draw(text) },
    ],
    users: [
      { id: AGENCY2_OWNER, name: 'Second Owner', email: 'owner@second.example' },
      { id: 120, name: draw(text), email: draw(text), status: draw(fc.integer()), type: pick([0, 1, 2, 3]), ...times() },
      { id: 121, name: draw(text), email: draw(text), deleted: true },
    ],
    company_members: [{ company_id: AGENCY2, user_id: AGENCY2_OWNER, role: 'ceo' }],
    contracts: contractsWith(DEV2),
    currency_rates: RATES,
    projects: PROJECT_IDS.map((id, i) => ({
      id,
      // The first agency's developers (DEV, DEV2; the second agency has DEV2 too), the second agency's
      // only, a pending contract, a deleted developer; then a draft and a deleted project of DEV.
      company_id: [DEV, DEV, DEV2, DEV, DEV2, DEV_NO_CONTRACT, DEV_NO_CONTRACT, DEV_PENDING, DEV_DELETED, DEV, DEV][i],
      name: draw(text),
      author_id: pick([120, 121, null]),
      area_id: maybe(() => pick(AREA_IDS)),
      description: draw(text),
      type: draw(fc.integer({ min: 1, max: 4 })),
      status: draw(fc.integer()),
      development_status: draw(fc.integer({ min: 0, max: 3 })),
      readiness_progress: draw(fc.integer({ min: 0, max: 100 })),
      total_floors: draw(fc.integer({ min: 0, max: 200 })),
      developer_registration_id: draw(text),
      escrow_account: draw(text),
      launch_date: maybe(() => draw(timestamp)),
      launch_time: maybe(() => draw(text)),
      resale_conditions: maybe(() => draw(text)),
      floors_formula: maybe(() => draw(text)),
      is_branded: draw(fc.boolean()),
      service_charge: maybe(() => draw(fc.double({ min: 0, max: 1e6, noNaN: true }))),
      currency: pick([...CURRENCIES, 'XYZ']),
      floor_plan_file_id: maybe(() => pick(FILE_IDS)),
      brochure_file_id: maybe(() => pick(FILE_IDS)),
      general_plan_file_id: maybe(() => pick(FILE_IDS)),
      is_draft: i === 9,
      deleted: i === 10,
      ...times(),
    })),
    units: unitIds.map((id) => ({
      id,
      project_id: pick(PROJECT_IDS),
      unit_number: draw(text),
      bedrooms: draw(fc.integer({ min: 0, max: 8 })),
      status: draw(fc.integer({ min: 1, max: 5 })),
      furnishing: draw(fc.integer({ min: 1, max: 4 })),
      parking: draw(fc.integer({ min: -2, max: 10 })),
      floor: draw(fc.integer({ min: -5, max: 300 })),
      price: draw(fc.oneof(fc.constant(null), fc.constantFrom(0, 0.01, 0.5, 1, 999_999.99), fc.integer({ min: 0, max: 1e13 }).map((cents) => cents / 100))),
      unit_area: draw(fc.oneof(fc.double({ min: 0, max: 1e300, noNaN: true }), fc.constantFrom(0, 5e-324, 110.25))),
      plan_file_id: maybe(() => pick(FILE_IDS)),
      tag_ids: draw(fc.subarray(TAG_IDS)),
      deleted: draw(fc.integer({ min: 0, max: 9 })) === 0,
      ...times(),
    })),
  });
}

/** A unit the first agency's keys see: live, of a published project of a contracted developer (not the one `update` drafts). */
function visibleUnit(bundle: Bundle): Record<string, unknown> {
  const open = new Set(bundle.projects.filter((p) => [DEV, DEV2].includes(p.company_id as number) && !p.is_draft && !p.deleted && p.id !== PROJECT_IDS[1]).map((p) => p.id));
  return bundle.units.find((unit, i) => i % 7 !== 0 && !unit.deleted && open.has(unit.project_id))!;
}

/**
 * The second import: later tags for some units (links of another instant, with higher ids), other
 * prices and numbers, a unit deleted, a project drafted; `changed` gets a new price and number.
 */
function update(bundle: Bundle, changed: Record<string, unknown>): Bundle {
  const units = bundle.units.map((unit, i) => {
    if (unit === changed) return { ...unit, price: ((unit.price as number | null) ?? 0) + 1, unit_number: `${String(unit.unit_number)} v2` };
    // Every tag (old links kept, new ones with higher ids and a later instant), or only the others.
    if (i % 5 === 0) return { ...unit, tag_ids: TAG_IDS };
    if (i % 5 === 3) return { ...unit, tag_ids: TAG_IDS.filter((tag) => !(unit.tag_ids as number[]).includes(tag)) };
    if (i % 7 === 1) return { ...unit, price: (i * 123_457) / 100, unit_number: `${String(unit.unit_number)}-${i}` };
    if (i % 7 === 0) return { ...unit, deleted: true };
    return unit;
  });
  const projects = bundle.projects.map((project) => (project.id === PROJECT_IDS[1] ? { ...project, is_draft: true } : project));
  return { ...bundle, units, projects };
}

interface Request {
  unitId: number;
  agency: Agency;
  priceVector: number;
  currency: string | undefined;
  fields: string[] | undefined;
  staticBase: boolean;
}

describe.each(drivers)('GET /units/{id} from memory agrees with the SQL path (%s)', (driver) => {
  let t: TestApp;
  let plain: App;
  let serializer: Awaited<ReturnType<typeof routeSerializer>>;
  let bundle: Bundle;
  const keyFor = keyring(() => t);
  const links = LINKS;

  beforeAll(async () => {
    bundle = catalogue(SEED);
    t = await createTestApp(driver, bundle, { STATIC_BASE_URL: STATIC_BASE });
    // The importer stamps every tag link with the instant of the import: other instants (to the
    // microsecond, created and updated apart) written directly, as another writer of the database could.
    await sql`UPDATE unit_tag_links SET created_at = created_at - id * interval '1 day 1 hour 1.000123 second', updated_at = updated_at + (id % 3) * interval '7 day 0.5 second'`.execute(t.db);
    await t.refresh();
    // The same database and change signal, without STATIC_BASE_URL and with AMENITIEST_RADIUS: a model of its own;
    // and a detail cache budget (~10 kB) too small to hold most pages and bodies: answers must not depend on what is kept.
    plain = await secondApp(t, links.without, { AMENITIEST_RADIUS: '1500', DETAIL_CACHE_MB: '0.01' });
    // The route's response schema, serializing what the SQL path gives: the bytes the route sent before.
    serializer = await routeSerializer(UnitModel);
  });
  afterAll(() => closeAll(serializer, plain, t));

  /** The SQL path's answer: the unit query, the presenter and the route's serializer, `fields` cut as the route cut them. */
  async function sqlAnswer(request: Request, record: KeyRecord): Promise<string | undefined> {
    const scope = scopeOf(record, request.currency);
    const row = await findUnit(t.db, scope, request.unitId);
    if (!row) return undefined;
    const text = await serializer.serialize(ok(toUnitModel(row, request.staticBase ? links.withBase : links.without)));
    return request.fields ? selectEnvelopeData(text, new Set(request.fields)) : text;
  }

  /** Compares one request; true when the unit was visible. */
  async function compare(request: Request): Promise<boolean> {
    const { secret, record } = await keyFor(request.agency, request.priceVector);
    const query = new URLSearchParams();
    if (request.currency !== undefined) query.set('currency', request.currency);
    if (request.fields) query.set('fields', request.fields.join(','));
    const app = request.staticBase ? t.app : plain;
    const res = await app.inject({ method: 'GET', url: `/units/${request.unitId}?${query}`, headers: { 'x-api-key': secret } });
    return expectSameAnswer(res, await sqlAnswer(request, record), 'unit not found');
  }

  const unitIds = () => bundle.units.map((unit) => unit.id as number);
  const requestArb = () =>
    fc.record({
      unitId: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...unitIds()) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 31 - 1 }) }),
      agency: fc.constantFrom<Agency>('first', 'first', 'second'),
      priceVector: fc.oneof(priceVectorArb, fc.constant(0)),
      currency: fc.option(fc.constantFrom(...CURRENCIES), { nil: undefined }),
      fields: fc.option(fc.subarray([...selectableFields(UnitModel)], { minLength: 1 }), { nil: undefined }),
      staticBase: fc.boolean(),
    });

  const everyUnit = async () => {
    const seen = { first: 0, second: 0, neither: 0 };
    for (const unitId of unitIds()) {
      let first = false;
      for (const staticBase of [true, false]) first = await compare({ unitId, agency: 'first', priceVector: 12.5, currency: undefined, fields: undefined, staticBase });
      const second = await compare({ unitId, agency: 'second', priceVector: -7.3, currency: 'KWD', fields: undefined, staticBase: true });
      if (first) seen.first++;
      if (second) seen.second++;
      if (!first && !second) seen.neither++;
    }
    // The catalogue has units of each kind: seen by the first agency, by the second, by neither.
    expect(seen.first).toBeGreaterThan(15);
    expect(seen.second).toBeGreaterThan(8);
    expect(seen.neither).toBeGreaterThan(8);
  };

  it('answers every unit of the catalogue as the SQL path does (both apps, two agencies, a price vector, KWD)', everyUnit);

  it('answers random requests as the SQL path does, byte for byte', async () => {
    await fc.assert(fc.asyncProperty(requestArb(), async (request) => void (await compare(request))), { seed: SEED, numRuns: NUM_RUNS });
  });

  it('serves the next import on the next request (no refresh asked), and still agrees with the SQL path', async () => {
    const changed = visibleUnit(bundle);
    const { secret } = await keyFor('first', 0);
    const get = () => t.app.inject({ method: 'GET', url: `/units/${changed.id}?fields=price,unit_number`, headers: { 'x-api-key': secret } });
    expect((await get()).json().data).toEqual({ unit_number: changed.unit_number, price: changed.price ?? null });
    const signalled = t.changes.catalogueVersion;
    bundle = update(bundle, changed);
    await importBundle(t.db, bundle, { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
    await untilSignalled(t, signalled);
    expect((await get()).json().data).toEqual({ unit_number: `${String(changed.unit_number)} v2`, price: ((changed.price as number | null) ?? 0) + 1 });
    await everyUnit();
    await fc.assert(fc.asyncProperty(requestArb(), async (request) => void (await compare(request))), { seed: SEED + 2, numRuns: NUM_RUNS / 2 });
  });
});
