import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/domain/api-key.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, BROKER, OWNER, UNLICENSED_AGENCY, withRecords } from './helpers/fixtures.js';

const UNKNOWN_KEY = `ck_${'0'.repeat(64)}`;

describe.each(drivers)('authentication (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, baseBundle(), (started) => ({ t, key } = started));

  const whoAmI = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/whoIAm', headers });

  it('accepts the key in X-API-Key', async () => {
    const res = await whoAmI({ 'x-api-key': key });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('success');
  });

  it('accepts Authorization: Bearer, any case of the scheme', async () => {
    expect((await whoAmI({ authorization: `Bearer ${key}` })).statusCode).toBe(200);
    expect((await whoAmI({ authorization: `bearer ${key}` })).statusCode).toBe(200);
  });

  it('accepts a bare Authorization value', async () => {
    expect((await whoAmI({ authorization: key })).statusCode).toBe(200);
  });

  it('ignores another Authorization scheme and reads X-API-Key', async () => {
    expect((await whoAmI({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': key })).statusCode).toBe(200);
    const res = await whoAmI({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'error', message: 'missing api key' });
  });

  it('prefers the Authorization key over X-API-Key when both are sent', async () => {
    const res = await whoAmI({ authorization: `Bearer ${UNKNOWN_KEY}`, 'x-api-key': key });
    expect(res.json()).toEqual({ status: 'error', message: 'invalid api key' });
  });

  it('answers 401 missing api key without a key', async () => {
    const res = await whoAmI({});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'error', message: 'missing api key' });
    expect((await whoAmI({ 'x-api-key': '   ' })).json().message).toBe('missing api key');
  });

  it.each([
    ['unknown', UNKNOWN_KEY],
    ['malformed (wrong prefix)', `xk_${'a'.repeat(64)}`],
    ['malformed (upper-case hex)', `ck_${'A'.repeat(64)}`],
    ['malformed (too short)', 'ck_abc'],
  ])('answers 401 invalid api key for an %s key', async (_case, value) => {
    const res = await whoAmI({ 'x-api-key': value });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'error', message: 'invalid api key' });
  });

  it('rejects a revoked key and accepts it again when re-activated', async () => {
    const revocable = await t.key();
    const hash = hashApiKey(revocable);
    // Presented first: the app keeps the key's hash (src/http/key-hashes.ts), never its verdict.
    expect((await whoAmI({ 'x-api-key': revocable })).statusCode).toBe(200);
    await t.db.updateTable('api_keys').set({ status: 1 }).where('key_hash', '=', hash).execute();
    expect((await whoAmI({ 'x-api-key': revocable })).json()).toEqual({ status: 'error', message: 'invalid api key' });
    await t.db.updateTable('api_keys').set({ status: 0 }).where('key_hash', '=', hash).execute();
    expect((await whoAmI({ 'x-api-key': revocable })).statusCode).toBe(200);
  });

  it('rejects a deleted key', async () => {
    const deletable = await t.key();
    await t.db.updateTable('api_keys').set({ deleted_at: new Date().toISOString() }).where('key_hash', '=', hashApiKey(deletable)).execute();
    const res = await whoAmI({ 'x-api-key': deletable });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('invalid api key');
  });

  describe('domain list', () => {
    let restricted: string;
    beforeAll(async () => {
      restricted = await t.key({ domains: ['agency.ae', 'www.agency.ae'] });
    });
    const withKey = (headers: Record<string, string>) => whoAmI({ 'x-api-key': restricted, ...headers });
    const forbidden = { status: 'error', message: 'origin is not allowed for this api key' };

    it('accepts an exactly listed Origin host, with any scheme, port or path', async () => {
      expect((await withKey({ origin: 'https://agency.ae' })).statusCode).toBe(200);
      expect((await withKey({ origin: 'http://www.agency.ae:8443' })).statusCode).toBe(200);
      expect((await withKey({ origin: 'https://AGENCY.ae' })).statusCode).toBe(200);
    });

    it('falls back to Referer when Origin is absent', async () => {
      expect((await withKey({ referer: 'https://www.agency.ae/listings?page=2' })).statusCode).toBe(200);
      const res = await withKey({ referer: 'https://other.ae/' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    });

    it('reads Origin, not Referer, when both are sent', async () => {
      const res = await withKey({ origin: 'https://evil.com', referer: 'https://agency.ae/' });
      expect(res.json()).toEqual(forbidden);
    });

    it('rejects a request with neither header', async () => {
      const res = await withKey({});
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    });

    it.each([
      ['an unlisted subdomain', 'https://blog.agency.ae'],
      ['a look-alike suffix', 'https://agency.ae.evil.com'],
      ['a look-alike prefix', 'https://evilagency.ae'],
      ['userinfo', 'https://agency.ae@evil.com'],
      ['a non-URL', 'agency.ae'],
      ['the null origin', 'null'],
      ['a non-http scheme', 'file://agency.ae'],
    ])('cannot be fooled by %s', async (_case, origin) => {
      const res = await withKey({ origin });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    });

    it('leaves a key without a domain list unrestricted', async () => {
      expect((await whoAmI({ 'x-api-key': key, origin: 'https://anything.example' })).statusCode).toBe(200);
    });
  });

  it('answers 403 for an agency without an approved licence, after the key and domain checks', async () => {
    const pending = await t.key({ companyId: UNLICENSED_AGENCY, authorId: 102 });
    const res = await whoAmI({ 'x-api-key': pending });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      status: 'error',
      message: 'agency license is required: upload a company license and wait for its approval',
    });
    // The domain check comes first.
    const restricted = await t.key({ companyId: UNLICENSED_AGENCY, authorId: 102, domains: ['pending.ae'] });
    expect((await whoAmI({ 'x-api-key': restricted, origin: 'https://x.ae' })).json().message).toBe('origin is not allowed for this api key');
  });

  it('lets the key work once the licence is approved', async () => {
    const pending = await t.key({ companyId: UNLICENSED_AGENCY, authorId: 102 });
    await t.db.updateTable('companies').set({ licence_status: 'approved' }).where('id', '=', UNLICENSED_AGENCY).execute();
    try {
      expect((await whoAmI({ 'x-api-key': pending })).statusCode).toBe(200);
    } finally {
      await t.db.updateTable('companies').set({ licence_status: 'pending' }).where('id', '=', UNLICENSED_AGENCY).execute();
    }
  });

  it('guards every catalogue route', async () => {
    const routes = ['/whoIAm', '/projects', '/projects/list', '/projects/1', '/projects/1/contacts', '/units/1', '/companies', '/areas', '/preferences', '/project-preferences'];
    for (const url of routes) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json(), url).toEqual({ status: 'error', message: 'missing api key' });
    }
    const post = await t.app.inject({ method: 'POST', url: '/units/1/applications', payload: {} });
    expect(post.json()).toEqual({ status: 'error', message: 'missing api key' });
  });

  it('checks the key before validating parameters', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/projects/abc' });
    expect(res.statusCode).toBe(401);
  });

  it('needs no key for the healthcheck, the docs and the OpenAPI document', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/openapi.yaml' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(200);
  });

  it('answers the CORS preflight without a key', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/projects',
      headers: { origin: 'https://agency.ae', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://agency.ae');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');
  });

  it('answers an OPTIONS that is not a preflight (no Origin, no method asked) with the same 204, never a bare-text error', async () => {
    for (const headers of [{}, { origin: 'https://agency.ae' }]) {
      const res = await t.app.inject({ method: 'OPTIONS', url: '/whoIAm', headers });
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
    }
  });

  it('adds CORS headers and Vary: Origin to API responses', async () => {
    const res = await whoAmI({ 'x-api-key': key, origin: 'https://agency.ae' });
    expect(res.headers['access-control-allow-origin']).toBe('https://agency.ae');
    expect(String(res.headers.vary)).toMatch(/origin/i);
  });

  it('whoIAm describes the key, its company, its author and the price factor', async () => {
    const marked = await t.key({ priceVector: 12.5, authorId: BROKER });
    const res = await whoAmI({ 'x-api-key': marked });
    const data = res.json().data;
    expect(data.api_key).toMatchObject({ name: 'test key', key_prefix: marked.slice(0, 9), status: 0, price_vector: 12.5, price_factor: 1.125 });
    expect(Number.isInteger(data.api_key.id)).toBe(true);
    expect(data.company).toEqual({ id: AGENCY, company_type: 2, name: 'Gulf Homes Realty', logo: 'companies/1/logo.png' });
    expect(data.author).toEqual({ id: BROKER, name: 'Omar Khan', email: 'omar@gulfhomes.ae' });
    expect(JSON.stringify(data)).not.toContain(marked);
    const negative = (await whoAmI({ 'x-api-key': await t.key({ priceVector: -7.3, authorId: OWNER }) })).json().data.api_key;
    expect(negative.price_factor).toBe(0.927);
  });
});
