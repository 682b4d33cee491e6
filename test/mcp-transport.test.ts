import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { listen } from './helpers/mcp.js';
import { catalogueBundle } from './helpers/project-scenarios.js';

/*
 * POST /mcp as raw HTTP, for what the endpoint's own Streamable HTTP handling answers (one long-lived
 * MCP server behind it): many HTTP requests in flight at once, with the same JSON-RPC ids and different
 * keys, each answered with its own result; the protocol's errors for messages that are not what the
 * server serves; notifications and responses accepted with 202.
 */

const ACCEPT = 'application/json, text/event-stream';
type Body = { jsonrpc: '2.0'; id?: string | number | null; result?: any; error?: { code: number; message: string; data?: unknown } };

describe.each(drivers)('MCP endpoint, HTTP handling (%s)', (driver) => {
  let t: TestApp;
  let baseUrl: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle());
    baseUrl = await listen(t.app);
    key = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID });
  }, 300_000);
  afterAll(() => t?.close());

  async function post(body: unknown, headers: Record<string, string> = {}, secret = key) {
    const res = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { 'x-api-key': secret, 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type'), text, body: (text ? JSON.parse(text) : undefined) as Body | undefined };
  }
  const call = (id: string | number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  async function rest(secret: string, url: string) {
    const res = await fetch(new URL(url, baseUrl), { headers: { 'x-api-key': secret } });
    return ((await res.json()) as { data: any }).data;
  }

  // Tools that read the database (get_project) are in flight together; a search alone answers within one turn.
  it('concurrent requests with the same JSON-RPC id, each answered with its own result and its own id', async () => {
    const ids = ((await rest(key, '/projects/list')).items as { id: number }[]).map(({ id }) => id).slice(0, 12);
    expect(ids.length).toBe(12);
    const expected = await Promise.all(ids.map((id) => rest(key, `/projects/${id}`)));
    // The same id (as a number and as a string, as JSON-RPC allows both) in every request.
    const answers = await Promise.all(ids.map((projectId, i) => post(call(i % 2 ? 1 : '1', 'get_project', { project_id: projectId }))));
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.body?.id).toBe(i % 2 ? 1 : '1');
      expect(answer.body?.result.structuredContent, `project ${ids[i]}`).toEqual(expected[i]);
    });
  });

  it('two keys at once: each request answered in its own key\u2019s prices', async () => {
    const other = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector: 12.5 });
    const [projectId] = ((await rest(key, '/projects/list')).items as { id: number }[]).map(({ id }) => id);
    const [plain, marked] = await Promise.all([rest(key, `/projects/${projectId}`), rest(other, `/projects/${projectId}`)]);
    // The two keys' answers differ (else the test could not tell them apart).
    expect(marked).not.toEqual(plain);
    const keys = Array.from({ length: 16 }, (_, i) => (i % 2 ? other : key));
    const answers = await Promise.all(keys.map((secret) => post(call(7, 'get_project', { project_id: projectId }), {}, secret)));
    answers.forEach((answer, i) => expect(answer.body?.result.structuredContent, `request ${i}`).toEqual(keys[i] === key ? plain : marked));
    // And a search, which answers from the snapshot in the key's prices.
    const query = { limit: 10, sort: 'price_from' };
    const [plainPage, markedPage] = await Promise.all([rest(key, '/projects?limit=10&sort=price_from'), rest(other, '/projects?limit=10&sort=price_from')]);
    const pages = await Promise.all(keys.map((secret) => post(call(7, 'search_projects', query), {}, secret)));
    pages.forEach((answer, i) => expect(answer.body?.result.structuredContent, `search ${i}`).toEqual(keys[i] === key ? plainPage : markedPage));
  });

  it('an unknown method, an unknown tool, a call without a tool name: the protocol\u2019s errors, with the request\u2019s id', async () => {
    const unknown = await post({ jsonrpc: '2.0', id: 'a-1', method: 'no/such/method' });
    expect(unknown.status).toBe(200);
    expect(unknown.contentType).toBe('application/json; charset=utf-8');
    expect(unknown.body).toEqual({ jsonrpc: '2.0', id: 'a-1', error: { code: -32601, message: 'Method not found' } });

    const tool = await post(call(2, 'no_such_tool', {}));
    expect(tool.body).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'MCP error -32602: unknown tool: no_such_tool' } });

    const nameless = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } });
    expect(nameless.status).toBe(200);
    expect(nameless.body).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: params.name is required' } });

    expect((await post({ jsonrpc: '2.0', id: 4, method: 'ping' })).body).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('a message that is not JSON-RPC: 400 with the transport\u2019s parse error', async () => {
    for (const body of [{ jsonrpc: '2.0' }, { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true }, { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'both' } }]) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body, JSON.stringify(body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' } });
    }
  });

  it('notifications and client responses: 202 with no body', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user stopped' } },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } },
    ]) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(202);
      expect(answer.text).toBe('');
    }
  });

  it('a cancellation from one client cancels nothing of another, whatever id it names', async () => {
    const ids = ((await rest(key, '/projects/list')).items as { id: number }[]).map(({ id }) => id).slice(0, 8);
    const cancellations = Array.from({ length: 400 }, (_, requestId) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }));
    const [answers] = await Promise.all([
      Promise.all(ids.map((projectId) => post(call(1, 'get_project', { project_id: projectId })))),
      Promise.all(cancellations.map((body) => post(body))),
    ]);
    for (const answer of answers) expect(answer.body?.result.structuredContent.id).toBeGreaterThan(0);
  });

  it('the Accept and MCP-Protocol-Version headers: 406 and 400 as the transport answers them; initialize negotiates', async () => {
    const refusedAccept = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
    expect(refusedAccept.status).toBe(406);
    expect(refusedAccept.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' } });

    const version = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(version.body?.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-06-18/) });
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' })).status).toBe(200);

    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const initialized = await post(init, { 'mcp-protocol-version': '1999-01-01' });
    expect(initialized.status).toBe(200);
    expect(initialized.body?.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'catalogue-api' } });
    const unknownVersion = await post({ ...init, params: { ...init.params, protocolVersion: '1999-01-01' } });
    expect(unknownVersion.body?.result.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(unknownVersion.body?.result.protocolVersion).not.toBe('1999-01-01');
  });
});
