import fc from 'fast-check';
import { expect } from 'vitest';
import Fastify from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { loadConfig } from '../../src/config/config.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { displayCurrency, type ReadScope } from '../../src/domain/currency.js';
import { linkBuilder, type LinkBuilder } from '../../src/contract/links.js';
import { Success } from '../../src/contract/schemas/envelope.js';
import { buildApp, type App } from '../../src/http/app.js';
import { findActiveKeyByHash, type KeyRecord } from '../../src/queries/api-keys.js';
import { SearchModel } from '../../src/search/search-model.js';
import type { TestApp } from './app.js';
import { AGENCY, DEV_NO_CONTRACT, OWNER } from './fixtures.js';
import { hostileText } from './fuzz.js';

/*
 * What the differential tests of the detail answers from memory (unit-detail-differential.test.ts,
 * project-detail-differential.test.ts) share: drawing a catalogue from a seed, a second agency's keys,
 * a second app on the same database with other settings, and the route's response serializer applied
 * to what the SQL path gives.
 */

/** A second agency (the catalogues give it contracts of its own), and its owner. */
export const AGENCY2 = 3;
export const AGENCY2_OWNER = 103;

/** Draws from arbitraries, deterministically from the seed. */
export function drawer(seed: number) {
  let next = seed;
  return <T>(arbitrary: fc.Arbitrary<T>): T => fc.sample(arbitrary, { seed: next++, numRuns: 1 })[0];
}

/** Text the importer stores: no NUL, no lone surrogate (not Unicode; the embedded engine refuses it). */
export const storableText = hostileText.map((value) =>
  value.replaceAll('\u0000', '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
);

export type Agency = 'first' | 'second';

/** Keys of the first or second agency by price vector, made once each, with the record the routes see. */
export function keyring(t: () => TestApp) {
  const keys = new Map<string, Promise<{ secret: string; record: KeyRecord }>>();
  return (agency: Agency, priceVector: number) => {
    const name = `${agency}:${priceVector}`;
    let key = keys.get(name);
    if (!key) {
      const owner = agency === 'first' ? { companyId: AGENCY, authorId: OWNER } : { companyId: AGENCY2, authorId: AGENCY2_OWNER };
      key = t()
        .key({ ...owner, priceVector })
        .then(async (secret) => ({ secret, record: (await findActiveKeyByHash(t().db, hashApiKey(secret)))! }));
      keys.set(name, key);
    }
    return key;
  };
}

/** Another app on the test app's database and change signal, with its own search model, links and settings. */
export async function secondApp(t: TestApp, links: LinkBuilder, env: Record<string, string>): Promise<App> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const search = await SearchModel.create(t.db, { links, changes: t.changes, nearbyInMemory: config.nearbyInMemory });
  const app = await buildApp({ database: t.database, search, changes: t.changes, config, logger: false });
  await app.ready();
  return app;
}

/** The text the route's response schema (Success of `data`) writes for an envelope: the bytes the SQL path's route sent. */
export async function routeSerializer(data: TSchema) {
  let serializing: unknown;
  const app = Fastify();
  app.get('/', { schema: { response: { 200: Success(data, 'the route schema') } } }, async () => serializing);
  await app.ready();
  return {
    async serialize(envelope: unknown): Promise<string> {
      serializing = envelope;
      return (await app.inject({ method: 'GET', url: '/' })).body;
    },
    close: () => app.close(),
  };
}

/** The key's read scope, with `currency=` when asked for. */
export function scopeOf(record: KeyRecord, currency: string | undefined): ReadScope {
  return currency === undefined ? record : { ...record, display: displayCurrency(currency) };
}

/** Closes what was opened, the last opened first (each may be undefined when a setup step failed). */
export async function closeAll(...opened: ({ close(): Promise<unknown> } | undefined)[]): Promise<void> {
  for (const each of opened) await each?.close();
}

/**
 * Checks an answer against the SQL path's (undefined: the record is not visible, the same 404 as
 * every invisible record); true when the record was visible.
 */
export function expectSameAnswer(res: { statusCode: number; body: string }, expected: string | undefined, notFoundMessage: string): boolean {
  if (expected === undefined) {
    expect(res.statusCode, res.body).toBe(404);
    expect(res.body).toBe(JSON.stringify({ status: 'error', message: notFoundMessage }));
    return false;
  }
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).toBe(expected);
  return true;
}

/** The contracts of the catalogues: the first agency with `dev2` too, the second with `dev2` and the one the first has none with. */
export function contractsWith(dev2: number) {
  return [
    { agency_id: AGENCY, developer_id: dev2, status: 'approved' },
    { agency_id: AGENCY2, developer_id: DEV_NO_CONTRACT, status: 'approved' },
    { agency_id: AGENCY2, developer_id: dev2, status: 'approved' },
  ];
}

/** Rates of currencies the catalogues price projects in (AED is 1; XYZ, also used, has none). */
export const RATES = [
  { currency: 'USD', aed_per_unit: 3.6725, as_of: '2026-11-20T12:00:00Z' },
  { currency: 'EUR', aed_per_unit: 4.0, as_of: '2026-11-20T12:00:00Z' },
  { currency: 'JPY', aed_per_unit: 0.02391, as_of: '2026-11-20T12:00:00Z' },
  { currency: 'KWD', aed_per_unit: 11.9483, as_of: '2026-11-20T12:00:00Z' },
];

/** The first app's STATIC_BASE_URL, and the links with and without it (the second app has none). */
export const STATIC_BASE = 'https://cdn.example.test/media/';
export const LINKS = { withBase: linkBuilder(STATIC_BASE), without: linkBuilder(undefined) };

/**
 * Waits until the app's change signal is past `signalled` (the catalogue version before a write): the
 * details are answered from the snapshot, which serves a change from its signal on.
 */
export async function untilSignalled(t: TestApp, signalled: number): Promise<void> {
  for (let waited = 0; t.changes.catalogueVersion === signalled; waited += 5) {
    if (waited > 5_000) throw new Error('no change signal within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
