import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { etagOf } from '../src/bodies/http-cache.js';
import { importBundle } from '../src/import/import-bundle.js';
import { compressedBodyRequests, identityBodyRequests } from '../src/metrics/instruments.js';
import type { Snapshot } from '../src/search/snapshot.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * Compressed once (src/details/compressed-once.ts): a detail answer asked again with the same record, key
 * prices, selection and coding is sent from the snapshot's cache of compressed bytes, not compressed
 * again, with the ETag and headers a body compressed on the way out gets; every input of the body is
 * in the key; the cache goes with its snapshot.
 */

const catalogue = (price: number): Bundle =>
  withRecords(baseBundle(), {
    currency_rates: [{ currency: 'USD', aed_per_unit: 3.6725, as_of: '2026-11-20T12:00:00Z' }],
    projects: [{ id: 100, company_id: DEV, name: 'Marina Heights', area_id: 1, description: 'A long description. '.repeat(60) }],
    units: [
      { id: 1000, project_id: 100, unit_number: 'A-1', price, bedrooms: 2, tag_ids: [1, 2] },
      { id: 1001, project_id: 100, unit_number: 'A-2', price: 2_000_000.5, bedrooms: 3 },
    ],
  });

const decode = (res: LightMyRequestResponse) => {
  const coding = res.headers['content-encoding'];
  return coding === 'br' ? brotliDecompressSync(res.rawPayload) : coding === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload;
};

async function counted(result: 'hit' | 'miss'): Promise<number> {
  return (await compressedBodyRequests.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
}

async function countedIdentity(result: 'hit' | 'miss'): Promise<number> {
  return (await identityBodyRequests.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
}

describe.each(drivers)('compressed once (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let markup: string;

  useTestApp(driver, catalogue(1_234_567.89), async (started) => {
    ({ t, key } = started);
    markup = await started.t.key({ priceVector: 12.5 });
  });

  const get = (url: string, headers: Record<string, string> = {}, as = key) =>
    t.app.inject({ method: 'GET', url, headers: { 'x-api-key': as, ...headers } });

  it.each(['br', 'gzip'])('sends a %s body asked again from the cache, byte for byte, with the ETag of the identity body', async (coding) => {
    const url = '/units/1000';
    const identity = await get(url);
    expect(identity.headers['content-encoding']).toBeUndefined();
    const [hits, misses] = [await counted('hit'), await counted('miss')];
    const first = await get(url, { 'accept-encoding': coding });
    const second = await get(url, { 'accept-encoding': coding });
    // Compressed for the first request only.
    expect(await counted('miss')).toBe(misses + 1);
    expect(await counted('hit')).toBe(hits + 1);
    for (const res of [first, second]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(coding);
      expect(res.headers.etag).toBe(etagOf(identity.rawPayload, coding as 'br' | 'gzip'));
      expect(decode(res).equals(identity.rawPayload)).toBe(true);
    }
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers).toEqual({ ...first.headers, date: second.headers.date, 'x-request-id': second.headers['x-request-id'] });
  });

  it('answers with the headers of a body compressed on the way out (GET /projects/{id}, not cached)', async () => {
    const cached = await get('/units/1001', { 'accept-encoding': 'br' });
    const compressed = await get('/projects/100', { 'accept-encoding': 'br' });
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(Object.keys(cached.headers).sort()).toEqual(Object.keys(compressed.headers).sort());
    for (const name of ['content-type', 'cache-control', 'vary', 'content-encoding']) expect(cached.headers[name]).toBe(compressed.headers[name]);
    expect(Number(cached.headers['content-length'])).toBe(cached.rawPayload.length);
  });

  it('keeps apart every input of the body: record, key prices, currency, selection, coding', async () => {
    const asks: [string, Record<string, string>, string][] = [
      ['/units/1000', { 'accept-encoding': 'br' }, key],
      ['/units/1000', { 'accept-encoding': 'br' }, markup],
      ['/units/1000?currency=USD', { 'accept-encoding': 'br' }, key],
      ['/units/1000?currency=USD', { 'accept-encoding': 'br' }, markup],
      ['/units/1000?fields=price,project,preferences', { 'accept-encoding': 'br' }, key],
      ['/units/1000?fields=project,price,preferences', { 'accept-encoding': 'br' }, markup],
      ['/units/1001', { 'accept-encoding': 'br' }, key],
      ['/units/1000', { 'accept-encoding': 'gzip' }, markup],
    ];
    // Twice through, in an order where each answer follows another one's.
    for (const _ of [1, 2]) {
      for (const [url, headers, as] of asks) {
        const res = await get(url, headers, as);
        expect(res.headers['content-encoding']).toBe(headers['accept-encoding']);
        expect(decode(res).toString()).toBe((await get(url, {}, as)).body);
      }
    }
  });

  it('answers If-None-Match with 304 and HEAD with the GET headers from the cached entry', async () => {
    const url = '/units/1000?currency=USD';
    const first = await get(url, { 'accept-encoding': 'br' });
    const hits = await counted('hit');
    const unchanged = await get(url, { 'accept-encoding': 'br', 'if-none-match': first.headers.etag as string });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    expect(unchanged.headers.etag).toBe(first.headers.etag);
    for (const name of ['content-encoding', 'content-type', 'content-length']) expect(unchanged.headers[name]).toBeUndefined();
    const head = await t.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': key, 'accept-encoding': 'br' } });
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    for (const name of ['content-encoding', 'etag', 'content-length', 'vary']) expect(head.headers[name]).toBe(first.headers[name]);
    expect(await counted('hit')).toBe(hits + 2);
  });

  it('sends small bodies and answers to clients without compression uncompressed, none in the compressed cache', async () => {
    const misses = await counted('miss');
    const small = await get('/units/1000?fields=id,price', { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.etag).toBe(etagOf(small.rawPayload));
    const refused = await get('/units/1000', { 'accept-encoding': 'br', 'x-no-compression': '1' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.headers.etag).toBe(etagOf(refused.rawPayload));
    expect(await counted('miss')).toBe(misses);
  });

  it('keeps the bodies sent without compression too, per key prices and selection, with their ETag', async () => {
    // None asked before without compression: the first pass makes and keeps each one.
    const asks: [string, string][] = [
      ['/units/1001?currency=USD', key],
      ['/units/1001?currency=USD', markup],
      ['/units/1001?fields=id,price,project', key],
      ['/projects/100?nearby=summary&nearby_limit=3', key],
      ['/projects/100?fields=name,units&nearby_limit=3', markup],
    ];
    const first = new Map<string, LightMyRequestResponse>();
    const missesBefore = await countedIdentity('miss');
    for (const [url, as] of asks) first.set(`${url} ${as}`, await get(url, {}, as));
    const [hits, misses] = [await countedIdentity('hit'), await countedIdentity('miss')];
    expect(misses).toBe(missesBefore + asks.length);
    for (const [url, as] of asks) {
      const again = await get(url, {}, as);
      const made = first.get(`${url} ${as}`)!;
      expect(again.statusCode).toBe(200);
      expect(again.headers['content-encoding']).toBeUndefined();
      expect(again.rawPayload.equals(made.rawPayload)).toBe(true);
      expect(again.headers.etag).toBe(etagOf(made.rawPayload));
      expect(again.headers).toEqual({ ...made.headers, date: again.headers.date, 'x-request-id': again.headers['x-request-id'] });
    }
    expect(await countedIdentity('hit')).toBe(hits + asks.length);
    expect(await countedIdentity('miss')).toBe(misses);
    // The key prices are in the key: the two keys' kept bodies differ.
    const usd = (as: string) => first.get(`/units/1001?currency=USD ${as}`)!;
    expect(usd(key).json().data.price).not.toBe(usd(markup).json().data.price);
    const unchanged = await get('/units/1001?currency=USD', { 'if-none-match': usd(key).headers.etag as string });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
  });

  it('drops the compressed bodies with the snapshot: the next import is compressed anew', async () => {
    const before = await get('/units/1000', { 'accept-encoding': 'br' });
    const old = await t.search.latest();
    expect(t.details.bodies.compressedBodies(old)).toBeGreaterThan(0);
    await importBundle(t.db, catalogue(999_999.99), { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
    await t.refresh();
    // The import's own change signal may ask for another build of the same catalogue, which can swap in
    // a second snapshot (with empty caches) at any moment: what a request kept is counted over the
    // snapshot current before it and the one current after it.
    const keptAround = async (ask: () => Promise<unknown>, count: (snapshot: Snapshot) => number): Promise<number> => {
      const from = t.search.current();
      await ask();
      const to = t.search.current();
      return count(from) + (to === from ? 0 : count(to));
    };
    const misses = await counted('miss');
    let after: Awaited<ReturnType<typeof get>> | undefined;
    const compressed = await keptAround(async () => (after = await get('/units/1000', { 'accept-encoding': 'br' })), (snapshot) => t.details.bodies.compressedBodies(snapshot));
    expect(compressed).toBe(1);
    expect(await counted('miss')).toBe(misses + 1);
    expect(JSON.parse(decode(after!).toString()).data.price).toBe(999_999.99);
    expect(after!.headers.etag).not.toBe(before.headers.etag);
    // The identity bodies go too.
    expect(t.details.bodies.identityBodies(old).bodies).toBeGreaterThan(0);
    let identity: Awaited<ReturnType<typeof get>> | undefined;
    const kept = await keptAround(async () => (identity = await get('/units/1000')), (snapshot) => t.details.bodies.identityBodies(snapshot).bodies);
    expect(identity!.json().data.price).toBe(999_999.99);
    expect(kept).toBe(1);
  });
});
