import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseCoding, COMPRESSION_THRESHOLD } from '../src/bodies/compression.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';

/*
 * Response compression (gzip, Brotli) and its interplay with conditional GETs. The detail of project
 * 1 is large (~20 kB: a long description and nearby facilities, sent through the raw-JSON path) and
 * goes through @fastify/compress's stream path; the flat list (~1.5 kB) through its synchronous path;
 * /whoIAm stays below the threshold.
 */
const AT = { lat: 25.08, lng: 55.14 };
const PROJECTS = 40;

const bundle = withRecords(baseBundle(), {
  projects: Array.from({ length: PROJECTS }, (_, i) => ({
    id: i + 1,
    company_id: DEV,
    area_id: 1,
    name: `Tower ${String(i + 1).padStart(2, '0')}`,
    description: i === 0 ? 'Waterfront living with views of the marina. '.repeat(450) : 'Short.',
    currency: 'AED',
    latitude: AT.lat,
    longitude: AT.lng,
  })),
  units: [{ id: 100, project_id: 1, unit_number: 'A-1', price: 1_500_000, unit_area: 80 }],
  facilities: Array.from({ length: 30 }, (_, i) => ({
    category: 'transport',
    source_id: `T-${i}`,
    data: { name: `Stop ${i}`, asset_latitude: AT.lat + i / 10_000, asset_longitude: AT.lng },
  })),
});

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('base64url');
const decode = { gzip: gunzipSync, br: brotliDecompressSync } as const;

describe.each(drivers)('response compression (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, bundle, (started) => ({ t, key } = started));

  const request = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url, headers: { 'x-api-key': key, ...headers } });

  const urls = ['/projects/1', '/projects/list', `/projects?limit=${PROJECTS}`];

  it('compresses with gzip or Brotli as accepted, the decoded body being the identity body byte for byte', async () => {
    for (const url of urls) {
      const identity = await request(url);
      expect(identity.rawPayload.length, url).toBeGreaterThanOrEqual(COMPRESSION_THRESHOLD);
      for (const coding of ['gzip', 'br'] as const) {
        const res = await request(url, { 'accept-encoding': coding });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-encoding'], url).toBe(coding);
        expect(res.headers['content-type'], url).toBe('application/json; charset=utf-8');
        expect(res.headers.vary, url).toMatch(/accept-encoding/i);
        expect(res.rawPayload.length, url).toBeLessThan(identity.rawPayload.length);
        expect(decode[coding](res.rawPayload).equals(identity.rawPayload), `${url} ${coding}`).toBe(true);
      }
    }
  });

  it('prefers Brotli, honours weights, never uses a coding weighted 0, and reads * as every coding not named (RFC 9110 §12.5.3)', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip;q=0, br', 'br'],
      ['*', 'br'],
      ['gzip;q=0, *', 'br'],
      ['br;q=0, *', 'gzip'],
      ['br;q=0, gzip;q=0, *', undefined],
      ['*;q=0', undefined],
      ['br;q=0.5, *;q=0.8', 'gzip'],
      ['x-gzip', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const res = await request('/projects/1', { 'accept-encoding': acceptEncoding });
      expect(res.headers['content-encoding'], acceptEncoding).toBe(expected);
    }
  });

  it('sends the identity body, unchanged, without Accept-Encoding, below the threshold, or with x-no-compression', async () => {
    const plain = await request('/projects/1');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.etag).toBe(`"${sha256(plain.rawPayload)}"`);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(plain.body).data.id).toBe(1);

    const small = await request('/whoIAm', { 'accept-encoding': 'gzip, br' });
    expect(small.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.etag).toBe(`"${sha256(small.rawPayload)}"`);

    const refused = await request('/projects/1', { 'accept-encoding': 'gzip', 'x-no-compression': '1' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.rawPayload.equals(plain.rawPayload)).toBe(true);
    expect(refused.headers.etag).toBe(plain.headers.etag);
  });

  it('gives each representation its own strong ETag and answers 304 only to the ETag of the representation the request would get', async () => {
    const identity = await request('/projects/1');
    const gzip = await request('/projects/1', { 'accept-encoding': 'gzip' });
    const br = await request('/projects/1', { 'accept-encoding': 'br' });
    const hash = sha256(identity.rawPayload);
    expect([identity.headers.etag, gzip.headers.etag, br.headers.etag]).toEqual([`"${hash}"`, `"${hash}-gzip"`, `"${hash}-br"`]);

    const notModified = await request('/projects/1', { 'accept-encoding': 'gzip', 'if-none-match': String(gzip.headers.etag) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    expect(notModified.headers.etag).toBe(gzip.headers.etag);
    expect(notModified.headers.vary).toMatch(/accept-encoding/i);
    expect(notModified.headers['content-encoding']).toBeUndefined();

    // A validator of another representation does not match: the full body comes, in the coding asked for.
    const identityTagGzipAsked = await request('/projects/1', { 'accept-encoding': 'gzip', 'if-none-match': String(identity.headers.etag) });
    expect(identityTagGzipAsked.statusCode).toBe(200);
    expect(identityTagGzipAsked.headers['content-encoding']).toBe('gzip');
    const gzipTagIdentityAsked = await request('/projects/1', { 'if-none-match': String(gzip.headers.etag) });
    expect(gzipTagIdentityAsked.statusCode).toBe(200);
    expect(gzipTagIdentityAsked.rawPayload.equals(identity.rawPayload)).toBe(true);
    const brTagGzipAsked = await request('/projects/1', { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers.etag) });
    expect(brTagGzipAsked.statusCode).toBe(200);
    // A list holding the right one matches.
    const listed = await request('/projects/1', { 'accept-encoding': 'br', 'if-none-match': `${identity.headers.etag}, ${br.headers.etag}` });
    expect(listed.statusCode).toBe(304);
  });

  it('answers HEAD with the headers GET would send, and no body', async () => {
    for (const coding of [undefined, 'gzip', 'br']) {
      const headers: Record<string, string> = coding ? { 'accept-encoding': coding } : {};
      const get = await request('/projects/1', headers);
      const head = await request('/projects/1', headers, 'HEAD');
      expect(head.statusCode, coding).toBe(200);
      expect(head.rawPayload.length, coding).toBe(0);
      expect(head.headers.etag, coding).toBe(get.headers.etag);
      expect(head.headers['content-encoding'], coding).toBe(get.headers['content-encoding']);
      expect(head.headers.vary, coding).toBe(get.headers.vary);
      // The size of the body GET sends in that coding.
      expect(Number(head.headers['content-length']), coding).toBe(get.rawPayload.length);
    }
  });

  it('sends errors as they were: uncompressed envelopes without an ETag', async () => {
    const cases = [
      { url: '/projects/999', key, status: 404, message: 'project not found' },
      { url: '/projects?limit=0', key, status: 400 },
      { url: '/projects/1', key: 'ck_wrong', status: 401, message: 'invalid api key' },
      { url: '/nowhere', key, status: 404, message: 'route not found' },
    ];
    for (const { url, key: apiKey, status, message } of cases) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, 'accept-encoding': 'gzip, br' } });
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-encoding'], url).toBeUndefined();
      expect(res.headers.etag, url).toBeUndefined();
      expect(res.json().status, url).toBe('error');
      if (message) expect(res.json().message, url).toBe(message);
    }
  });

  it('the ETag always names the coding @fastify/compress actually applied (random Accept-Encoding headers)', async () => {
    const token = fc.constantFrom('gzip', 'br', 'deflate', 'identity', '*', 'x-gzip', 'compress', 'zstd', 'GZIP', 'Br', 'unknown');
    const weight = fc.option(fc.constantFrom('0', '0.001', '0.5', '1', '1.0', '0.9'), { nil: undefined });
    const header = fc
      .array(fc.tuple(token, weight, fc.constantFrom('', ' ')), { minLength: 0, maxLength: 4 })
      .map((parts) => parts.map(([name, q, space]) => `${name}${q === undefined ? '' : `;${space}q=${q}`}`).join(', '));
    const identity = await request('/projects/1');
    const hash = sha256(identity.rawPayload);
    await fc.assert(
      fc.asyncProperty(header, async (acceptEncoding) => {
        const res = await request('/projects/1', { 'accept-encoding': acceptEncoding });
        const coding = res.headers['content-encoding'] as 'gzip' | 'br' | undefined;
        expect(res.headers.etag).toBe(coding ? `"${hash}-${coding}"` : `"${hash}"`);
        // RFC 9110 §12.5.3: never a refused coding, never one the client weights below another.
        const weights = { br: weightIn(acceptEncoding, 'br'), gzip: weightIn(acceptEncoding, 'gzip') };
        if (coding) expect(weights[coding], acceptEncoding).toBeGreaterThan(0);
        expect(Math.max(weights.br, weights.gzip) > 0, acceptEncoding).toBe(coding !== undefined);
        if (coding) expect(weights[coding], acceptEncoding).toBe(Math.max(weights.br, weights.gzip));
        const body = coding ? decode[coding](res.rawPayload) : res.rawPayload;
        expect(body.equals(identity.rawPayload)).toBe(true);
      }),
      { seed: 20261124, numRuns: 60 },
    );
  });
});

/** Test oracle: the weight RFC 9110 §12.5.3 gives `coding` in an Accept-Encoding header (0: refused). */
function weightIn(header: string, coding: 'br' | 'gzip'): number {
  const elements = header
    .split(',')
    .map((element) => element.split(';').map((part) => part.trim().toLowerCase()))
    .filter(([name]) => name)
    .map(([name, q]) => ({ name: name === 'x-gzip' ? 'gzip' : name, q: q === undefined ? 1 : Number(q.replace(/^q=/, '')) }));
  const named = elements.find((element) => element.name === coding);
  return named ? named.q : (elements.find((element) => element.name === '*')?.q ?? 0);
}

describe('chooseCoding (Accept-Encoding negotiation, RFC 9110 §12.5.3)', () => {
  it.each([
    ['*', 'br'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, gzip;q=0, *', undefined],
    ['*, gzip;q=0', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['*;q=0.5, gzip;q=0.4', 'br'],
    ['br;q=0.3, *;q=0.2', 'br'],
    ['gzip, br', 'br'],
    ['GZIP;Q=0.5, BR;q=0.2', 'gzip'],
    ['x-gzip;q=0.7, br;q=0.6', 'gzip'],
    ['deflate, identity', undefined],
    ['', undefined],
  ] as const)('%j → %s', (header, expected) => {
    expect(chooseCoding(header)).toBe(expected);
  });

  it('sends nothing compressed without the header', () => {
    expect(chooseCoding(undefined)).toBeUndefined();
  });
});
