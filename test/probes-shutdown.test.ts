import http from 'node:http';
import net from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { drivers } from './helpers/databases.js';
import { oneUnitCatalogue } from './helpers/fixtures.js';
import { startTestServer, type TestServer } from './helpers/running-server.js';

/*
 * The probes and the shutdown sequence on a real listener (startServer, as `serve` runs it):
 * SIGTERM's drain (readiness 503 while requests are still served), then the stop (no new
 * connections, requests in flight finished within the grace period, or cut at its end).
 * The same behind a real load balancer: test/scale-out/graceful-shutdown.test.ts.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connects(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('configuration', () => {
  it('drains 10 s and grants 20 s by default; both accept 0 and refuse nonsense', () => {
    expect(loadConfig({})).toMatchObject({ shutdownDrainS: 10, shutdownGraceS: 20 });
    expect(loadConfig({ SHUTDOWN_DRAIN_S: '0', SHUTDOWN_GRACE_S: '2.5' })).toMatchObject({ shutdownDrainS: 0, shutdownGraceS: 2.5 });
    expect(() => loadConfig({ SHUTDOWN_DRAIN_S: '-1' })).toThrow(/SHUTDOWN_DRAIN_S must be a number of seconds/);
    expect(() => loadConfig({ SHUTDOWN_GRACE_S: 'soon' })).toThrow(/SHUTDOWN_GRACE_S/);
  });
});

describe.each(drivers)('probes and shutdown (%s)', (driver) => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('/health/live and /health/ready answer 200 while serving; /health is unchanged', async () => {
    t = await startTestServer(driver, oneUnitCatalogue());
    const live = await fetch(`${t.server.url}/health/live`);
    expect(live.status).toBe(200);
    expect((await live.json()).data.uptime_s).toBeGreaterThan(0);
    const ready = await fetch(`${t.server.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'success', data: { database: 'up', search_catalogue_version: t.server.search.current().catalogueVersion } });
    const health = await (await fetch(`${t.server.url}/health`)).json();
    expect(health.data).toMatchObject({ database: 'up', driver });
  }, 120_000);

  it.skipIf(driver !== 'postgres')('readiness does not queue behind requests: 200 at once while every pooled connection is busy', async () => {
    t = await startTestServer(driver, oneUnitCatalogue());
    const { database } = t.server;
    // Every connection of the request pool held for 4 s, past the probe's 2 s limit: a probe that
    // queued for one of them would answer 503 "database down" on a healthy, merely busy instance.
    const busy = Array.from({ length: database.poolSize }, () => sql`SELECT pg_sleep(4)`.execute(database.db));
    await sleep(300);
    expect(database.pools()[0]).toMatchObject({ inUse: database.poolSize });
    const sent = performance.now();
    const ready = await fetch(`${t.server.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(performance.now() - sent).toBeLessThan(1_500);
    await Promise.all(busy);
  }, 120_000);

  it('drains on shutdown: readiness 503 while requests are still answered (Connection: close), then refuses connections', async () => {
    t = await startTestServer(driver, oneUnitCatalogue(), { METRICS_PORT: '0' });
    const { server } = t;
    const key = await t.key();
    // Long enough for the checks below on a busy machine; they all happen within it.
    const shutdown = server.shutdown({ drainMs: 4_000, graceMs: 2_000 });
    await sleep(50);

    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'error', message: 'shutting down: send requests to another instance' });
    expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    const detail = await fetch(`${server.url}/projects/100`, { headers: { 'x-api-key': key } });
    expect(detail.status).toBe(200);
    // No keep-alive while draining: a load balancer holds no idle connection that the close would cut.
    expect(detail.headers.get('connection')).toBe('close');
    const metrics = await (await fetch(server.metricsUrl!)).text();
    expect(metrics).toMatch(/^catalogue_shutting_down 1$/m);

    await shutdown;
    expect(await connects(server.url)).toBe(false);
    expect(await connects(server.metricsUrl!)).toBe(false);
  }, 120_000);

  it('finishes a request in flight within the grace period, and cuts a stalled one at its end', async () => {
    t = await startTestServer(driver, oneUnitCatalogue());
    const { server } = t;
    const key = await t.key();
    const payload = JSON.stringify({ client: { first_name: 'Stalled', email: 'stalled@example.com' } });
    // A client that sends half its body and then nothing: without the deadline it would hold the
    // process until the 30 s request timeout.
    const request = http.request(`${server.url}/units/1000/applications`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': String(payload.length) },
    });
    const outcome = new Promise<string>((resolve) => {
      request.on('response', (response) => resolve(`status ${response.statusCode}`));
      request.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code}`));
    });
    request.write(payload.slice(0, 20));
    await sleep(300);

    const started = Date.now();
    await server.shutdown({ drainMs: 0, graceMs: 1_000 });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
    expect(await outcome).toMatch(/^error (ECONNRESET|EPIPE)/);
  }, 120_000);
});
