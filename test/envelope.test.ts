import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle } from './helpers/fixtures.js';

describe.each(drivers)('envelope and errors (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, baseBundle(), (started) => ({ t, key } = started));

  it('wraps an unknown route in the error envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'error', message: 'route not found' });
  });

  it('wraps an unknown method in the error envelope', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/areas', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(404);
    expect(res.json().status).toBe('error');
  });

  it('answers a schema failure with 400 naming the parameter', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/project-preferences?type=9', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'type must be 1 (features) or 2 (amenities)' });
  });

  it('rejects repeated scalar parameters', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/project-preferences?type=1&type=2', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^type /);
  });

  it('turns an unexpected failure into 500 internal server error, cause only in the log', async () => {
    const logged: string[] = [];
    const { buildApp } = await import('../src/http/app.js');
    const failing = await buildApp({
      database: t.database,
      search: t.search,
      config: { ...t.config, logLevel: 'error' },
      logStream: { write: (line: string) => logged.push(line) },
      keyLookup: async () => {
        throw new Error('relation "secret_table" does not exist');
      },
    });
    const res = await failing.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } });
    await failing.close();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', message: 'internal server error' });
    expect(res.body).not.toContain('secret_table');
    expect(logged.join('')).toContain('secret_table');
  });

  it('sends a request id, echoing a sane incoming one', async () => {
    const generated = await t.app.inject({ method: 'GET', url: '/health' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'trace-42' } });
    expect(echoed.headers['x-request-id']).toBe('trace-42');
    const unsafe = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'a b\u0000c' } });
    expect(unsafe.headers['x-request-id']).not.toBe('a b\u0000c');
  });

  it('never logs the API key', async () => {
    const logged: string[] = [];
    const { buildApp } = await import('../src/http/app.js');
    const app = await buildApp({
      database: t.database,
      search: t.search,
      // At debug, where headers are logged (test/request-log.test.ts: none at info).
      config: { ...t.config, logLevel: 'debug' },
      logStream: { write: (line: string) => logged.push(line) },
    });
    await app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } });
    await app.inject({ method: 'GET', url: '/whoIAm', headers: { authorization: `Bearer ${key}` } });
    await app.close();
    const text = logged.join('\n');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(key);
  });

  it('reports database health without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.json()).toEqual({
      status: 'success',
      data: {
        database: 'up',
        driver,
        catalogue_version: t.changes.catalogueVersion,
        change_signal: 'listening',
        search: { catalogue_version: t.search.current().catalogueVersion, built_at: t.search.builtAt.toISOString(), build_ms: Math.round(t.search.current().buildMs) },
        webhooks: { pending: 0, oldest_pending_age_s: null, held: 0, as_of: expect.any(String) },
      },
    });
    // The snapshot in service holds every catalogue version signalled so far.
    expect(res.json().data.search.catalogue_version).toBe(t.changes.catalogueVersion);
  });
});
