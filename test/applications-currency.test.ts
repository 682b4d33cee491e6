import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Offers priced in their own currency (issue 22): a unit of a EUR project applied for in AED (the
 * specified default for a EUR project) is converted at the rate, with the key's factor, and the rate
 * is returned and stored; without a rate the specified answer stands and says it was not converted.
 */

const AS_OF_EUR = '2026-11-20T12:00:00.000Z';
const AS_OF_USD = '2026-11-18T08:00:00.000Z';
const EUR_UNIT = 21;
const AED_UNIT = 11;
const USD_UNIT = 31;
const UNRATED_UNIT = 41;
const UNPRICED_EUR_UNIT = 22;

function catalogue(): Bundle {
  const project = (id: number, currency: string) => ({ id, company_id: DEV, author_id: 110, area_id: 1, type: 1, name: `Tower ${id}`, currency });
  const unit = (id: number, projectId: number, price: number | null) => ({ id, project_id: projectId, unit_number: `U-${id}`, bedrooms: 2, status: 4, price, unit_area: 100 });
  return withRecords(baseBundle(), {
    currency_rates: [
      { currency: 'EUR', aed_per_unit: 4.0123, as_of: AS_OF_EUR },
      { currency: 'USD', aed_per_unit: 3.6725, as_of: AS_OF_USD },
    ],
    projects: [project(1, 'AED'), project(2, 'EUR'), project(3, 'USD'), project(4, 'XYZ')],
    units: [unit(AED_UNIT, 1, 1_000_000), unit(EUR_UNIT, 2, 1_218_139), unit(UNPRICED_EUR_UNIT, 2, null), unit(USD_UNIT, 3, 458_810), unit(UNRATED_UNIT, 4, 500_000)],
  });
}

let sequence = 0;
const client = () => ({ first_name: 'Jane', email: `currency${++sequence}.${Date.now()}@example.com` });

describe.each(drivers)('offers in their currency (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertMatches: Awaited<ReturnType<typeof openApiValidator>>;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    // +2 %: the factor applies once, to the exact converted value.
    key = await t.key({ priceVector: 2 });
    assertMatches = await openApiValidator(t.app);
  });
  afterAll(async () => t?.close());

  async function apply(unitId: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/units/${unitId}/applications`,
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ client: client(), ...body }),
    });
    expect(response.statusCode, response.body).toBe(201);
    assertMatches('POST', '/units/{id}/applications', 201, response.json());
    return response.json().data;
  }

  it('a EUR unit applied for in AED (the default) is converted at the rate, factor applied once, rate and as_of returned', async () => {
    const data = await apply(EUR_UNIT, { preferences: { based_on_unit: true } });
    // 1,218,139 EUR x 1.02 x 4.0123 = 4,985,289.8929… AED
    expect(data.offer).toMatchObject({ currency: 'AED', price: 4985289.89 });
    expect(data.offer.price_conversion).toEqual({ unit_currency: 'EUR', unit_price: 1242501.78, converted: true, rate: 4.0123, rate_as_of: AS_OF_EUR });
    // The budget derived from the unit is the converted price too.
    expect(data.opportunity).toMatchObject({ currency: 'AED', min_budget: 4985289.89, max_budget: 4985289.89 });

    const stored = await t.db
      .selectFrom('offers')
      .select(['price', 'currency', 'unit_currency', 'unit_price', 'exchange_rate', 'rate_as_of'])
      .where('id', '=', data.offer.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ price: 4985289.89, currency: 'AED', unit_currency: 'EUR', unit_price: 1242501.78, exchange_rate: 4.0123, rate_as_of: AS_OF_EUR });
  });

  it('an explicit USD offer for an AED unit is converted (AED per USD), explicit budget bounds kept as given', async () => {
    const data = await apply(AED_UNIT, { currency: 'USD', preferences: { based_on_unit: true, max_budget: 300_000 } });
    // 1,000,000 AED x 1.02 / 3.6725 = 277,739.9591… USD
    expect(data.offer).toMatchObject({ currency: 'USD', price: 277739.96 });
    expect(data.offer.price_conversion).toEqual({ unit_currency: 'AED', unit_price: 1020000, converted: true, rate: 0.272294077604, rate_as_of: AS_OF_USD });
    expect(data.opportunity).toMatchObject({ currency: 'USD', min_budget: 277739.96, max_budget: 300000 });
  });

  it('EUR to USD goes through both rates; as_of is the older of the two', async () => {
    const data = await apply(EUR_UNIT, { currency: 'USD' });
    // 1,218,139 x 1.02 x 4.0123 / 3.6725 = 1,357,464.9127… USD
    expect(data.offer.price).toBe(1357464.91);
    expect(data.offer.price_conversion).toMatchObject({ converted: true, rate: 1.09252552757, rate_as_of: AS_OF_USD });
  });

  it('a unit in the offer currency is not converted: price_conversion is null, the price the key price', async () => {
    const data = await apply(USD_UNIT, {});
    expect(data.offer).toMatchObject({ currency: 'USD', price: 467986.2, price_conversion: null });
  });

  it('without a rate the specified answer stands (the unit price, not converted) and the response says so', async () => {
    const data = await apply(UNRATED_UNIT, { preferences: { based_on_unit: true } });
    expect(data.offer).toMatchObject({ currency: 'AED', price: 510000 });
    expect(data.offer.price_conversion).toEqual({ unit_currency: 'XYZ', unit_price: 510000, converted: false, rate: null, rate_as_of: null });
    expect(data.opportunity).toMatchObject({ min_budget: 510000, max_budget: 510000 });
  });

  it('a unit without a price: null price, the conversion still named', async () => {
    const data = await apply(UNPRICED_EUR_UNIT, {});
    expect(data.offer.price).toBeNull();
    expect(data.offer.price_conversion).toEqual({ unit_currency: 'EUR', unit_price: null, converted: true, rate: 4.0123, rate_as_of: AS_OF_EUR });
  });

  it('a key with private applications shows the offer price converted as stored, not the unit price relabelled', async () => {
    const privateKey = await t.key({ priceVector: 2, privateApplications: true });
    for (const [unitId, body, currency, price] of [
      // The same figures as the full answers above: EUR -> AED by default, AED -> USD, EUR -> USD.
      [EUR_UNIT, { preferences: { based_on_unit: true } }, 'AED', 4985289.89],
      [AED_UNIT, { currency: 'USD' }, 'USD', 277739.96],
      [EUR_UNIT, { currency: 'USD' }, 'USD', 1357464.91],
    ] as const) {
      const data = await apply(unitId, body, { 'x-api-key': privateKey });
      expect(data.offer).toMatchObject({ currency, price });
      expect(data.offer.id).toBeUndefined();
      const stored = await t.db.selectFrom('offers').select(['price', 'currency']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
      expect(stored).toEqual({ price, currency });
    }
  });

  it('an Idempotency-Key replay returns the same conversion', async () => {
    const body = { client: client() };
    const idempotencyKey = `currency-${Date.now()}`;
    const first = await apply(EUR_UNIT, body, { 'idempotency-key': idempotencyKey });
    const again = await apply(EUR_UNIT, body, { 'idempotency-key': idempotencyKey });
    expect(again.offer.id).toBe(first.offer.id);
    expect(again.offer.price_conversion).toEqual({ unit_currency: 'EUR', unit_price: 1242501.78, converted: true, rate: 4.0123, rate_as_of: AS_OF_EUR });
  });
});
