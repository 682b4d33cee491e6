import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { buildApp, type App } from '../src/http/app.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle } from './helpers/fixtures.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
const redisUp = await redisReachable();

/** `"per-key";r=2;t=59` -> {r: 2, t: 59} */
function parseRateLimit(header: unknown): { r: number; t: number } {
  const match = /^"per-key";r=(\d+);t=(\d+)$/.exec(String(header));
  if (!match) throw new Error(`unexpected RateLimit header: ${String(header)}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

const whoAmI = (app: App, key: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key, ...headers } });

describe('rate limit configuration', () => {
  it('is off by default', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined();
  });

  it('reads the limit, the window (default 60 s) and Redis', () => {
    expect(loadConfig({ RATE_LIMIT: '100' }).rateLimit).toEqual({ limit: 100, windowS: 60, redisUrl: undefined, redisKeyPrefix: 'catalogue:' });
    expect(loadConfig({ RATE_LIMIT: '5', RATE_LIMIT_WINDOW_S: '1', REDIS_URL: 'redis://cache:6379/2', REDIS_KEY_PREFIX: 'prod:' }).rateLimit).toEqual({
      limit: 5,
      windowS: 1,
      redisUrl: 'redis://cache:6379/2',
      redisKeyPrefix: 'prod:',
    });
  });

  it.each([
    ['RATE_LIMIT', '0'],
    ['RATE_LIMIT', '-1'],
    ['RATE_LIMIT', '1.5'],
    ['RATE_LIMIT', 'lots'],
    ['RATE_LIMIT_WINDOW_S', '0'],
    ['RATE_LIMIT_WINDOW_S', 'a minute'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
  ])('stops on a bad %s (%s), naming it', (name, value) => {
    const env = { RATE_LIMIT: '10', [name]: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe.each(drivers)('rate limiting (%s)', (driver) => {
  describe('off (the default)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(driver, baseBundle());
    });
    afterAll(() => t?.close());

    it('sends no rate limit headers and never answers 429', async () => {
      const key = await t.key();
      for (let i = 0; i < 30; i++) {
        const res = await whoAmI(t.app, key);
        expect(res.statusCode).toBe(200);
        expect(res.headers.ratelimit).toBeUndefined();
        expect(res.headers['ratelimit-policy']).toBeUndefined();
        expect(res.headers['retry-after']).toBeUndefined();
      }
    });
  });

  describe('on, in process', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(driver, baseBundle(), { RATE_LIMIT: '3', RATE_LIMIT_WINDOW_S: '60' });
    });
    afterAll(() => t?.close());

    it('counts down in RateLimit, then answers 429 in the envelope with Retry-After', async () => {
      const key = await t.key();
      for (const remaining of [2, 1, 0]) {
        const res = await whoAmI(t.app, key);
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
        const { r, t: reset } = parseRateLimit(res.headers.ratelimit);
        expect(r).toBe(remaining);
        expect(reset).toBeGreaterThan(0);
        expect(reset).toBeLessThanOrEqual(60);
      }
      const limited = await whoAmI(t.app, key);
      expect(limited.statusCode).toBe(429);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.json()).toEqual({ status: 'error', message: `rate limit exceeded, retry in ${retryAfter} seconds` });
      expect(limited.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
      expect(parseRateLimit(limited.headers.ratelimit)).toEqual({ r: 0, t: retryAfter });
      // The limit covers every keyed route, not only the one that used it up.
      expect((await t.app.inject({ method: 'GET', url: '/areas', headers: { 'x-api-key': key } })).statusCode).toBe(429);
    });

    it('counts per key: another key of the same agency has its own allowance', async () => {
      const busy = await t.key();
      for (let i = 0; i < 4; i++) await whoAmI(t.app, busy);
      expect((await whoAmI(t.app, busy)).statusCode).toBe(429);
      const other = await t.key();
      const res = await whoAmI(t.app, other);
      expect(res.statusCode).toBe(200);
      expect(parseRateLimit(res.headers.ratelimit).r).toBe(2);
    });

    it('counts only requests that pass authentication', async () => {
      const key = await t.key({ domains: ['agency.example'] });
      const refused = [
        await whoAmI(t.app, key, { origin: 'https://evil.example' }),
        await whoAmI(t.app, key, { origin: 'https://evil.example' }),
        await whoAmI(t.app, key, { origin: 'https://evil.example' }),
        await whoAmI(t.app, key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a'), { origin: 'https://agency.example' }),
        await t.app.inject({ method: 'GET', url: '/whoIAm' }),
      ];
      expect(refused.map((res) => res.statusCode)).toEqual([403, 403, 403, 401, 401]);
      for (const res of refused) expect(res.headers.ratelimit).toBeUndefined();
      const res = await whoAmI(t.app, key, { origin: 'https://agency.example' });
      expect(res.statusCode).toBe(200);
      expect(parseRateLimit(res.headers.ratelimit).r).toBe(2);
    });

    it('puts the headers on every keyed response, errors included', async () => {
      const key = await t.key();
      const notFound = await t.app.inject({ method: 'GET', url: '/units/999999', headers: { 'x-api-key': key } });
      expect(notFound.statusCode).toBe(404);
      expect(notFound.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
      expect(parseRateLimit(notFound.headers.ratelimit).r).toBe(2);
    });

    it('lets the browser read the headers (CORS)', async () => {
      const res = await whoAmI(t.app, await t.key(), { origin: 'https://agency.example' });
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
      for (const header of ['ratelimit', 'ratelimit-policy', 'retry-after']) expect(exposed.split(/,\s*/)).toContain(header);
    });

    it('starts a new window when the old one ends', async () => {
      const app = await buildApp({ database: t.database, search: t.search, config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT: '1', RATE_LIMIT_WINDOW_S: '1' }), logger: false });
      try {
        const key = await t.key();
        expect((await whoAmI(app, key)).statusCode).toBe(200);
        const limited = await whoAmI(app, key);
        expect(limited.statusCode).toBe(429);
        expect(limited.headers['retry-after']).toBe('1');
        expect(limited.json().message).toBe('rate limit exceeded, retry in 1 second');
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const again = await whoAmI(app, key);
        expect(again.statusCode).toBe(200);
        expect(parseRateLimit(again.headers.ratelimit).r).toBe(0);
      } finally {
        await app.close();
      }
    });
  });

  describe('on, Redis unreachable', () => {
    let t: TestApp;
    const logged: string[] = [];
    let app: App;
    beforeAll(async () => {
      t = await createTestApp(driver, baseBundle());
      // Port 1: nothing listens there, the connection is refused at once.
      const config = loadConfig({ LOG_LEVEL: 'warn', RATE_LIMIT: '1', REDIS_URL: 'redis://127.0.0.1:1' });
      app = await buildApp({ database: t.database, search: t.search, config, logStream: { write: (line) => logged.push(line) } });
    });
    afterAll(async () => {
      await app?.close();
      await t?.close();
    });

    it('fails open: requests go through without limit headers, and a warning is logged', async () => {
      const key = await t.key();
      for (let i = 0; i < 3; i++) {
        const res = await whoAmI(app, key);
        expect(res.statusCode).toBe(200);
        expect(res.headers.ratelimit).toBeUndefined();
      }
      const warnings = logged.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
      expect(warnings.some((entry) => /redis unreachable/.test(entry.msg))).toBe(true);
      expect(logged.join('\n')).not.toContain(key);
    });
  });

  describe.skipIf(!redisUp)('on, shared through Redis', () => {
    let t: TestApp;
    let second: App;
    const prefix = `catalogue-test:${randomUUID()}:`;
    beforeAll(async () => {
      t = await createTestApp(driver, baseBundle(), { RATE_LIMIT: '4', RATE_LIMIT_WINDOW_S: '60', REDIS_URL, REDIS_KEY_PREFIX: prefix });
      // A second API process: same database, same Redis, its own memory.
      second = await buildApp({ database: t.database, search: t.search, config: t.config, logger: false });
    });
    afterAll(async () => {
      await second?.close();
      await t?.close();
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
      try {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    });

    it('shares one counter per key between the instances', async () => {
      const key = await t.key();
      const remaining: number[] = [];
      for (const app of [t.app, second, t.app, second]) {
        const res = await whoAmI(app, key);
        expect(res.statusCode).toBe(200);
        remaining.push(parseRateLimit(res.headers.ratelimit).r);
      }
      expect(remaining).toEqual([3, 2, 1, 0]);
      for (const app of [t.app, second]) {
        const limited = await whoAmI(app, key);
        expect(limited.statusCode).toBe(429);
        expect(limited.json().message).toMatch(/^rate limit exceeded, retry in \d+ seconds?$/);
      }
      const other = await whoAmI(second, await t.key());
      expect(parseRateLimit(other.headers.ratelimit).r).toBe(3);
    });

    it('keeps the counter in Redis under the configured prefix, expiring with the window', async () => {
      const key = await t.key();
      const res = await whoAmI(t.app, key);
      const { id } = res.json().data.api_key;
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
      try {
        expect(await redis.get(`${prefix}ratelimit:${id}`)).toBe('1');
        const ttl = await redis.pttl(`${prefix}ratelimit:${id}`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        redis.disconnect();
      }
    });
  });
});
