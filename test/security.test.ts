import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle } from './helpers/fixtures.js';

/*
 * Response headers that protect browsers, and the domain list against hostile Origin/Referer values.
 * Cases already in auth.test.ts (subdomain, look-alike prefix/suffix, userinfo, null, non-URL, other
 * scheme; accepted port, path and case) are not repeated here.
 */
describe.each(drivers)('security (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let restricted: string;

  useTestApp(driver, baseBundle(), async (started) => {
    ({ t, key } = started);
    restricted = await t.key({ domains: ['agency.example'] });
  });

  const whoAmI = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/whoIAm', headers });

  it('sends X-Content-Type-Options: nosniff on every response', async () => {
    const responses = [
      await whoAmI({ 'x-api-key': key }),
      await whoAmI({}),
      await t.app.inject({ method: 'GET', url: '/no-such-route' }),
      await t.app.inject({ method: 'GET', url: '/health' }),
      await t.app.inject({ method: 'GET', url: '/openapi.json' }),
      await t.app.inject({ method: 'GET', url: '/openapi.yaml' }),
      await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' }),
      // Answered by the router itself, before any hook.
      await t.app.inject({ method: 'GET', url: '/projects/%zz', headers: { 'x-api-key': key } }),
    ];
    expect(responses.map((res) => res.statusCode)).toEqual([200, 401, 404, 200, 200, 200, 200, 400]);
    for (const res of responses) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  describe('the docs site', () => {
    it('sends a Content-Security-Policy that allows its own inline script by hash only', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/' });
      expect(res.statusCode).toBe(200);
      const directives = new Map(
        String(res.headers['content-security-policy'])
          .split(';')
          .map((directive) => directive.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values] as const),
      );
      expect(directives.get('default-src')).toEqual(["'none'"]);
      expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
      expect(directives.get('base-uri')).toEqual(["'none'"]);
      expect(directives.get('connect-src')).toEqual(["'self'"]);
      expect(directives.get('font-src')).toEqual(["'self'", 'data:']);
      const inline = [...res.body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
      expect(inline.length).toBeGreaterThan(0);
      const hashes = inline.map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`);
      expect(directives.get('script-src')).toEqual(["'self'", ...hashes]);
      // The page loads nothing from elsewhere: Scalar's CDN fonts are switched off.
      expect(res.body).toContain('"withDefaultFonts": false');
    });

    it('cannot be framed, leaks no referrer and is not sniffed', async () => {
      for (const url of ['/docs', '/docs/']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.headers['x-frame-options'], url).toBe('DENY');
        expect(res.headers['referrer-policy'], url).toBe('no-referrer');
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
    });
  });

  describe('CORS', () => {
    it('sends Vary: Origin on errors, and on responses to requests without Origin', async () => {
      // A shared cache must not reuse a response made for one origin (or none) for another.
      for (const res of [await whoAmI({ origin: 'https://agency.example' }), await whoAmI({ 'x-api-key': key })]) {
        expect(String(res.headers.vary)).toMatch(/\borigin\b/i);
      }
    });

    it('answers the preflight with the requesting origin and Vary: Origin', async () => {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: '/whoIAm',
        headers: { origin: 'https://agency.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key,if-none-match' },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://agency.example');
      expect(String(res.headers.vary)).toMatch(/\borigin\b/i);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('if-none-match');
    });
  });

  describe('domain list against hostile Origin and Referer values', () => {
    const forbidden = { status: 'error', message: 'origin is not allowed for this api key' };
    const withKey = (headers: Record<string, string>) => whoAmI({ 'x-api-key': restricted, ...headers });

    it.each([
      ['the listed domain as a subdomain of another', 'https://agency.example.evil.com'],
      ['the listed domain in the path', 'https://evil.com/agency.example'],
      ['the listed domain in the query', 'https://evil.com/?host=agency.example'],
      ['the listed domain as userinfo with a port', 'https://agency.example:443@evil.com'],
      ['a backslash before @', 'https://evil.com\\@agency.example'],
      ['two trailing dots', 'https://agency.example..'],
      ['a homograph, as browsers send it (punycode)', 'https://xn--gency-88d.example'],
      ['two origins in one header', 'https://agency.example https://evil.com'],
      ['two origins separated by a comma', 'https://agency.example, https://evil.com'],
      ['an empty host', 'https://'],
    ])('refuses %s', async (_case, origin) => {
      const res = await withKey({ origin });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    });

    it('accepts the listed host whatever its case, port or trailing dot (the same host)', async () => {
      for (const origin of ['https://AGENCY.Example', 'https://agency.example:8443', 'http://agency.example:80', 'https://agency.example.']) {
        expect((await withKey({ origin })).statusCode, origin).toBe(200);
      }
    });

    it('refuses a Referer whose path or query names the listed domain', async () => {
      for (const referer of ['https://evil.com/agency.example/page', 'https://evil.com/https://agency.example/', 'https://evil.com/?r=https://agency.example']) {
        const res = await withKey({ referer });
        expect(res.statusCode, referer).toBe(403);
      }
      expect((await withKey({ referer: 'https://agency.example/listings/42?page=2#map' })).statusCode).toBe(200);
    });

    it('does not fall back to Referer when Origin is null (sandboxed frames, redirects)', async () => {
      const res = await withKey({ origin: 'null', referer: 'https://agency.example/page' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    });

    describe('on the wire', () => {
      // inject cannot send a header twice, nor raw non-ASCII bytes; a real socket can.
      let port: number;
      beforeAll(async () => {
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        const address = t.app.server.address();
        port = typeof address === 'object' && address ? address.port : 0;
      });

      const send = (originLines: Buffer) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(`GET /whoIAm HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-API-Key: ${restricted}\r\n`);
            socket.write(Buffer.concat([originLines, Buffer.from('\r\n')]));
          });
          let data = '';
          socket.on('data', (chunk) => (data += chunk));
          socket.on('end', () => resolve(data));
          socket.on('error', reject);
        });

      it('refuses two Origin headers', async () => {
        const raw = await send(Buffer.from('Origin: https://evil.com\r\nOrigin: https://agency.example\r\n'));
        expect(raw).toMatch(/^HTTP\/1\.1 403 /);
        expect(raw).toContain('"origin is not allowed for this api key"');
      });

      it('refuses a homograph sent as raw UTF-8 (Cyrillic a)', async () => {
        const raw = await send(Buffer.from('Origin: https://\u0430gency.example\r\n', 'utf8'));
        expect(raw).toMatch(/^HTTP\/1\.1 403 /);
        expect(raw).toContain('"origin is not allowed for this api key"');
      });
    });
  });

  it('bounds how long a client may take to send a request or keep a connection idle', async () => {
    await t.app.ready();
    expect(t.app.server.requestTimeout).toBe(30_000);
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    expect(t.app.server.timeout).toBe(90_000);
  });
});
