import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CatalogueApiError, CatalogueClient } from '../sdk/src/index.js';
import { retryAfterSeconds } from '../sdk/src/errors.js';
import { retryDelayMs } from '../sdk/src/retry.js';

/*
 * The SDK's retry rules against a scripted HTTP server (the real service cannot be made to answer
 * 500 or 503 on demand): which requests are resent, how often, after how long, with what body.
 */
interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  body: string;
}

let server: Server;
let baseUrl: string;
let script: Array<{ status: number; headers?: Record<string, string>; body: unknown }> = [];
let seen: Seen[] = [];

const success: (typeof script)[number] = { status: 200, body: { status: 'success', data: { total: 0, items: [] } } };
const unavailable = { status: 503, headers: { 'retry-after': '0' }, body: { status: 'error', message: 'service unavailable, retry later' } };
const internal = { status: 500, body: { status: 'error', message: 'internal server error' } };

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    seen.push({ method: request.method!, url: request.url!, idempotencyKey: request.headers['idempotency-key'] as string | undefined, body: await readBody(request) });
    const next = script.shift() ?? success;
    response.writeHead(next.status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...next.headers });
    response.end(JSON.stringify(next.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  script = [];
  seen = [];
});

const client = (retries = 2) => new CatalogueClient({ baseUrl, apiKey: 'ck_test', retry: { retries, baseDelayMs: 1, maxDelayMs: 2_000 } });
const application = { client: { first_name: 'Amal', email: 'amal@example.com' } };

describe('SDK retries', () => {
  it('resends a read after 503 and 500, then returns the success', async () => {
    script = [unavailable, internal];
    await expect(client().listProjects({ bedrooms: '2' })).resolves.toEqual({ total: 0, items: [] });
    expect(seen.map((request) => request.url)).toEqual(Array(3).fill('/projects?bedrooms=2'));
  });

  it('gives up after `retries` further attempts and throws the last error with its message, status and request id', async () => {
    script = [unavailable, unavailable, unavailable, unavailable];
    const error = await client(2).listProjects().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogueApiError);
    expect(error).toMatchObject({ status: 503, message: 'service unavailable, retry later', requestId: 'req-3', retryAfterSeconds: 0 });
    expect(seen).toHaveLength(3);
  });

  it('never resends a 4xx', async () => {
    script = [{ status: 400, body: { status: 'error', message: 'querystring/price_min must be >= 0' } }];
    await expect(client().listProjects({ price_min: -1 })).rejects.toMatchObject({ status: 400, message: 'querystring/price_min must be >= 0' });
    expect(seen).toHaveLength(1);
  });

  it('sends an application without Idempotency-Key exactly once, even on 503', async () => {
    script = [unavailable];
    await expect(client().submitApplication(7, application)).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('resends an application with Idempotency-Key, with the same key and the same body', async () => {
    script = [unavailable, { status: 201, body: { status: 'success', data: { offer: { id: 1 } } } }];
    await expect(client().submitApplication(7, application, { idempotencyKey: 'attempt-1' })).resolves.toEqual({ offer: { id: 1 } });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request).toMatchObject({ method: 'POST', url: '/units/7/applications', idempotencyKey: 'attempt-1' });
      expect(JSON.parse(request.body)).toEqual(application);
    }
  });

  it('waits as long as Retry-After says', async () => {
    script = [{ ...unavailable, headers: { 'retry-after': '1' } }];
    const started = performance.now();
    await client().listProjects();
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than maxDelayMs: the error is returned at once', async () => {
    script = [{ ...unavailable, headers: { 'retry-after': '60' } }];
    await expect(client().listProjects()).rejects.toMatchObject({ status: 503, retryAfterSeconds: 60 });
    expect(seen).toHaveLength(1);
  });

  it('retries a read whose connection failed, and throws the network error in the end', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    const offline = new CatalogueClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'ck_test', fetch: counting, retry: { retries: 2, baseDelayMs: 1 } });
    await expect(offline.whoAmI()).rejects.toThrow(TypeError);
    expect(attempts).toBe(3);
  });

  it('a proxy answer that is not the envelope still gives an error with the status', async () => {
    const error = CatalogueApiError.fromResponse(new Response('Bad Gateway', { status: 502 }), 'Bad Gateway');
    expect(error).toMatchObject({ status: 502, message: 'HTTP 502: Bad Gateway', requestId: undefined });
  });
});

describe('backoff', () => {
  const settings = { retries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles per attempt with full jitter, capped at maxDelayMs', () => {
    expect([0, 1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, null, settings, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
    expect(retryDelayMs(3, null, settings, () => 0.5)).toBe(400);
    expect(retryDelayMs(3, null, settings, () => 0)).toBe(0);
  });

  it('takes Retry-After in seconds or as an HTTP date', () => {
    expect(retryDelayMs(0, '3', settings)).toBe(3_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
