import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../src/import/import-bundle.js';
import { listKeys, updateKey } from '../src/queries/api-keys.js';
import { createTestApp, useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, BROKER, DEV, DEV_NO_CONTRACT, DEV_PENDING, OWNER, withRecords, type Bundle } from './helpers/fixtures.js';
import { crmCounts } from './helpers/crm-counts.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Catalogue used here (on top of baseBundle):
 *   project 100 "Marina Heights" (DEV, AED, type 3, area 1, features 1 Smart Home + 3 Swimming Pool)
 *     unit 1000 A-101 price 1,000,000 tags 1 Sea View + 2 Corner Unit; unit 1001 unpriced; unit 1002 deleted
 *   project 101 USD, 102 EUR, 103 draft, 104 deleted, 105 no contract, 106 pending contract, 107 long name
 *   agency 3 (licensed) with client 500 shared@example.com; agency 1 client 501 (email + mobile)
 */
const OTHER_AGENCY = 3;
const OTHER_OWNER = 103;
const UNIT = 1000;
const UNPRICED_UNIT = 1001;
const LONG_NAME = `The ${'Very '.repeat(60)}Long Tower`;

function catalogue(): Bundle {
  const project = (id: number, extra: Record<string, unknown> = {}) => ({ id, company_id: DEV, name: `Project ${id}`, area_id: 2, type: 1, ...extra });
  const unit = (id: number, projectId: number, extra: Record<string, unknown> = {}) => ({ id, project_id: projectId, unit_number: `U-${id}`, price: 500_000, ...extra });
  return withRecords(baseBundle(), {
    companies: [{ id: OTHER_AGENCY, company_type: 2, company_name: 'Other Realty', licence_status: 'approved' }],
    users: [{ id: OTHER_OWNER, name: 'Other Owner', email: 'owner@other.ae' }],
    company_members: [{ company_id: OTHER_AGENCY, user_id: OTHER_OWNER, role: 'ceo' }],
    contracts: [{ agency_id: OTHER_AGENCY, developer_id: DEV, status: 'approved' }],
    board_stages: [{ id: 3, company_id: OTHER_AGENCY, name: 'Inbox', position: 5 }],
    projects: [
      project(100, { name: 'Marina Heights', area_id: 1, type: 3, currency: 'AED', feature_ids: [1, 3] }),
      project(101, { currency: 'USD' }),
      project(102, { currency: 'EUR' }),
      project(103, { is_draft: true }),
      project(104, { deleted: true }),
      project(105, { company_id: DEV_NO_CONTRACT }),
      project(106, { company_id: DEV_PENDING }),
      project(107, { name: LONG_NAME }),
    ],
    units: [
      unit(UNIT, 100, { unit_number: 'A-101', price: 1_000_000, tag_ids: [1, 2] }),
      { id: UNPRICED_UNIT, project_id: 100, unit_number: 'B-1' },
      unit(1002, 100, { deleted: true }),
      unit(1010, 101),
      unit(1020, 102),
      unit(1030, 103),
      unit(1040, 104),
      unit(1050, 105),
      unit(1060, 106),
      unit(1070, 107),
    ],
    clients: [
      { id: 500, company_id: OTHER_AGENCY, first_name: 'Other', email: 'shared@example.com' },
      {
        id: 501, company_id: AGENCY, first_name: 'Existing', last_name: 'Client', email: 'Existing@Example.com', mobile_number: '+971 50 123 4567',
        property_types: [9], preferred_area_ids: [3], property_features: ['Stored'],
      },
    ],
  });
}

let sequence = 0;
/** A contact no other test uses, so each application creates its own client unless a test wants reuse. */
const fresh = () => `client${++sequence}.${Date.now()}@example.com`;
const clientWith = (extra: Record<string, unknown> = {}) => ({ first_name: 'Jane', last_name: 'Doe', email: fresh(), ...extra });

const counts = (t: TestApp) => crmCounts(t.db);

function applyWith(t: TestApp, key: string) {
  return (unitId: number | string, body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/units/${unitId}/applications`,
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
}

describe.each(drivers)('POST /units/{id}/applications (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let apply: ReturnType<typeof applyWith>;
  let assertMatches: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(
    driver,
    catalogue(),
    (started) => {
      ({ t, key, assertDocumented: assertMatches } = started);
      apply = applyWith(t, key);
    },
    { documented: true },
  );

  async function created(unitId: number, body: unknown, headers: Record<string, string> = {}) {
    const res = await apply(unitId, body, headers);
    expect(res.statusCode, res.body).toBe(201);
    assertMatches('POST', '/units/{id}/applications', 201, res.json());
    return res.json().data;
  }

  async function rejected(body: unknown, status = 400, unitId: number | string = UNIT) {
    const res = await apply(unitId, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().status).toBe('error');
    return res.json().message as string;
  }

  describe('success', () => {
    it('creates client, opportunity and draft offer, shaped as the OpenAPI document says', async () => {
      const email = fresh();
      const res = await apply(UNIT, {
        client: { first_name: 'Jane', last_name: 'Doe', email: email.toUpperCase(), mobile_number: '+971 55 000 1111', social_links: { instagram: '@jane.doe' } },
        preferences: { preference_ids: [3], project_preference_ids: [2, 4], investment_type: 2 },
        message: 'Call me after 6pm',
        language: 'AR',
      });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      assertMatches('POST', '/units/{id}/applications', 201, body);
      expect(body.status).toBe('success');
      const { client, opportunity, offer } = body.data;

      expect(client).toMatchObject({
        first_name: 'Jane', last_name: 'Doe', email, mobile_number: '+971 55 000 1111',
        property_types: [], preferred_area_ids: [], property_features: [], created: true,
      });
      expect(opportunity).toMatchObject({
        name: 'Jane Doe \u2014 Marina Heights, unit A-101',
        stage: { id: 1, name: 'New lead', position: 0 },
        investment_type: 2,
        currency: 'AED',
        min_budget: null,
        max_budget: null,
        preferences: [{ id: 3, name: 'Balcony' }],
        project_preferences: { features: [{ id: 2, name: 'Private Beach', type: 1 }], amenities: [{ id: 4, name: 'Gym', type: 2 }] },
      });
      expect(offer).toMatchObject({
        offer_status: { id: 1, name: 'Draft' },
        unit: { id: UNIT, unit_number: 'A-101', project_id: 100, project_name: 'Marina Heights' },
        price: 1_000_000,
        language: 'ar',
        currency: 'AED',
        measure_units: 1,
        advisor_name: 'Amira Haddad',
        advisor_email: 'amira@gulfhomes.ae',
        advisor_phone: '+971 50 000 0001',
        is_sent: false,
      });
      expect(offer.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const stored = await t.db.selectFrom('opportunities').selectAll().where('id', '=', opportunity.id).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({
        company_id: AGENCY, client_id: client.id, stage_id: 1, author_id: OWNER, unit_id: UNIT, notes: 'Call me after 6pm', position: opportunity.position,
      });
      const storedClient = await t.db.selectFrom('clients').selectAll().where('id', '=', client.id).executeTakeFirstOrThrow();
      expect(storedClient).toMatchObject({ company_id: AGENCY, notes: null, social_links: { instagram: '@jane.doe' }, mobile_digits: '971550001111' });
      const link = await t.db.selectFrom('offer_opportunities').selectAll().where('offer_id', '=', offer.id).execute();
      expect(link).toEqual([{ offer_id: offer.id, opportunity_id: opportunity.id }]);
      const storedOffer = await t.db.selectFrom('offers').select(['company_id', 'author_id', 'offer_status_id', 'uuid']).where('id', '=', offer.id).executeTakeFirstOrThrow();
      expect(storedOffer).toEqual({ company_id: AGENCY, author_id: OWNER, offer_status_id: 1, uuid: offer.uuid });
    });

    it('places each new card at the end of the first column', async () => {
      const first = await created(UNIT, { client: clientWith() });
      const second = await created(UNIT, { client: clientWith() });
      expect(second.opportunity.stage.id).toBe(1);
      expect(second.opportunity.position).toBe(first.opportunity.position + 1);
      const { max } = await t.db.selectFrom('opportunities').select((eb) => eb.fn.max('position').as('max')).where('stage_id', '=', 1).executeTakeFirstOrThrow();
      expect(max).toBe(second.opportunity.position);
    });

    it('documents the Idempotency-Key header and the 201, 404 and 409 responses', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const operation = document.paths['/units/{id}/applications'].post;
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]));
      for (const code of ['201', '400', '401', '403', '404', '409', '500']) expect(operation.responses[code], code).toBeDefined();
      expect(operation.requestBody.content['application/json']).toBeDefined();
    });
  });

  describe('request handling', () => {
    // Valid JSON padded with insignificant whitespace to an exact size in bytes.
    const padded = (size: number) => {
      const json = JSON.stringify({ client: clientWith() });
      return json + ' '.repeat(size - Buffer.byteLength(json));
    };

    it('accepts a body of exactly 64 KiB and rejects one byte more with 400', async () => {
      expect((await apply(UNIT, padded(65_536))).statusCode).toBe(201);
      const res = await apply(UNIT, padded(65_537));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'request body must not exceed 64 KiB' });
    });

    it('rejects malformed JSON with 400', async () => {
      const res = await apply(UNIT, '{"client": {');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'request body is not valid JSON' });
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('rejects Content-Type %s with 400', async (type) => {
      const res = await apply(UNIT, JSON.stringify({ client: clientWith() }), { 'content-type': type });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'Content-Type must be application/json' });
    });

    it('accepts application/json with a charset', async () => {
      expect((await apply(UNIT, { client: clientWith() }, { 'content-type': 'application/json; charset=utf-8' })).statusCode).toBe(201);
    });

    it('rejects an empty body and a non-object body', async () => {
      expect(await rejected('')).toBe('request body is not valid JSON');
      expect(await rejected('[]')).toBe('body must be an object');
    });

    it('rejects a bad path id with 400', async () => {
      expect(await rejected({ client: clientWith() }, 400, 'abc')).toBe('id must be a positive integer');
      expect(await rejected({ client: clientWith() }, 400, 0)).toBe('id must be a positive integer');
    });

    it('answers 404 unit not found for a positive id beyond storage, with or without an Idempotency-Key, writing nothing', async () => {
      const before = await counts(t);
      for (const id of ['2147483648', '99999999999999999999']) {
        expect(await rejected({ client: clientWith() }, 404, id)).toBe('unit not found');
        const res = await apply(id, { client: clientWith() }, { 'idempotency-key': `beyond-${id.length}` });
        expect(res.statusCode, res.body).toBe(404);
      }
      expect(await counts(t)).toEqual(before);
    });

    it('needs a key', async () => {
      const res = await t.app.inject({ method: 'POST', url: `/units/${UNIT}/applications`, payload: { client: clientWith() } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 'error', message: 'missing api key' });
    });
  });

  describe('validation', () => {
    it('requires client and client.first_name, naming them', async () => {
      expect(await rejected({})).toBe('client is required');
      expect(await rejected({ client: { email: fresh() } })).toBe('client.first_name is required');
    });

    it('rejects a blank first name', async () => {
      expect(await rejected({ client: clientWith({ first_name: '   ' }) })).toBe('client.first_name must not be blank');
    });

    it('requires an email or a mobile number (exact message)', async () => {
      const expected = 'client.email or client.mobile_number is required';
      expect(await rejected({ client: { first_name: 'Jane' } })).toBe(expected);
      expect(await rejected({ client: { first_name: 'Jane', email: null, mobile_number: null } })).toBe(expected);
    });

    it('requires @ in the email and stores it trimmed and lower-cased', async () => {
      expect(await rejected({ client: clientWith({ email: 'jane.example.com' }) })).toBe('client.email must contain @');
      const email = fresh();
      const data = await created(UNIT, { client: clientWith({ email: `  ${email.toUpperCase()} ` }) });
      expect(data.client.email).toBe(email);
    });

    it('rejects a mobile number without digits', async () => {
      expect(await rejected({ client: { first_name: 'Jane', mobile_number: '+-' } })).toBe('client.mobile_number must contain at least one digit');
    });

    it('accepts a mobile number alone', async () => {
      const data = await created(UNIT, { client: { first_name: 'Mo', mobile_number: `+44 7700 ${String(++sequence).padStart(6, '0')}` } });
      expect(data.client.email).toBeNull();
      expect(data.client.created).toBe(true);
    });

    it.each([
      ['first_name', 255],
      ['last_name', 255],
      ['address_line1', 255],
      ['address_line2', 255],
      ['city', 255],
      ['country', 255],
      ['landline_number', 50],
      ['postcode', 50],
    ])('client.%s: %i characters accepted, one more rejected', async (field, limit) => {
      await created(UNIT, { client: clientWith({ [field]: 'x'.repeat(limit) }) });
      expect(await rejected({ client: clientWith({ [field]: 'x'.repeat(limit + 1) }) })).toBe(`client.${field} must be at most ${limit} characters`);
    });

    it('client.email: 255 characters accepted, 256 rejected', async () => {
      const at = (length: number) => `${'e'.repeat(length - '@example.com'.length)}@example.com`;
      const data = await created(UNIT, { client: clientWith({ email: at(255) }) });
      expect(data.client.email).toHaveLength(255);
      expect(await rejected({ client: clientWith({ email: at(256) }) })).toBe('client.email must be at most 255 characters');
    });

    it('client.mobile_number: 50 characters accepted, 51 rejected', async () => {
      const digits = (length: number) => `9${String(++sequence).padStart(length - 1, '0')}`;
      await created(UNIT, { client: { first_name: 'Mo', mobile_number: digits(50) } });
      expect(await rejected({ client: { first_name: 'Mo', mobile_number: digits(51) } })).toBe('client.mobile_number must be at most 50 characters');
    });

    it('message: 5000 characters accepted (stored in the opportunity notes), 5001 rejected', async () => {
      const data = await created(UNIT, { client: clientWith(), message: 'm'.repeat(5000) });
      const { notes } = await t.db.selectFrom('opportunities').select('notes').where('id', '=', data.opportunity.id).executeTakeFirstOrThrow();
      expect(notes).toHaveLength(5000);
      expect(await rejected({ client: clientWith(), message: 'm'.repeat(5001) })).toBe('message must be at most 5000 characters');
    });

    it('language: 10 characters accepted, 11 rejected; lower-cased; default en', async () => {
      expect((await created(UNIT, { client: clientWith(), language: 'EN-GB-ABCD' })).offer.language).toBe('en-gb-abcd');
      expect(await rejected({ client: clientWith(), language: 'en-gb-abcde' })).toBe('language must be at most 10 characters');
      expect((await created(UNIT, { client: clientWith() })).offer.language).toBe('en');
      expect((await created(UNIT, { client: clientWith(), language: null })).offer.language).toBe('en');
      expect(await rejected({ client: clientWith(), language: 'en gb' })).toBe('language must be a language code such as en or en-GB');
    });

    it.each([
      ['property_types', (i: number) => i],
      ['preferred_area_ids', () => 1],
      ['preference_ids', () => 1],
      ['project_preference_ids', () => 1],
      ['property_features', (i: number) => `feature ${i}`],
    ] as const)('preferences.%s: 100 items accepted, 101 rejected', async (field, item) => {
      const list = (n: number) => Array.from({ length: n }, (_, i) => item(i));
      await created(UNIT, { client: clientWith(), preferences: { [field]: list(100) } });
      expect(await rejected({ client: clientWith(), preferences: { [field]: list(101) } })).toBe(`preferences.${field} must have at most 100 items`);
    });

    it.each([
      ['preferred_area_ids', 'area', [1, 99]],
      ['preference_ids', 'unit tag', [77]],
      ['project_preference_ids', 'project feature or amenity', [1, 3, 55]],
    ] as const)('rejects an unknown id in preferences.%s, naming the field and the id', async (field, what, ids) => {
      const before = await counts(t);
      expect(await rejected({ client: clientWith(), preferences: { [field]: ids } })).toBe(`preferences.${field} contains an unknown ${what} id: ${ids.at(-1)}`);
      expect(await counts(t)).toEqual(before);
    });

    it('rejects an inverted explicit budget', async () => {
      expect(await rejected({ client: clientWith(), preferences: { min_budget: 2, max_budget: 1 } })).toBe(
        'preferences.min_budget must not be greater than preferences.max_budget',
      );
      expect(await rejected({ client: clientWith(), preferences: { min_budget: -1 } })).toBe('preferences.min_budget must be at least 0');
      const data = await created(UNIT, { client: clientWith(), preferences: { min_budget: 5, max_budget: 5 } });
      expect(data.opportunity).toMatchObject({ min_budget: 5, max_budget: 5 });
    });

    it('accepts only AED or USD as currency', async () => {
      for (const currency of ['EUR', 'aed', '', 5]) expect(await rejected({ client: clientWith(), currency })).toBe('currency must be AED or USD');
    });

    it('does not coerce types and rejects unknown fields, naming them', async () => {
      expect(await rejected({ client: clientWith({ first_name: 5 }) })).toBe('client.first_name must be a string');
      expect(await rejected({ client: clientWith(), preferences: { preference_ids: ['1'] } })).toBe('preferences.preference_ids[0] must be an integer');
      expect(await rejected({ client: clientWith(), preferences: { based_on_unit: 'true' } })).toBe('preferences.based_on_unit must be a boolean (true or false)');
      expect(await rejected({ client: clientWith({ nickname: 'J' }) })).toBe('unknown field: client.nickname');
      expect(await rejected({ client: clientWith(), extra: 1 })).toBe('unknown field: extra');
    });

    it('accepts social handles but not URLs', async () => {
      expect(await rejected({ client: clientWith({ social_links: { x: 'https://x.com/jane' } }) })).toMatch(/^client\.social_links\.x must be a handle/);
      expect(await rejected({ client: clientWith({ social_links: { myspace: 'jane' } }) })).toBe('unknown field: client.social_links.myspace');
    });
  });

  describe('merging interests', () => {
    it('keeps explicit values first and adds the unit\u2019s, without duplicates', async () => {
      const data = await created(UNIT, {
        client: clientWith(),
        preferences: { based_on_unit: true, property_types: [7, 7], preferred_area_ids: [2], preference_ids: [3, 2], project_preference_ids: [4, 1] },
      });
      expect(data.client.property_types).toEqual([7, 3]);
      expect(data.client.preferred_area_ids).toEqual([2, 1]);
      expect(data.opportunity.preferences).toEqual([{ id: 3, name: 'Balcony' }, { id: 2, name: 'Corner Unit' }, { id: 1, name: 'Sea View' }]);
      expect(data.opportunity.project_preferences).toEqual({
        features: [{ id: 1, name: 'Smart Home', type: 1 }],
        amenities: [{ id: 4, name: 'Gym', type: 2 }, { id: 3, name: 'Swimming Pool', type: 2 }],
      });
      const tags = await t.db.selectFrom('opportunity_tags').select('tag_id').where('opportunity_id', '=', data.opportunity.id).orderBy('tag_id').execute();
      expect(tags.map((r) => r.tag_id)).toEqual([1, 2, 3]);
      const features = await t.db.selectFrom('opportunity_project_features').select('feature_id').where('opportunity_id', '=', data.opportunity.id).orderBy('feature_id').execute();
      expect(features.map((r) => r.feature_id)).toEqual([1, 3, 4]);
      const stored = await t.db.selectFrom('clients').select(['property_types', 'preferred_area_ids']).where('id', '=', data.client.id).executeTakeFirstOrThrow();
      expect(stored).toEqual({ property_types: [7, 3], preferred_area_ids: [2, 1] });
    });

    it('derives nothing without based_on_unit', async () => {
      const data = await created(UNIT, { client: clientWith(), preferences: { based_on_unit: false, preference_ids: [1] } });
      expect(data.client.property_types).toEqual([]);
      expect(data.opportunity.preferences).toEqual([{ id: 1, name: 'Sea View' }]);
      expect(data.opportunity.project_preferences).toEqual({ features: [], amenities: [] });
      expect(data.opportunity).toMatchObject({ min_budget: null, max_budget: null });
    });

    it.each([
      ['no bound: both from the unit price', {}, 1_000_000, 1_000_000],
      ['both bounds explicit: kept', { min_budget: 10, max_budget: 20 }, 10, 20],
      ['explicit min below the price: max filled', { min_budget: 500_000 }, 500_000, 1_000_000],
      ['explicit min above the price: max stays null', { min_budget: 2_000_000 }, 2_000_000, null],
      ['explicit max above the price: min filled', { max_budget: 3_000_000 }, 1_000_000, 3_000_000],
      ['explicit max below the price: min stays null', { max_budget: 900_000 }, null, 900_000],
      ['explicit null bounds count as missing', { min_budget: null, max_budget: null }, 1_000_000, 1_000_000],
    ])('budget, %s', async (_case, bounds, min, max) => {
      const data = await created(UNIT, { client: clientWith(), preferences: { based_on_unit: true, ...bounds } });
      expect(data.opportunity).toMatchObject({ min_budget: min, max_budget: max });
    });

    it('derives no budget from an unpriced unit, and its offer has no price', async () => {
      const data = await created(UNPRICED_UNIT, { client: clientWith(), preferences: { based_on_unit: true, max_budget: 7 } });
      expect(data.opportunity).toMatchObject({ min_budget: null, max_budget: 7 });
      expect(data.offer.price).toBeNull();
    });

    it('normalises property_features: trimmed, empty dropped, de-duplicated case-insensitively', async () => {
      const data = await created(UNIT, { client: clientWith(), preferences: { property_features: ['  Sea view ', 'SEA VIEW', '', '   ', 'Garden', 'garden'] } });
      expect(data.client.property_features).toEqual(['Sea view', 'Garden']);
    });

    it.each([
      [UNIT, undefined, 'AED'],
      [1010, undefined, 'USD'],
      [1020, undefined, 'AED'],
      [UNIT, 'USD', 'USD'],
      [1010, 'AED', 'AED'],
      [1010, null, 'USD'],
    ])('currency of unit %i with %s is %s for offer and opportunity', async (unitId, currency, expected) => {
      const data = await created(unitId, { client: clientWith(), ...(currency !== undefined && { currency }) });
      expect(data.offer.currency).toBe(expected);
      expect(data.opportunity.currency).toBe(expected);
    });

    it('prices the offer and the derived budget in the key\u2019s prices', async () => {
      const apply10 = applyWith(t, await t.key({ priceVector: 10 }));
      const res = await apply10(UNIT, { client: clientWith(), preferences: { based_on_unit: true } });
      expect(res.statusCode).toBe(201);
      const { offer, opportunity } = res.json().data;
      expect(offer.price).toBe(1_100_000);
      expect(opportunity).toMatchObject({ min_budget: 1_100_000, max_budget: 1_100_000 });
      const stored = await t.db.selectFrom('offers').select('price').where('id', '=', offer.id).executeTakeFirstOrThrow();
      expect(stored.price).toBe(1_100_000);
    });

    it('never inverts the range with the key\u2019s price (max 1,000,000, unit 2,000,000 for this key)', async () => {
      const apply100 = applyWith(t, await t.key({ priceVector: 100 }));
      const res = await apply100(UNIT, { client: clientWith(), preferences: { based_on_unit: true, max_budget: 1_000_000 } });
      expect(res.json().data.opportunity).toMatchObject({ min_budget: null, max_budget: 1_000_000 });
      expect(res.json().data.offer.price).toBe(2_000_000);
    });

    it('names the opportunity after the client, project and unit, cut to 255 characters', async () => {
      const data = await created(1070, { client: clientWith({ first_name: '  Jane ', last_name: null }) });
      expect(data.opportunity.name).toHaveLength(255);
      expect(data.opportunity.name.startsWith(`Jane \u2014 ${LONG_NAME.slice(0, 50)}`)).toBe(true);
      expect(data.client.first_name).toBe('Jane');
    });
  });

  describe('client reuse', () => {
    it('reuses the agency\u2019s client with the same email, any case, leaving it unchanged', async () => {
      const before = await t.db.selectFrom('clients').selectAll().where('id', '=', 501).executeTakeFirstOrThrow();
      const data = await created(UNIT, {
        client: { first_name: 'Changed', last_name: 'Name', email: 'EXISTING@example.COM', city: 'Dubai' },
        preferences: { based_on_unit: true, property_types: [1], property_features: ['New'] },
      });
      expect(data.client).toMatchObject({
        id: 501, first_name: 'Existing', last_name: 'Client', email: 'Existing@Example.com', mobile_number: '+971 50 123 4567',
        property_types: [9], preferred_area_ids: [3], property_features: ['Stored'], created: false,
      });
      expect(data.opportunity.name).toBe('Existing Client \u2014 Marina Heights, unit A-101');
      expect(await t.db.selectFrom('clients').selectAll().where('id', '=', 501).executeTakeFirstOrThrow()).toEqual(before);
      const opportunity = await t.db.selectFrom('opportunities').select('client_id').where('id', '=', data.opportunity.id).executeTakeFirstOrThrow();
      expect(opportunity.client_id).toBe(501);
    });

    it('reuses the client whose mobile number has the same digits', async () => {
      const data = await created(UNIT, { client: { first_name: 'Someone', mobile_number: '971501234567' } });
      expect(data.client).toMatchObject({ id: 501, created: false, mobile_number: '+971 50 123 4567' });
    });

    it('does not reuse a client of another agency', async () => {
      const data = await created(UNIT, { client: { first_name: 'Mine', email: 'Shared@example.com' } });
      expect(data.client.created).toBe(true);
      expect(data.client.id).not.toBe(500);
      expect(data.client.email).toBe('shared@example.com');
    });

    it('reuses a client created by an earlier application; each call adds an opportunity and an offer', async () => {
      const email = fresh();
      const first = await created(UNIT, { client: { first_name: 'Repeat', email } });
      const second = await created(UNIT, { client: { first_name: 'Repeat', email } });
      expect(first.client.created).toBe(true);
      expect(second.client).toMatchObject({ id: first.client.id, created: false });
      expect(second.opportunity.id).not.toBe(first.opportunity.id);
      expect(second.offer.id).not.toBe(first.offer.id);
      expect(second.offer.uuid).not.toBe(first.offer.uuid);
    });
  });

  describe('private applications (issue 20)', () => {
    let privateKey: string;
    let applyPrivately: ReturnType<typeof applyWith>;
    beforeAll(async () => {
      privateKey = await t.key({ privateApplications: true });
      applyPrivately = applyWith(t, privateKey);
    });

    async function createdPrivately(body: Record<string, unknown>, headers: Record<string, string> = {}) {
      const res = await applyPrivately(UNIT, body, headers);
      expect(res.statusCode, res.body).toBe(201);
      assertMatches('POST', '/units/{id}/applications', 201, res.json());
      return res.json().data;
    }
    const lastOpportunity = () => t.db.selectFrom('opportunities').select(['client_id', 'name']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    const application = (client: Record<string, unknown>) => ({
      client: { first_name: ' Stranger ', last_name: 'Visitor', ...client },
      preferences: { based_on_unit: true, property_types: [1], property_features: ['New'], min_budget: 10 },
      message: 'Call me',
      language: 'en-GB',
    });

    it('answers a known contact exactly as a new one, from the request and the unit only', async () => {
      const newEmail = fresh();
      const asNew = await createdPrivately(application({ email: newEmail }));
      expect((await lastOpportunity()).client_id).not.toBe(501);
      const byEmail = await createdPrivately(application({ email: 'EXISTING@example.COM' }));
      // The CRM still files it under the stored client (the specified reuse); only the answer changes.
      expect((await lastOpportunity())).toEqual({ client_id: 501, name: 'Existing Client — Marina Heights, unit A-101' });
      const byMobile = await createdPrivately(application({ mobile_number: '971501234567' }));
      expect((await lastOpportunity()).client_id).toBe(501);

      // The same answer but for what the request itself sent (its contact).
      expect(byEmail).toEqual({ ...asNew, client: { ...asNew.client, email: 'existing@example.com' } });
      expect(byMobile).toEqual({ ...asNew, client: { ...asNew.client, email: null, mobile_number: '971501234567' } });
      expect(asNew).toEqual({
        client: {
          first_name: 'Stranger', last_name: 'Visitor', email: newEmail, mobile_number: null,
          property_types: [1, 3], preferred_area_ids: [1], property_features: ['New'],
        },
        opportunity: {
          name: 'Stranger Visitor — Marina Heights, unit A-101', investment_type: null, currency: 'AED', min_budget: 10, max_budget: 1_000_000,
          preferences: [{ id: 1, name: expect.any(String) }, { id: 2, name: expect.any(String) }],
          project_preferences: { features: [expect.objectContaining({ id: 1, type: 1 })], amenities: [expect.objectContaining({ id: 3, type: 2 })] },
        },
        offer: { unit: { id: UNIT, unit_number: 'A-101', project_id: 100, project_name: 'Marina Heights' }, price: 1_000_000, language: 'en-gb', currency: 'AED', measure_units: 1, is_sent: false },
      });
      // Nothing stored about client 501 shows: names, contact, interests.
      for (const stored of ['Existing', 'Client', '+971 50 123 4567', 'Stored', 'Existing@Example.com']) expect(JSON.stringify([byEmail, byMobile])).not.toContain(stored);
    });

    it('replays its own answer for an Idempotency-Key, and never an answer of the other form after the setting changed', async () => {
      const body = application({ email: 'existing@example.com' });
      const first = await createdPrivately(body, { 'idempotency-key': 'private-1' });
      expect(await createdPrivately(body, { 'idempotency-key': 'private-1' })).toEqual(first);
      const [record] = (await listKeys(t.db, AGENCY)).filter((k) => k.private_applications);
      await updateKey(t.db, record.id, { privateApplications: false });
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the key cache's time to live
      const defaultAnswer = await applyPrivately(UNIT, body, { 'idempotency-key': 'private-1' });
      expect(defaultAnswer.statusCode, defaultAnswer.body).toBe(409);
      const full = await applyPrivately(UNIT, body);
      expect(full.json().data.client).toMatchObject({ id: 501, created: false, first_name: 'Existing' });
    });
  });

  describe('visibility and authorship', () => {
    it.each([
      ['unknown', 999_999],
      ['deleted', 1002],
      ['of a draft project', 1030],
      ['of a deleted project', 1040],
      ['of a developer without a contract', 1050],
      ['of a developer with a pending contract', 1060],
    ])('answers 404 unit not found for a unit %s', async (_case, unitId) => {
      const before = await counts(t);
      const res = await apply(unitId, { client: clientWith() });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'unit not found' });
      expect(await counts(t)).toEqual(before);
    });

    it('answers 401 api key author is gone once the author is removed, before reading the body or the unit', async () => {
      const brokerKey = await t.key({ authorId: BROKER });
      const applyAsBroker = applyWith(t, brokerKey);
      expect((await applyAsBroker(UNIT, { client: clientWith() })).json().data.offer.advisor_phone).toBeNull();

      await importBundle(t.db, { users: [{ id: BROKER, name: 'Omar Khan', email: 'omar@gulfhomes.ae', deleted: true }] }, { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
      for (const [unitId, body] of [[UNIT, { client: clientWith() }], [999_999, { client: clientWith() }], [UNIT, '{not json']] as const) {
        const res = await applyAsBroker(unitId, body);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ status: 'error', message: 'api key author is gone' });
      }
      // Reads keep working for that key.
      expect((await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': brokerKey } })).statusCode).toBe(200);
    });

    it('records the application for the key\u2019s own agency and board', async () => {
      const otherKey = await t.key({ companyId: OTHER_AGENCY, authorId: OTHER_OWNER });
      const res = await applyWith(t, otherKey)(UNIT, { client: { first_name: 'Other', email: 'shared@example.com' } });
      expect(res.statusCode).toBe(201);
      const { client, opportunity, offer } = res.json().data;
      expect(client).toMatchObject({ id: 500, created: false });
      expect(opportunity.stage).toEqual({ id: 3, name: 'Inbox', position: 5 });
      expect(offer).toMatchObject({ advisor_name: 'Other Owner', advisor_email: 'owner@other.ae', advisor_phone: null });
      const stored = await t.db.selectFrom('opportunities').select(['company_id', 'author_id']).where('id', '=', opportunity.id).executeTakeFirstOrThrow();
      expect(stored).toEqual({ company_id: OTHER_AGENCY, author_id: OTHER_OWNER });
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body, writing nothing', async () => {
      const body = { client: clientWith(), preferences: { based_on_unit: true }, message: 'hello' };
      const first = await apply(UNIT, body, { 'idempotency-key': 'order-1' });
      expect(first.statusCode).toBe(201);
      const before = await counts(t);
      // Same JSON, keys in another order and other whitespace.
      const reordered = `{ "message": "hello", "preferences": {"based_on_unit": true}, "client": ${JSON.stringify({ ...body.client })} }`;
      for (const payload of [body, reordered]) {
        const again = await apply(UNIT, payload, { 'idempotency-key': 'order-1' });
        expect(again.statusCode).toBe(201);
        expect(again.body).toBe(first.body);
      }
      expect(await counts(t)).toEqual(before);
    });

    it('answers 409 when the key is reused with another body or on another unit', async () => {
      const body = { client: clientWith() };
      expect((await apply(UNIT, body, { 'idempotency-key': 'order-2' })).statusCode).toBe(201);
      const before = await counts(t);
      for (const [unitId, payload] of [[UNIT, { ...body, message: 'changed' }], [1010, body]] as const) {
        const res = await apply(unitId, payload, { 'idempotency-key': 'order-2' });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({ status: 'error', message: 'Idempotency-Key was already used with a different request body' });
      }
      expect(await counts(t)).toEqual(before);
    });

    it('keeps keys apart per API key', async () => {
      const otherKey = await t.key();
      const body = { client: clientWith() };
      const first = await apply(UNIT, body, { 'idempotency-key': 'shared-key' });
      const second = await applyWith(t, otherKey)(UNIT, body, { 'idempotency-key': 'shared-key' });
      expect(second.statusCode).toBe(201);
      expect(second.json().data.opportunity.id).not.toBe(first.json().data.opportunity.id);
    });

    it('forgets a key after 24 hours', async () => {
      expect((await apply(UNIT, { client: clientWith() }, { 'idempotency-key': 'order-3' })).statusCode).toBe(201);
      await sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'order-3'`.execute(t.db);
      const res = await apply(UNIT, { client: clientWith() }, { 'idempotency-key': 'order-3' });
      expect(res.statusCode).toBe(201);
      const rows = await t.db.selectFrom('idempotency_keys').select('request_hash').where('key', '=', 'order-3').execute();
      expect(rows).toHaveLength(1);
    });

    it('does not remember failures: a rejected request can be retried with the same key', async () => {
      const key = 'order-4';
      expect((await apply(999_999, { client: clientWith() }, { 'idempotency-key': key })).statusCode).toBe(404);
      expect((await apply(UNIT, { client: clientWith() }, { 'idempotency-key': key })).statusCode).toBe(201);
    });

    it('creates a new opportunity and offer on every call without the header', async () => {
      const body = { client: clientWith() };
      const before = await counts(t);
      const first = (await created(UNIT, body)).opportunity;
      const second = (await created(UNIT, body)).opportunity;
      expect(second.id).not.toBe(first.id);
      const after = await counts(t);
      expect(after.opportunities - before.opportunities).toBe(2);
      expect(after.offers - before.offers).toBe(2);
      expect(after.clients - before.clients).toBe(1);
      expect(after.idempotency_keys).toBe(before.idempotency_keys);
    });

    it.each([['x'.repeat(256)], ['has space'], [''], ['caf\u00e9']])('rejects the malformed key %j with 400 naming the header', async (value) => {
      const res = await apply(UNIT, { client: clientWith() }, { 'idempotency-key': value });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('idempotency-key must be 1 to 255 visible ASCII characters (no spaces)');
    });

    it('accepts a 255-character key', async () => {
      expect((await apply(UNIT, { client: clientWith() }, { 'idempotency-key': 'k'.repeat(255) })).statusCode).toBe(201);
    });
  });
});

describe.each(drivers)('POST /units/{id}/applications, failures and empty boards (%s)', (driver) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function setup(bundle: Bundle = catalogue()) {
    t = await createTestApp(driver, bundle);
    return { t, apply: applyWith(t, await t.key()) };
  }

  it('answers 500 offer status catalogue is empty and writes nothing', async () => {
    const { t, apply } = await setup();
    await t.db.deleteFrom('offer_statuses').execute();
    const before = await counts(t);
    const res = await apply(UNIT, { client: clientWith(), preferences: { based_on_unit: true } }, { 'idempotency-key': 'k1' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', message: 'offer status catalogue is empty' });
    expect(await counts(t)).toEqual(before);
    expect(before).toMatchObject({ clients: 2, opportunities: 0, offers: 0 });
  });

  it('rolls everything back when a write fails after the client was inserted', async () => {
    const { t, apply } = await setup();
    await sql`CREATE FUNCTION refuse_offer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'offers are refused by this test'; END $$`.execute(t.db);
    await sql`CREATE TRIGGER refuse_offer BEFORE INSERT ON offers FOR EACH ROW EXECUTE FUNCTION refuse_offer()`.execute(t.db);
    const before = await counts(t);
    const body = { client: clientWith(), preferences: { based_on_unit: true } };
    const res = await apply(UNIT, body, { 'idempotency-key': 'retry-me' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', message: 'internal server error' });
    expect(await counts(t)).toEqual(before);

    // Nothing was remembered either: once the cause is gone, the same key and body go through.
    await sql`DROP TRIGGER refuse_offer ON offers`.execute(t.db);
    const retry = await apply(UNIT, body, { 'idempotency-key': 'retry-me' });
    expect(retry.statusCode).toBe(201);
    expect(retry.json().data.opportunity.position).toBe(0);
  });

  it('answers 401 when the key\u2019s agency was removed', async () => {
    const { t, apply } = await setup();
    const agency = catalogue().companies.find((c) => c.id === AGENCY)!;
    await importBundle(t.db, { companies: [{ ...agency, deleted: true }] }, { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
    const res = await apply(UNIT, { client: clientWith() });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'error', message: 'api key author is gone' });
  });

  it('answers 401 when the author is no longer a member of the agency', async () => {
    const { t, apply } = await setup();
    await t.db.deleteFrom('company_members').where('company_id', '=', AGENCY).where('user_id', '=', OWNER).execute();
    const res = await apply(UNIT, { client: clientWith() });
    expect(res.json()).toEqual({ status: 'error', message: 'api key author is gone' });
  });

  it('creates a default stage "New" at position 0 for an agency without a board', async () => {
    const bundle = catalogue();
    bundle.board_stages = bundle.board_stages.filter((s) => s.company_id !== AGENCY);
    const { t, apply } = await setup(bundle);
    const first = (await apply(UNIT, { client: clientWith() })).json().data.opportunity;
    const second = (await apply(UNIT, { client: clientWith() })).json().data.opportunity;
    expect(first.stage).toMatchObject({ name: 'New', position: 0 });
    expect(second.stage).toEqual(first.stage);
    expect([first.position, second.position]).toEqual([0, 1]);
    const stages = await t.db.selectFrom('board_stages').selectAll().where('company_id', '=', AGENCY).execute();
    expect(stages).toEqual([{ id: first.stage.id, company_id: AGENCY, name: 'New', position: 0 }]);
  });

  it('uses the stage with the lowest position, whatever its id', async () => {
    const bundle = catalogue();
    bundle.board_stages = [
      ...bundle.board_stages.filter((s) => s.company_id !== AGENCY),
      { id: 7, company_id: AGENCY, name: 'Later', position: 4 },
      { id: 8, company_id: AGENCY, name: 'Earliest', position: 2 },
    ];
    const { apply } = await setup(bundle);
    const res = await apply(UNIT, { client: clientWith() });
    expect(res.json().data.opportunity.stage).toEqual({ id: 8, name: 'Earliest', position: 2 });
  });

  it('uses the offer status with the lowest id', async () => {
    const bundle = catalogue();
    bundle.offer_statuses = [{ id: 5, name: 'Sent' }, { id: 3, name: 'Prepared' }];
    const { apply } = await setup(bundle);
    const res = await apply(UNIT, { client: clientWith() });
    expect(res.json().data.offer.offer_status).toEqual({ id: 3, name: 'Prepared' });
  });
});
