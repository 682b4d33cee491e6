import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { createDemoKey } from '../src/demo/seed-demo.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';

/*
 * Every request the published document shows works: each operation's example request (its parameter
 * examples together, and its body example) is sent to the service loaded with the demo catalogue the
 * examples are taken from, with a key of the demo agency, and must get the operation's documented
 * success status; each further example a parameter's or a body property's schema gives (`examples`) is
 * sent on its own and must get it too. An example that asks for something the service refuses (a
 * property a list item does not have, a filter value out of range) fails here.
 */

type Json = Record<string, any>;


/** Operations whose example cannot get the success status anywhere but where it was taken, with the status it gets instead. */
const elsewhere: Record<string, { status: number; why: string }> = {
  // A cursor is signed by the service that issued it: the example's, made elsewhere, is the documented 400.
  listChanges: { status: 400, why: 'the example cursor was signed by another service' },
};

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: unknown;
}

describe.each(drivers)('every documented example runs (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let document: Json;

  beforeAll(async () => {
    t = await createTestApp(driver, generateDemoBundle());
    // A key of the demo agency, as `npm start` prints: the examples show what it sees.
    key = await createDemoKey(t.db);
    document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  }, 120_000);
  afterAll(() => t?.close());

  const operations = () =>
    Object.entries<Json>(document.paths).flatMap(([path, methods]) =>
      Object.entries<Json>(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
    );

  /** The operation's documented success status: its lowest 2xx. */
  const successOf = (operation: Json) => Number(Object.keys(operation.responses).filter((code) => code.startsWith('2')).sort()[0]);

  /** A request of the operation with the given parameter values (path parameters from their examples when not given). */
  function request(path: string, method: string, operation: Json, values: Record<string, unknown>, body?: unknown): Request {
    let url = path;
    const query = new URLSearchParams();
    // MCP answers only a client that accepts both forms of its answer; every other route ignores this.
    const headers: Record<string, string> = { 'x-api-key': key, accept: 'application/json, text/event-stream' };
    for (const parameter of operation.parameters ?? []) {
      const value = parameter.name in values ? values[parameter.name] : parameter.in === 'path' ? parameter.example : undefined;
      if (value === undefined) continue;
      if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      else if (parameter.in === 'query') query.set(parameter.name, String(value));
      else if (parameter.in === 'header') headers[parameter.name.toLowerCase()] = String(value);
    }
    const search = query.toString();
    return { method, url: search ? `${url}?${search}` : url, headers, ...(body !== undefined && { payload: body }) };
  }

  async function send(request: Request) {
    const { payload, ...rest } = request;
    const res = await t.app.inject({ ...rest, method: rest.method as 'GET', ...(payload !== undefined && { payload: payload as object }) });
    return { status: res.statusCode, body: res.body };
  }

  it('sends each operation\u2019s example request and gets its documented status', async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const { path, method, operation } of operations()) {
      const values = Object.fromEntries((operation.parameters ?? []).filter((parameter: Json) => parameter.example !== undefined).map((parameter: Json) => [parameter.name, parameter.example]));
      // If-None-Match is an example ETag of another body: sent, it only has to not match.
      const body = operation.requestBody?.content['application/json'].example;
      const expected = elsewhere[operation.operationId]?.status ?? successOf(operation);
      const res = await send(request(path, method, operation, values, body));
      sent++;
      if (res.status !== expected) problems.push(`${method} ${path}: ${res.status} (documented ${expected}): ${res.body.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(20);
  });

  it('sends each example of a parameter\u2019s or a body property\u2019s schema on its own and gets the documented status', async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const { path, method, operation } of operations()) {
      const expected = successOf(operation);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') continue;
        for (const example of parameter.schema?.examples ?? []) {
          const res = await send(request(path, method, operation, { [parameter.name]: example }));
          sent++;
          if (res.status !== expected) problems.push(`${method} ${path} ${parameter.name}=${JSON.stringify(example)}: ${res.status} (documented ${expected}): ${res.body.slice(0, 300)}`);
        }
      }
      const body = operation.requestBody?.content['application/json'];
      if (!body || operation.operationId === 'submitApplication' || operation.operationId === 'mcp') continue;
      for (const [name, property] of Object.entries<Json>(body.schema.properties ?? {})) {
        for (const example of property.examples ?? []) {
          const res = await send(request(path, method, operation, {}, { [name]: example }));
          sent++;
          if (res.status !== expected) problems.push(`${method} ${path} body ${name}=${JSON.stringify(example)}: ${res.status} (documented ${expected}): ${res.body.slice(0, 300)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(0);
  });
});
