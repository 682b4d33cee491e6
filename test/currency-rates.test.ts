import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversion, convertedPriceSql } from '../src/domain/currency.js';
import { BundleError } from '../src/import/bundle-error.js';
import { importBundle } from '../src/import/import-bundle.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { findActiveKeyByHash } from '../src/queries/api-keys.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { untilSignalled } from './helpers/detail-differential.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * Exchange rates in the catalogue (issue 22): the bundle section `currency_rates`, its validation,
 * GET /currencies, the change signal, the changes feed, the importer's warning, and the SQL form of
 * the conversion rule against its JavaScript form on a real database.
 */

const AS_OF = '2026-11-20T12:00:00.000Z';
const project = (id: number, currency: string) => ({ id, company_id: DEV, author_id: 110, area_id: 1, name: `Tower ${id}`, currency });
const unit = (id: number, projectId: number, price: number) => ({ id, project_id: projectId, unit_number: `U-${id}`, bedrooms: 2, status: 4, price, unit_area: 100 });

function catalogue(): Bundle {
  return withRecords(baseBundle(), {
    currency_rates: [
      { currency: 'USD', aed_per_unit: 3.6725, as_of: AS_OF },
      { currency: 'EUR', aed_per_unit: 4.0123, as_of: AS_OF },
    ],
    projects: [project(1, 'AED'), project(2, 'EUR'), project(3, 'USD'), project(4, 'XYZ')],
    units: [unit(11, 1, 1_000_000), unit(21, 2, 1_218_139), unit(31, 3, 458_810), unit(41, 4, 500_000)],
  });
}

describe.each(drivers)('currency rates (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const load = (bundle: unknown, onWarning?: (line: string) => void) => importBundle(t.db, bundle, { facilityLinkRadiusM: 10_000, onWarning });

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key();
  });
  afterAll(async () => t?.close());

  it('GET /currencies: AED first (1, no as_of), then every rate by code, with its minor unit', async () => {
    const response = await get('/currencies');
    expect(response.statusCode).toBe(200);
    expect(response.json().data.items).toEqual([
      { currency: 'AED', aed_per_unit: 1, minor_unit: 2, as_of: null },
      { currency: 'EUR', aed_per_unit: 4.0123, minor_unit: 2, as_of: AS_OF },
      { currency: 'USD', aed_per_unit: 3.6725, minor_unit: 2, as_of: AS_OF },
    ]);
  });

  it.each([
    [{ currency: 'usd', aed_per_unit: 3.67, as_of: AS_OF }, 'currency_rates[1].currency: must be an ISO 4217 code of three upper-case letters other than AED (AED is 1 by definition)'],
    [{ currency: 'AED', aed_per_unit: 1, as_of: AS_OF }, 'currency_rates[1].currency: must be an ISO 4217 code of three upper-case letters other than AED (AED is 1 by definition)'],
    [{ currency: 'USDT', aed_per_unit: 3.67, as_of: AS_OF }, 'currency_rates[1].currency: must be an ISO 4217 code of three upper-case letters other than AED (AED is 1 by definition)'],
    [{ currency: 'GBP', aed_per_unit: 0, as_of: AS_OF }, 'currency_rates[1].aed_per_unit: must be greater than 0'],
    [{ currency: 'GBP', aed_per_unit: -4.6, as_of: AS_OF }, 'currency_rates[1].aed_per_unit: must be greater than 0'],
    [{ currency: 'GBP', aed_per_unit: '4.6', as_of: AS_OF }, 'currency_rates[1].aed_per_unit: must be a number'],
    // Not finite: what JSON.parse makes of 1e400, and what a bundle built in code may hold.
    [{ currency: 'GBP', aed_per_unit: JSON.parse('1e400') as number, as_of: AS_OF }, 'currency_rates[1].aed_per_unit: must be a finite number'],
    [{ currency: 'GBP', aed_per_unit: Number.NaN, as_of: AS_OF }, 'currency_rates[1].aed_per_unit: must be greater than 0'],
    [{ currency: 'GBP', aed_per_unit: 4.6 }, 'currency_rates[1].as_of: is required'],
    [{ currency: 'GBP', aed_per_unit: 4.6, as_of: 'yesterday' }, 'currency_rates[1].as_of: must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'],
    [{ currency: 'GBP', aed_per_unit: 4.6, as_of: AS_OF, source: 'ECB' }, 'currency_rates[1].source: unknown field'],
    [{ currency: 'USD', aed_per_unit: 3.7, as_of: AS_OF }, 'currency_rates[1].currency: duplicate of currency_rates[0]'],
  ])('refuses a bad rate with section, index and field, writing nothing: %j', async (bad, message) => {
    const bundle = { currency_rates: [{ currency: 'USD', aed_per_unit: 9, as_of: AS_OF }, bad] };
    await expect(load(bundle)).rejects.toThrow(new BundleError(message));
    const usd = await t.db.selectFrom('currency_rates').select('aed_per_unit').where('currency', '=', 'USD').executeTakeFirstOrThrow();
    expect(Number(usd.aed_per_unit)).toBe(3.6725);
  });

  it('upserts by currency: the same bundle twice leaves one row per currency, exactly as written', async () => {
    await load({ currency_rates: catalogue().currency_rates });
    const rows = await t.db.selectFrom('currency_rates').select(['currency', sql<string>`aed_per_unit::text`.as('text')]).orderBy('currency').execute();
    expect(rows).toEqual([{ currency: 'EUR', text: '4.0123' }, { currency: 'USD', text: '3.6725' }]);
  });

  it('the importer warns in one line about project currencies without a rate; a rate ends it', async () => {
    const lines: string[] = [];
    await load({ projects: [project(5, 'CHF')] }, (line) => lines.push(line));
    expect(lines).toEqual(['warning: no exchange rate for CHF (1 project), XYZ (1 project): their prices are not converted (currency_rates section)']);
    const after: string[] = [];
    await load({ currency_rates: [{ currency: 'CHF', aed_per_unit: 4.1, as_of: AS_OF }] }, (line) => after.push(line));
    expect(after).toEqual(['warning: no exchange rate for XYZ (1 project): their prices are not converted (currency_rates section)']);
    // Back to no rate for CHF: rates are only upserted by a bundle, so the row goes by SQL.
    await sql`DELETE FROM currency_rates WHERE currency = 'CHF'`.execute(t.db);
  });

  it('a rate must name an ISO 4217 currency: a made-up code is refused, naming the record, and nothing is written', async () => {
    const before = await t.db.selectFrom('currency_rates').select(['currency']).orderBy('currency').execute();
    await expect(load({ currency_rates: [{ currency: 'GBP', aed_per_unit: 4.6, as_of: AS_OF }, { currency: 'XYZ', aed_per_unit: 0.5, as_of: AS_OF }] })).rejects.toThrow(
      'currency_rates[1].currency: XYZ is not an ISO 4217 currency code',
    );
    expect(await t.db.selectFrom('currency_rates').select(['currency']).orderBy('currency').execute()).toEqual(before);
  });

  it('a new rate reaches GET /currencies through the change signal (no restart, no explicit refresh)', async () => {
    const signalled = t.changes.catalogueVersion;
    await load({ currency_rates: [{ currency: 'GBP', aed_per_unit: 4.6512, as_of: AS_OF }] });
    // On PostgreSQL the notification reaches the app's listener a moment after the import's commit.
    await untilSignalled(t, signalled);
    const codes = (await get('/currencies')).json().data.items.map((item: { currency: string }) => item.currency);
    expect(codes).toEqual(['AED', 'EUR', 'GBP', 'USD']);
  });

  it('a changed rate moves GET /changes as a price change does: the projects in that currency and their units; restating it moves nothing', async () => {
    const start = (await get('/changes')).json().data;
    let cursor = start.next_cursor as string;
    while ((await get(`/changes?cursor=${encodeURIComponent(cursor)}`)).json().data.has_more) {
      cursor = (await get(`/changes?cursor=${encodeURIComponent(cursor)}`)).json().data.next_cursor;
    }
    const since = async (from: string) => (await get(`/changes?cursor=${encodeURIComponent(from)}`)).json().data;

    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.0123, as_of: '2026-11-21T12:00:00Z' }] });
    expect((await since(cursor)).items).toEqual([]);

    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.1, as_of: '2026-11-22T12:00:00Z' }] });
    const moved = await since(cursor);
    expect(moved.items.map((item: { type: string; id: number }) => `${item.type} ${item.id}`).sort()).toEqual(['project 2', 'unit 21']);
    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.0123, as_of: AS_OF }] });
  });

  it('a changed rate sends no webhook (no record\u2019s own answer changed: event prices are in the project\u2019s currency), while the feed lists what moved; a price change in that currency still does', async () => {
    const keyId = (await findActiveKeyByHash(t.db, hashApiKey(key)))!.id;
    const { endpoint } = await createEndpoint(t.db, { keyId, url: 'https://hooks.example.test/rates', eventTypes: ['unit.changed', 'project.changed'] });
    const messages = async () =>
      (await t.db.selectFrom('webhook_messages').select(['event_type', 'body']).where('endpoint_id', '=', endpoint.id).orderBy('created_at').orderBy('id').execute()).map(
        (row) => ({ type: row.event_type, data: JSON.parse(row.body).data as { id: number; changes?: string[]; price?: number } }),
      );
    const cursor = (await get('/changes?limit=1000')).json().data.next_cursor as string;
    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.0123, as_of: '2026-11-23T12:00:00Z' }] });
    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.2, as_of: '2026-11-24T12:00:00Z' }] });
    expect(await messages()).toEqual([]);
    const feed = (await get(`/changes?cursor=${encodeURIComponent(cursor)}`)).json().data.items as { type: string; id: number }[];
    expect(feed.map((item) => `${item.type} ${item.id}`).sort()).toEqual(['project 2', 'unit 21']);
    // A rate and a price in one import: the unit's price (in EUR), and its project's lowest price.
    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.3, as_of: '2026-11-25T12:00:00Z' }], units: [unit(21, 2, 1_218_140)] });
    const sent = await messages();
    expect(sent.map((message) => `${message.type} ${message.data.id}`).sort()).toEqual(['project.changed 2', 'unit.changed 21']);
    expect(sent.find((message) => message.type === 'unit.changed')!.data).toMatchObject({ changes: ['price'], price: 1_218_140, previous_price: 1_218_139 });
    await load({ currency_rates: [{ currency: 'EUR', aed_per_unit: 4.0123, as_of: AS_OF }], units: [unit(21, 2, 1_218_139)] });
  });

  it('the SQL form of the rule equals the JavaScript form (exact, half away from zero, minor units)', async () => {
    const cases: [cents: number, vector: number, rS: number, rT: number, target: string][] = [
      [121813900, 0, 4.0123, 1, 'AED'],
      [121813900, 2, 4.0123, 3.6725, 'USD'],
      [125, 0, 1, 2, 'USD'],
      [1005, 0, 1, 0.1, 'JPY'],
      [99999999, -7.3, 0.04392, 0.3254, 'KWD'],
      [45881000, 33.333, 3.6725, 4.0123, 'EUR'],
      [1, 100, 1e-4, 12.5, 'USD'],
    ];
    for (const [cents, vector, rS, rT, target] of cases) {
      const rule = conversion(vector, rS, rT, target);
      const { rows } = await sql<{ shown: number }>`SELECT ${convertedPriceSql(
        sql`${String(cents / 100)}::numeric`,
        vector,
        sql`${String(rS)}::numeric`,
        sql`${String(rT)}::numeric`,
        rule.digits,
      )} AS shown`.execute(t.db);
      expect([cents, vector, rS, rT, target, Number(rows[0].shown)]).toEqual([cents, vector, rS, rT, target, rule.shown(cents)]);
    }
  });
});

describe.each(drivers)('currency= on the priced reads (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  const get = async (url: string) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    return { status: response.statusCode, body: response.json() };
  };
  // +10 %: the factor applies once, to the exact converted value.
  const usd = (cents: number, from: number) => conversion(10, from, 3.6725, 'USD').shown(cents);

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key({ priceVector: 10 });
  });
  afterAll(async () => t?.close());

  it('GET /projects?currency=USD: every price in USD and `currency` says so; a project without a rate keeps its own', async () => {
    const { status, body } = await get('/projects?currency=USD&limit=10');
    expect(status).toBe(200);
    const byId = new Map(body.data.items.map((item: { id: number }) => [item.id, item]));
    expect(byId.get(1)).toMatchObject({ currency: 'USD', price_from: usd(100_000_000, 1) });
    expect(byId.get(2)).toMatchObject({ currency: 'USD', price_from: usd(121_813_900, 4.0123) });
    expect(byId.get(3)).toMatchObject({ currency: 'USD', price_from: 504691 });
    expect(byId.get(4)).toMatchObject({ currency: 'XYZ', price_from: 550000 });
    // Without currency: each project's own currency and key price, as specified.
    const plain = await get('/projects?limit=10');
    expect(plain.body.data.items.map((item: { currency: string }) => item.currency)).toEqual(['AED', 'EUR', 'USD', 'XYZ']);
    expect(plain.body.data.items[1].price_from).toBe(1339952.9);
  });

  it('price bounds are taken in the asked currency, exactly at the shown price; a project without a rate is left out', async () => {
    const eurInUsd = usd(121_813_900, 4.0123);
    const ids = async (query: string) => (await get(`/projects?currency=USD&${query}`)).body.data.items.map((item: { id: number }) => item.id);
    expect(await ids(`price_min=${eurInUsd}&price_max=${eurInUsd}`)).toEqual([2]);
    expect(await ids(`price_max=${(eurInUsd - 0.01).toFixed(2)}&price_min=1000000`)).toEqual([]);
    expect(await ids('price_min=0')).toEqual([1, 2, 3]);
    expect(await ids(`price_per_m2_min=${Math.floor(eurInUsd) / 100}`)).toEqual([2]);
    expect(await ids(`price_per_m2_min=${(Math.floor(eurInUsd) + 1) / 100}`)).toEqual([]);
    // Without currency the bounds compare with each project's own prices (the specified answer).
    expect((await get(`/projects?price_min=${eurInUsd}&price_max=${eurInUsd}`)).body.data.items).toEqual([]);
  });

  it('sort=price_from compares value (in AED, the same in every currency); without a rate, last', async () => {
    const order = async (query: string) => (await get(`/projects?sort=price_from&${query}`)).body.data.items.map((item: { id: number }) => item.id);
    // 458,810 USD = 1.68 M AED, 1,000,000 AED, 1,218,139 EUR = 4.89 M AED.
    expect(await order('')).toEqual([1, 3, 2, 4]);
    expect(await order('currency=USD')).toEqual([1, 3, 2, 4]);
    expect(await order('currency=EUR')).toEqual([1, 3, 2, 4]);
    expect((await get('/projects?sort=-price_from&currency=USD')).body.data.items.map((item: { id: number }) => item.id)).toEqual([2, 3, 1, 4]);
  });

  it('GET /projects/{id}?currency=USD: price_from, units and cost in USD', async () => {
    const { status, body } = await get('/projects/2?currency=USD');
    expect(status).toBe(200);
    expect(body.data.price_from).toBe(usd(121_813_900, 4.0123));
    expect(body.data.cost.currency).toBe('USD');
    expect(body.data.units.map((unit: { price: number }) => unit.price)).toEqual([usd(121_813_900, 4.0123)]);
    const plain = await get('/projects/2');
    expect(plain.body.data.cost.currency).toBe('EUR');
    expect(plain.body.data.units[0].price).toBe(1339952.9);
    // A project without a rate keeps its own prices and currency.
    expect((await get('/projects/4?currency=USD')).body.data).toMatchObject({ price_from: 550000, cost: { currency: 'XYZ' } });
  });

  it('GET /units/{id}?currency=: the price converted and a `currency` field; none without it', async () => {
    expect((await get('/units/21?currency=USD')).body.data).toMatchObject({ price: usd(121_813_900, 4.0123), currency: 'USD' });
    expect((await get('/units/11?currency=EUR')).body.data).toMatchObject({ price: conversion(10, 1, 4.0123, 'EUR').shown(100_000_000), currency: 'EUR' });
    expect((await get('/units/11?currency=AED')).body.data).toMatchObject({ price: 1100000, currency: 'AED' });
    const plain = (await get('/units/21')).body.data;
    expect(plain.price).toBe(1339952.9);
    expect('currency' in plain).toBe(false);
  });

  it('POST /projects/search takes `currency` as GET /projects does (same body, unrated code refused alike)', async () => {
    const post = (body: object) => t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': key }, payload: body });
    const viaGet = await t.app.inject({ method: 'GET', url: '/projects?currency=EUR&sort=price_from&limit=10', headers: { 'x-api-key': key } });
    const viaPost = await post({ currency: 'EUR', sort: 'price_from', limit: 10 });
    expect(viaPost.statusCode).toBe(200);
    expect(viaPost.body).toBe(viaGet.body);
    expect(viaPost.json().data.items[0].currency).toBe('EUR');
    expect((await post({ currency: 'XYZ' })).json()).toEqual({ status: 'error', message: 'currency XYZ has no exchange rate: use AED or a currency of GET /currencies' });
  });

  it.each(['/projects', '/projects/2', '/units/21'])('%s: an unknown or unrated currency is a 400 naming it', async (path) => {
    expect(await get(`${path}?currency=XYZ`)).toEqual({ status: 400, body: { status: 'error', message: 'currency XYZ has no exchange rate: use AED or a currency of GET /currencies' } });
    expect(await get(`${path}?currency=usd`)).toEqual({ status: 400, body: { status: 'error', message: 'currency must be a currency code of three upper-case letters (e.g. USD)' } });
  });
});
