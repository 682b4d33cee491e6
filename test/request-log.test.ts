import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CatalogueClient } from '../sdk/src/index.js';
import { buildApp, type App } from '../src/http/app.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { oneUnitCatalogue } from './helpers/fixtures.js';
import { callTool, listen, mcpClient } from './helpers/mcp.js';

/*
 * The request log (src/http/request-log.ts): at `info` one JSON line per request, at most 300 bytes,
 * with the route template, status, duration, size, key id, request id and database server, and never
 * the key nor the end client's data; headers and bodies only at `debug`, redacted even there.
 */

const client = { first_name: 'Layla', last_name: 'Mansouri', email: 'layla.mansouri@example.com', mobile_number: '+971 50 765 4321' };
const PII = [client.first_name, client.last_name, client.email, '765 4321', '7654321'];

describe.each(drivers)('request log (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, oneUnitCatalogue(), (started) => ({ t, key } = started));

  /** An app on the test's database that logs at `level` into the returned array (one entry per line). */
  async function logging(level: string): Promise<{ app: App; lines: string[] }> {
    const lines: string[] = [];
    const app = await buildApp({
      database: t.database,
      search: t.search,
      changes: t.changes,
      config: { ...t.config, logLevel: level },
      keyCacheTtlMs: 60_000,
      logStream: { write: (line: string) => lines.push(line.replace(/\n$/, '')) },
    });
    return { app, lines };
  }

  const apply = (app: App, requestId: string) =>
    app.inject({
      method: 'POST',
      url: '/units/1000/applications',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': requestId },
      payload: JSON.stringify({ client, preferences: { based_on_unit: true } }),
    });

  it('writes one line of at most 300 bytes per request at info, without the key or the client', async () => {
    const { app, lines } = await logging('info');
    try {
      const detail = await app.inject({ method: 'GET', url: '/projects/100', headers: { 'x-api-key': key, 'x-request-id': 'trace-detail' } });
      expect(detail.statusCode).toBe(200);
      const created = await apply(app, 'trace-apply');
      expect(created.statusCode).toBe(201);
      const missing = await app.inject({ method: 'GET', url: '/projects/999999', headers: { 'x-api-key': key, 'x-request-id': 'trace-missing' } });
      expect(missing.statusCode).toBe(404);
      const probe = await app.inject({ method: 'GET', url: '/health/ready', headers: { 'x-request-id': 'trace-probe' } });
      expect(probe.statusCode).toBe(200);
    } finally {
      await app.close();
    }
    const requestLines = lines.filter((line) => line.includes('"reqId"'));
    const byRequest = (id: string) => requestLines.filter((line) => line.includes(`"reqId":"${id}"`));
    for (const id of ['trace-detail', 'trace-apply', 'trace-missing']) {
      const mine = byRequest(id);
      expect(mine, id).toHaveLength(1);
      expect(Buffer.byteLength(mine[0]), mine[0]).toBeLessThanOrEqual(300);
    }
    // Probes: debug only.
    expect(byRequest('trace-probe')).toHaveLength(0);

    const keyId = (await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } })).json().data.api_key.id;
    const detail = JSON.parse(byRequest('trace-detail')[0]);
    expect(detail).toMatchObject({ level: 30, msg: 'request', method: 'GET', route: '/projects/:id', status: 200, key: keyId, db: 'primary' });
    expect(detail.ms).toBeGreaterThan(0);
    expect(detail.bytes).toBeGreaterThan(100);
    expect(detail).not.toHaveProperty('hostname');
    const applied = JSON.parse(byRequest('trace-apply')[0]);
    expect(applied).toMatchObject({ method: 'POST', route: '/units/:id/applications', status: 201, key: keyId, db: 'primary' });
    expect(JSON.parse(byRequest('trace-missing')[0])).toMatchObject({ route: '/projects/:id', status: 404 });

    const text = lines.join('\n');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(3, 20));
    for (const personal of PII) expect(text).not.toContain(personal);
    expect(text).not.toContain('x-api-key');
  });

  it('says when a request was answered from memory: no db field', async () => {
    const { app, lines } = await logging('info');
    try {
      // The first request reads the key; the next ones find it cached, and searches need no database.
      await app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key } });
      const search = await app.inject({ method: 'GET', url: '/projects?limit=1', headers: { 'x-api-key': key, 'x-request-id': 'trace-search' } });
      expect(search.statusCode).toBe(200);
    } finally {
      await app.close();
    }
    const line = JSON.parse(lines.find((entry) => entry.includes('"reqId":"trace-search"'))!);
    expect(line).toMatchObject({ route: '/projects', status: 200 });
    expect(line).not.toHaveProperty('db');
  });

  it('follows the queries only at the levels that write request lines (the async context costs every request)', async () => {
    for (const [level, expected] of [['warn', undefined], ['info', ['primary']]] as const) {
      const { app } = await logging(level);
      const seen: (string[] | undefined)[] = [];
      app.addHook('onResponse', async (request) => {
        seen.push(request.servedBy && [...request.servedBy]);
      });
      try {
        expect((await apply(app, `trace-${level}`)).statusCode).toBe(201);
      } finally {
        await app.close();
      }
      expect(seen, level).toEqual([expected]);
    }
  });

  it('logs headers and bodies at debug only, with the key and the client redacted', async () => {
    const { app, lines } = await logging('debug');
    try {
      expect((await apply(app, 'trace-debug')).statusCode).toBe(201);
      await app.inject({ method: 'GET', url: '/whoIAm', headers: { authorization: `Bearer ${key}`, cookie: 'session=secret-cookie', 'x-request-id': 'trace-bearer' } });
    } finally {
      await app.close();
    }
    const mine = lines.filter((line) => line.includes('"reqId":"trace-debug"')).map((line) => JSON.parse(line));
    const incoming = mine.find((line) => line.msg === 'incoming request');
    expect(incoming.req.headers['x-api-key']).toBe('[redacted]');
    expect(incoming.req.headers['content-type']).toBe('application/json');
    const body = mine.find((line) => line.msg === 'request body');
    expect(body.body).toEqual({ client: '[redacted]', preferences: { based_on_unit: true } });
    const text = lines.join('\n');
    expect(text).not.toContain(key);
    expect(text).not.toContain('secret-cookie');
    for (const personal of PII) expect(text).not.toContain(personal);
  });

  it('at debug, no door logs the end client\u2019s data nor the free-text message: REST, MCP submit_application, the SDK', async () => {
    const { app, lines } = await logging('debug');
    const note = 'Call me after six about the sea view';
    const doors: Record<string, { client: typeof client; message: string }> = {};
    for (const door of ['rest', 'mcp', 'sdk']) doors[door] = { client: { ...client, email: `${door}.${client.email}` }, message: `${note} (${door})` };
    try {
      const baseUrl = await listen(app);
      const rest = await app.inject({
        method: 'POST',
        url: '/units/1000/applications',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'door-rest' },
        payload: JSON.stringify(doors.rest),
      });
      expect(rest.statusCode).toBe(201);
      const mcp = await mcpClient(baseUrl, { 'X-API-Key': key });
      try {
        const result = await callTool(mcp, 'submit_application', { unit_id: 1000, idempotency_key: randomUUID(), ...doors.mcp });
        expect(result.isError).toBeFalsy();
      } finally {
        await mcp.close();
      }
      const sdk = new CatalogueClient({ baseUrl, apiKey: key });
      await sdk.submitApplication(1000, doors.sdk, { idempotencyKey: randomUUID() });
    } finally {
      await app.close();
    }
    // Each door was logged at debug (its body line, redacted), so the absence below is a finding.
    const bodies = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request body' && line.body && typeof line.body === 'object');
    expect(bodies.some((line) => line.body.client === '[redacted]' && line.body.message === '[redacted]')).toBe(true);
    expect(bodies.some((line) => line.body.params?.arguments?.client === '[redacted]' && line.body.params.arguments.message === '[redacted]')).toBe(true);
    const text = lines.join('\n');
    for (const { client: sent, message } of Object.values(doors)) {
      for (const personal of [sent.first_name, sent.last_name, sent.email, '765 4321', '7654321', message, note]) expect(text).not.toContain(personal);
    }
  });
});
