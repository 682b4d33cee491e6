import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { assistantSearch } from '../docs/snippets/assistant.js';
import { buildApp } from '../src/http/app.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { crmCounts } from './helpers/crm-counts.js';
import { drivers } from './helpers/databases.js';
import { callTool, listen, mcpClient, textOf } from './helpers/mcp.js';
import { catalogueBundle, priceVectorArb, scenarioArb } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';

/*
 * The MCP endpoint through the SDK's own client over HTTP, against the running app (a real listener on
 * an ephemeral port) on each driver: the protocol, every tool and its errors, and the same answers as
 * the REST routes for the same key (visibility, prices, messages).
 */

const SEED = Number(process.env.MCP_SEED ?? 20261125);
const NUM_RUNS = Number(process.env.MCP_RUNS ?? 40);

describe.each(drivers)('MCP endpoint (%s)', (driver) => {
  let t: TestApp;
  let baseUrl: string;
  let catalogue: ReferenceCatalogue;
  let client: Client;
  let key: string;
  const keys = new Map<number, Promise<string>>();
  const clients = new Map<number, Promise<Client>>();

  const keyFor = (priceVector: number) => {
    let found = keys.get(priceVector);
    if (!found) keys.set(priceVector, (found = t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector })));
    return found;
  };
  const clientFor = (priceVector: number) => {
    let found = clients.get(priceVector);
    if (!found) clients.set(priceVector, (found = keyFor(priceVector).then((secret) => mcpClient(baseUrl, { 'X-API-Key': secret }))));
    return found;
  };
  async function rest(secret: string, url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await fetch(new URL(url, baseUrl), {
      method: init.method ?? 'GET',
      headers: { 'x-api-key': secret, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, json: (await res.json()) as { status: string; data?: any; message?: string } };
  }

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle());
    baseUrl = await listen(t.app);
    catalogue = await loadReferenceCatalogue(t.db);
    key = await keyFor(0);
    client = await clientFor(0);
  }, 300_000);
  afterAll(async () => {
    for (const pending of clients.values()) await (await pending).close();
    await t?.close();
  });

  describe('protocol', () => {
    it('initializes with the server\u2019s name, version, instructions and capabilities', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'catalogue-api' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
      expect(client.getInstructions()).toMatch(/submit_application/);
    });

    it('lists the tools, with the contract\u2019s filters as the search input schema', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ['get_project', 'get_project_contacts', 'get_unit', 'list_reference', 'search_projects', 'submit_application'],
      );
      const openapi = (await (await fetch(new URL('/openapi.json', baseUrl))).json()) as any;
      const parameters = openapi.paths['/projects'].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
      // Every filter, sort, facet and paging parameter; not `fields`, which trims the HTTP payload (the
      // tool's compact text and structured items are its own shape).
      const filters = parameters.filter((name: string) => name !== 'fields');
      expect(filters.length).toBe(parameters.length - 1);
      const search = tools.find((tool) => tool.name === 'search_projects')!;
      expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual([...filters].sort());
      expect(search.annotations).toMatchObject({ readOnlyHint: true });
      const submit = tools.find((tool) => tool.name === 'submit_application')!;
      expect(submit.inputSchema.required).toEqual(expect.arrayContaining(['unit_id', 'idempotency_key', 'client']));
      expect(submit.description).toMatch(/confirm/i);
      expect(submit.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    });

    it('is stateless: another instance answers a request without any session', async () => {
      const other = await buildApp({ database: t.database, config: loadConfig({ LOG_LEVEL: 'silent' }), search: t.search, logger: false });
      try {
        const otherUrl = await listen(other);
        const res = await fetch(new URL('/mcp', otherUrl), {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_reference', arguments: { list: 'areas' } } }),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('mcp-session-id')).toBeNull();
        const body = (await res.json()) as any;
        expect(body.id).toBe(7);
        expect(body.result.structuredContent.items.length).toBeGreaterThan(0);
      } finally {
        await other.close();
      }
    });

    it('a body that is not an MCP message: 400 with the API\u2019s wording, as a JSON-RPC error', async () => {
      const post = (body: string) =>
        fetch(new URL('/mcp', baseUrl), { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
      for (const [body, message] of [
        ['{"jsonrpc":', 'request body is not valid JSON'],
        ['{"method":"tools/list","id":1}', 'jsonrpc is required'],
        ['{"jsonrpc":"1.0","method":"tools/list","id":1}', 'jsonrpc must be 2.0'],
      ]) {
        const res = await post(body);
        expect(res.status, body).toBe(400);
        expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { http_status: 400 } } });
      }
    });

    it('malformed tools/call params: -32602 Invalid params naming the member, not an internal error', async () => {
      const call = async (params: unknown) => {
        const res = await fetch(new URL('/mcp', baseUrl), {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as any).error;
      };
      expect(await call({ name: 'search_projects', arguments: 'bedrooms=2' })).toEqual({ code: -32602, message: 'Invalid params: params.arguments must be an object' });
      expect(await call({ name: 'search_projects', arguments: [2] })).toEqual({ code: -32602, message: 'Invalid params: params.arguments must be an object' });
      expect(await call({ arguments: {} })).toEqual({ code: -32602, message: 'Invalid params: params.name is required' });
      expect(await call({ name: 7 })).toEqual({ code: -32602, message: 'Invalid params: params.name must be a string' });
      expect(await call({ name: 'no_such_tool' })).toEqual({ code: -32602, message: expect.stringContaining('unknown tool: no_such_tool') });
      // Another method's params, through the same check.
      const read = await fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'resources/read', params: {} }),
      });
      expect(((await read.json()) as any).error).toEqual({ code: -32602, message: 'Invalid params: params.uri is required' });
    });

    it('answers GET and DELETE with 405 (no sessions, no server stream)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(new URL('/mcp', baseUrl), { method, headers: { 'x-api-key': key, accept: 'text/event-stream' } });
        expect(res.status, method).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
      }
    });
  });

  describe('/llms.txt', () => {
    it('describes the API and the MCP endpoint without a key, naming every tool, with links that answer', async () => {
      const res = await fetch(new URL('/llms.txt', baseUrl));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
      const text = await res.text();
      expect(text).toMatch(/^# Catalogue API\n\n> /);
      const { tools } = await client.listTools();
      for (const tool of tools) expect(text).toContain(`\`${tool.name}\``);
      const links = [...text.matchAll(/\]\((\/[^)]*)\)/g)].map((match) => match[1]);
      expect(links).toEqual(expect.arrayContaining(['/mcp', '/openapi.json', '/docs']));
      for (const link of links.filter((path) => path !== '/mcp')) {
        expect((await fetch(new URL(link, baseUrl), { headers: { 'x-api-key': key } })).status, link).toBe(200);
      }
    });
  });

  describe('docs/snippets/assistant.ts (the guide\u2019s MCP client)', () => {
    it('finds the tools, an area id and the same search the REST API answers', async () => {
      const { tools, areaId, page } = await assistantSearch(baseUrl, key, 'Dubai Marina');
      expect(tools).toContain('submit_application');
      const areas = (await rest(key, '/areas')).json.data as { id: number; name: string }[];
      expect(areaId).toBe(areas.find((area) => area.name === 'Dubai Marina')?.id);
      expect(areaId).toBeDefined();
      expect(page).toEqual((await rest(key, '/projects?bedrooms=2&sort=price_from&facets=area&limit=5')).json.data);
    });
  });

  describe('authentication: the API\u2019s rules and messages, as protocol errors', () => {
    async function refusal(headers: Record<string, string>) {
      const error = await mcpClient(baseUrl, headers).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      const raw = await fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const body = (await raw.json()) as any;
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { http_status: raw.status } } });
      expect((error as StreamableHTTPError).code).toBe(raw.status);
      expect((error as Error).message).toContain(body.error.message);
      return { status: raw.status, message: body.error.message as string };
    }

    it('no key, a bad key, a revoked-looking key: 401 with the API\u2019s message', async () => {
      expect(await refusal({})).toEqual({ status: 401, message: 'missing api key' });
      expect(await refusal({ 'X-API-Key': 'ck_nope' })).toEqual({ status: 401, message: 'invalid api key' });
      expect(await refusal({ Authorization: `Bearer ck_${'0'.repeat(64)}` })).toEqual({ status: 401, message: 'invalid api key' });
    });

    it('the key\u2019s domain list: 403 for another origin, accepted for its own; Bearer works as in the API', async () => {
      const restricted = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, domains: ['agency.example'] });
      expect(await refusal({ 'X-API-Key': restricted, Origin: 'https://evil.example' })).toEqual({ status: 403, message: 'origin is not allowed for this api key' });
      const allowed = await mcpClient(baseUrl, { Authorization: `Bearer ${restricted}`, Origin: 'https://agency.example' });
      expect((await allowed.listTools()).tools.length).toBe(6);
      await allowed.close();
    });

    it('an unlicensed agency: 403 with the licence message', async () => {
      await sql`UPDATE companies SET licence_status = 'pending' WHERE id = ${DEMO_AGENCY_ID}`.execute(t.db);
      try {
        const rejected = await refusal({ 'X-API-Key': key });
        const viaRest = await rest(key, '/whoIAm');
        expect(rejected).toEqual({ status: viaRest.status, message: viaRest.json.message });
        expect(rejected.status).toBe(403);
      } finally {
        await sql`UPDATE companies SET licence_status = 'approved' WHERE id = ${DEMO_AGENCY_ID}`.execute(t.db);
      }
    });
  });

  describe('search_projects', () => {
    it('answers the REST data as structured content and a compact text', async () => {
      const query = { bedrooms: '2,3', sort: '-price_from', facets: 'bedrooms,area', limit: 5 };
      const result = await callTool(client, 'search_projects', query);
      const viaRest = await rest(key, `/projects?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(viaRest.json.data);
      const text = textOf(result);
      expect(text).toContain(`${viaRest.json.data.total} projects match`);
      for (const item of viaRest.json.data.items) expect(text).toContain(`[project ${item.id}] ${item.name}`);
      expect(text).toMatch(/facet bedrooms: /);
      expect(text).toMatch(/More: call again with offset 5/);
    });

    it('takes lists as arrays as well as comma-separated text', async () => {
      const asText = await callTool(client, 'search_projects', { bedrooms: '1,2', limit: 100 });
      const asArray = await callTool(client, 'search_projects', { bedrooms: [1, 2], limit: 100 });
      expect(asArray.structuredContent).toEqual(asText.structuredContent);
    });

    it('a bad filter is a tool error with the API\u2019s 400 message', async () => {
      for (const query of [{ bedrooms: '9' }, { sort: 'cheapest' }, { price_min: -1 }, { colour: 'blue' }, { lat: 25 }, { limit: 0 }, { facets: 'colour' }]) {
        const result = await callTool(client, 'search_projects', query);
        const viaRest = await rest(key, `/projects?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);
        expect(viaRest.status, JSON.stringify(query)).toBe(400);
        expect(result.isError, JSON.stringify(query)).toBe(true);
        expect(textOf(result)).toBe(viaRest.json.message);
        expect(result.structuredContent).toEqual({ status: 'error', http_status: 400, message: viaRest.json.message });
      }
    });

    it('currency: an unknown or malformed code is a tool error with the API\u2019s message; prices and price bounds in USD as GET /projects', async () => {
      for (const currency of ['XYZ', 'usd', 'US']) {
        const result = await callTool(client, 'search_projects', { currency });
        const viaRest = await rest(key, `/projects?currency=${currency}`);
        expect(viaRest.status, currency).toBe(400);
        expect(result.isError, currency).toBe(true);
        expect(textOf(result)).toBe(viaRest.json.message);
        if (currency === 'XYZ') expect(textOf(result)).toBe('currency XYZ has no exchange rate: use AED or a currency of GET /currencies');
      }
      const all = (await rest(key, '/projects?currency=USD&limit=100&sort=price_from')).json.data;
      const priced = all.items.filter((item: { price_from: number | null }) => item.price_from !== null);
      // A bound between the USD prices: some projects under it, some over it.
      const bound = Math.round(priced[Math.floor(priced.length / 2)].price_from);
      const query = { currency: 'USD', price_max: bound, sort: 'price_from', limit: 50 };
      const viaRest = await rest(key, `/projects?currency=USD&price_max=${bound}&sort=price_from&limit=50`);
      expect(viaRest.json.data.total).toBeGreaterThan(0);
      expect(viaRest.json.data.total).toBeLessThan(all.total);
      const result = await callTool(client, 'search_projects', query);
      expect(result.structuredContent).toEqual(viaRest.json.data);
      // The bound is taken in USD: the same figure in each project's own currency finds other projects.
      const inOwn = (await callTool(client, 'search_projects', { price_max: bound, sort: 'price_from', limit: 50 })).structuredContent as any;
      expect(inOwn.total).not.toBe(viaRest.json.data.total);
      const text = textOf(result);
      expect(text).toContain('Prices are the agency\u2019s in USD.');
      for (const item of viaRest.json.data.items) {
        expect(item.currency).toBe('USD');
        const line = text.split('\n').find((entry) => entry.startsWith(`- [project ${item.id}]`))!;
        expect(line).toContain(item.price_from === null ? 'price on request' : `from USD ${item.price_from.toLocaleString('en-US', { maximumFractionDigits: 2 })}`);
      }
      expect(text).not.toMatch(/\bAED \d/);
    });

    it('differential: the same visibility and prices as GET /projects for the same key, over random searches and price vectors', async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb(catalogue).filter((scenario) => !scenario.withRadius), fc.constantFrom(...['', 'bedrooms,developer,unit_types', 'statuses,area']), async (scenario, facets) => {
          const query = { ...scenario.query, ...(facets && { facets }) };
          const secret = await keyFor(scenario.priceVector);
          const viaRest = await rest(secret, `/projects?${new URLSearchParams(query)}`);
          const result = await callTool(await clientFor(scenario.priceVector), 'search_projects', query);
          if (viaRest.status === 200) expect(result.structuredContent, JSON.stringify(scenario)).toEqual(viaRest.json.data);
          else expect(textOf(result)).toBe(viaRest.json.message);
        }),
        { seed: SEED, numRuns: NUM_RUNS },
      );
    }, 180_000);
  });

  describe('get_project, get_unit, get_project_contacts', () => {
    let visible: number[];
    let invisible: number[];
    let units: { id: number; project_id: number }[];

    beforeAll(async () => {
      visible = (await rest(key, '/projects/list')).json.data.items.map((item: { id: number }) => item.id);
      const all = (await t.db.selectFrom('projects').select('id').orderBy('id').execute()).map((row) => row.id);
      invisible = all.filter((id) => !visible.includes(id));
      units = await t.db.selectFrom('units').select(['id', 'project_id']).orderBy('id').execute();
    });

    it('the catalogue has projects this key cannot see', () => {
      expect(visible.length).toBeGreaterThan(10);
      expect(invisible.length).toBeGreaterThan(0);
    });

    it('get_project: the REST detail, in the key\u2019s prices; a digest as text', async () => {
      const id = visible[0];
      const result = await callTool(await clientFor(12.5), 'get_project', { project_id: id });
      const viaRest = await rest(await keyFor(12.5), `/projects/${id}`);
      expect(result.structuredContent).toEqual(viaRest.json.data);
      const text = textOf(result);
      expect(text).toContain(`[project ${id}] ${viaRest.json.data.name}`);
      const priced = viaRest.json.data.units.find((unit: { price: number | null }) => unit.price !== null);
      expect(text).toContain(`[unit ${priced.id}]`);
      expect(text).toContain(priced.price.toLocaleString('en-US', { maximumFractionDigits: 2 }));
    });

    it('differential: visibility and prices of details, units and contacts equal REST for random ids and price vectors', async () => {
      const ids = fc.oneof(fc.constantFrom(...visible), fc.constantFrom(...invisible), fc.integer({ min: 1, max: 100_000 }));
      await fc.assert(
        fc.asyncProperty(priceVectorArb, ids, fc.constantFrom(...units), async (priceVector, projectId, unit) => {
          const secret = await keyFor(priceVector);
          const mcp = await clientFor(priceVector);
          for (const [tool, args, url] of [
            ['get_project', { project_id: projectId }, `/projects/${projectId}`],
            ['get_project_contacts', { project_id: projectId }, `/projects/${projectId}/contacts`],
            ['get_unit', { unit_id: unit.id }, `/units/${unit.id}`],
          ] as const) {
            const viaRest = await rest(secret, url);
            const result = await callTool(mcp, tool, args);
            if (viaRest.status === 200) expect(result.structuredContent, `${tool} ${url}`).toEqual(viaRest.json.data);
            else {
              expect(viaRest.status).toBe(404);
              expect(result.isError).toBe(true);
              expect(result.structuredContent).toEqual({ status: 'error', http_status: 404, message: viaRest.json.message });
            }
          }
        }),
        { seed: SEED, numRuns: Math.ceil(NUM_RUNS / 2) },
      );
    }, 180_000);

    it('an invisible project or unit is not found; a bad id has the API\u2019s message', async () => {
      const hidden = invisible[0];
      expect(textOf(await callTool(client, 'get_project', { project_id: hidden }))).toBe('project not found');
      expect(textOf(await callTool(client, 'get_project_contacts', { project_id: hidden }))).toBe('project not found');
      const hiddenUnit = units.find((unit) => unit.project_id === hidden)!;
      expect(textOf(await callTool(client, 'get_unit', { unit_id: hiddenUnit.id }))).toBe('unit not found');
      // Arguments are named as the tool's input schema names them, in the REST path's wording.
      for (const bad of [0, -1, 'x', 1.5]) {
        for (const [tool, name] of [['get_project', 'project_id'], ['get_project_contacts', 'project_id'], ['get_unit', 'unit_id'], ['submit_application', 'unit_id']] as const) {
          const result = await callTool(client, tool, { [name]: bad, ...(tool === 'submit_application' && { idempotency_key: randomUUID(), client: { first_name: 'A', email: 'a@example.com' } }) });
          expect(result.isError, `${tool} ${String(bad)}`).toBe(true);
          expect(textOf(result), `${tool} ${String(bad)}`).toBe(`${name} must be a positive integer`);
        }
      }
      expect(textOf(await callTool(client, 'get_project', {}))).toBe('project_id is required');
      expect(textOf(await callTool(client, 'get_unit', {}))).toBe('unit_id is required');
      expect(textOf(await callTool(client, 'get_unit', { unit_id: units[0].id, id: 1 }))).toBe('unknown query parameter: id');
      // A positive integer beyond storage names no record, as over HTTP.
      expect(textOf(await callTool(client, 'get_project', { project_id: 2 ** 31 }))).toBe('project not found');
      expect(textOf(await callTool(client, 'get_unit', { unit_id: 2 ** 31 }))).toBe('unit not found');
    });

    it('get_project and get_unit take `currency` as REST does and name the currency beside every price', async () => {
      const unit = await t.db.selectFrom('units').select(['id', 'project_id']).where('project_id', 'in', visible).where('price', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
      for (const currency of [undefined, 'USD', 'EUR']) {
        const query = currency ? `?currency=${currency}` : '';
        const project = await callTool(client, 'get_project', { project_id: unit.project_id, ...(currency && { currency }) });
        const projectRest = await rest(key, `/projects/${unit.project_id}${query}`);
        expect(project.structuredContent, query).toEqual(projectRest.json.data);
        const shown = currency ?? projectRest.json.data.cost.currency;
        const projectText = textOf(project);
        for (const priced of projectRest.json.data.units.filter((row: { price: number | null }) => row.price !== null).slice(0, 30)) {
          const line = projectText.split('\n').find((entry) => entry.startsWith(`- [unit ${priced.id}]`))!;
          expect(line, query).toContain(`${shown} ${priced.price.toLocaleString('en-US', { maximumFractionDigits: 2 })}`);
        }
        const got = await callTool(client, 'get_unit', { unit_id: unit.id, ...(currency && { currency }) });
        const unitRest = await rest(key, `/units/${unit.id}${query}`);
        expect(got.structuredContent, query).toEqual(unitRest.json.data);
        expect(textOf(got), query).toContain(`Price: ${shown} ${unitRest.json.data.price.toLocaleString('en-US', { maximumFractionDigits: 2 })}`);
      }
      for (const [tool, args, url] of [
        ['get_project', { project_id: unit.project_id, currency: 'XYZ' }, `/projects/${unit.project_id}?currency=XYZ`],
        ['get_unit', { unit_id: unit.id, currency: 'XYZ' }, `/units/${unit.id}?currency=XYZ`],
        ['get_unit', { unit_id: unit.id, currency: 'usd' }, `/units/${unit.id}?currency=usd`],
      ] as const) {
        const viaRest = await rest(key, url);
        expect(viaRest.status, url).toBe(400);
        const result = await callTool(client, tool, args);
        expect(result.structuredContent, url).toEqual({ status: 'error', http_status: 400, message: viaRest.json.message });
      }
    });

    it('get_unit and get_project_contacts digests name the unit and the staff', async () => {
      const unit = units.find((row) => visible.includes(row.project_id))!;
      const unitText = textOf(await callTool(client, 'get_unit', { unit_id: unit.id }));
      expect(unitText).toContain(`[unit ${unit.id}]`);
      expect(unitText).toContain(`[project ${unit.project_id}]`);
      const contacts = await callTool(client, 'get_project_contacts', { project_id: unit.project_id });
      const viaRest = await rest(key, `/projects/${unit.project_id}/contacts`);
      expect(textOf(contacts)).toContain(`Developer: ${viaRest.json.data.company.name}`);
      for (const worker of viaRest.json.data.workers) expect(textOf(contacts)).toContain(worker.name);
    });
  });

  describe('reference lists: tool and resources', () => {
    it('list_reference gives the ids and names of the REST reference routes', async () => {
      const areas = await callTool(client, 'list_reference', { list: 'areas' });
      expect((areas.structuredContent as any).items).toEqual((await rest(key, '/areas')).json.data.map(({ id, name, city }: any) => ({ id, name, city })));
      const developers = await callTool(client, 'list_reference', { list: 'developers' });
      expect((developers.structuredContent as any).items).toEqual((await rest(key, '/companies')).json.data.items.map(({ id, name }: any) => ({ id, name })));
      const tags = await callTool(client, 'list_reference', { list: 'unit_tags' });
      expect((tags.structuredContent as any).items).toEqual((await rest(key, '/preferences')).json.data.map(({ id, name }: any) => ({ id, name })));
      const sections = (await rest(key, '/project-preferences')).json.data;
      for (const list of ['features', 'amenities'] as const) {
        const result = await callTool(client, 'list_reference', { list });
        expect((result.structuredContent as any).items).toEqual(sections[list].map(({ id, name }: any) => ({ id, name })));
      }
      expect(textOf(areas)).toMatch(/^Areas \(\d+\), ids for /);
      const bad = await callTool(client, 'list_reference', { list: 'colours' });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toBe('list must be one of: areas, unit_tags, features, amenities, developers, project_types, development_statuses');
    });

    it('list_reference names project types and development statuses as GET /project-types and /development-statuses, with the key\'s project counts', async () => {
      const facets = (await rest(key, '/projects?facets=unit_types,development_status&limit=1')).json.data.facets;
      const counted = (facet: string) => new Map<number, number>(facets[facet].map(({ value, count }: any) => [value, count]));
      const types = counted('unit_types');
      const statuses = counted('development_status');
      expect(types.size).toBeGreaterThan(1);
      // Every counted value but the first is named, plus a type no visible project has: each case shows.
      const [unnamedType, ...namedTypes] = [...types.keys()];
      const unusedType = Math.max(...types.keys()) + 1;
      const before = await t.db.selectFrom('project_types').selectAll().execute();
      const names = {
        project_types: [...namedTypes, unusedType].map((id) => ({ id, name: `Type ${id}` })),
        development_statuses: [0, 1, 2, 3].map((id) => ({ id, name: `Status ${id}` })),
      };
      await importBundle(t.db, names, { facilityLinkRadiusM: 1000 });
      await t.db.deleteFrom('project_types').where('id', '=', unnamedType).execute();
      const restTypes = (await rest(key, '/project-types')).json.data as { id: number; name: string }[];
      expect(restTypes.map(({ id }) => id)).toEqual([...namedTypes, unusedType].sort((a, b) => a - b));
      const typeItems = (await callTool(client, 'list_reference', { list: 'project_types' })).structuredContent as any;
      expect(typeItems.items).toEqual([
        ...restTypes.map(({ id, name }) => ({ id, name, projects: types.get(id) ?? 0 })),
        { id: unnamedType, name: null, projects: types.get(unnamedType) },
      ]);
      expect(typeItems.items.find((item: any) => item.id === unusedType)).toEqual({ id: unusedType, name: `Type ${unusedType}`, projects: 0 });
      const restStatuses = (await rest(key, '/development-statuses')).json.data as { id: number; name: string }[];
      expect(restStatuses).toHaveLength(4);
      const statusTool = await callTool(client, 'list_reference', { list: 'development_statuses' });
      expect((statusTool.structuredContent as any).items).toEqual(restStatuses.map(({ id, name }) => ({ id, name, projects: statuses.get(id) ?? 0 })));
      expect(textOf(statusTool)).toContain(`- 1: Status 1 \u2014 ${statuses.get(1) ?? 0} project`);
      expect(textOf(await callTool(client, 'list_reference', { list: 'project_types' }))).toContain(`- ${unnamedType}: (no name defined)`);
      // The catalogue's own names back for the tests after this one.
      await t.db.deleteFrom('project_types').execute();
      if (before.length) await t.db.insertInto('project_types').values(before).execute();
    });

    it('every list is a resource with the same items', async () => {
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toContain('catalogue://reference/areas');
      for (const resource of resources) {
        const list = resource.uri.split('/').pop()!;
        const read = await client.readResource({ uri: resource.uri });
        const tool = await callTool(client, 'list_reference', { list });
        expect(JSON.parse((read.contents[0] as { text: string }).text), list).toEqual((tool.structuredContent as any).items);
      }
      await expect(client.readResource({ uri: 'catalogue://reference/colours' })).rejects.toThrow(/unknown resource/);
    });

    it('prompts: a client brief becomes a plan over the tools', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['find_homes_for_client', 'prepare_application']);
      const prompt = await client.getPrompt({ name: 'find_homes_for_client', arguments: { brief: '2-bed in Dubai Marina under 3M' } });
      const text = (prompt.messages[0].content as { text: string }).text;
      expect(text).toContain('2-bed in Dubai Marina under 3M');
      expect(text).toMatch(/list_reference[\s\S]*search_projects[\s\S]*get_project/);
      await expect(client.getPrompt({ name: 'find_homes_for_client', arguments: {} })).rejects.toThrow(/brief is required/);
    });
  });

  describe('submit_application', () => {
    let unitId: number;
    const application = (email: string) => ({ client: { first_name: 'Layla', last_name: 'Nasser', email }, message: 'Interested, call after 6pm' });

    beforeAll(async () => {
      const visible = (await rest(key, '/projects/list')).json.data.items.map((item: { id: number }) => item.id);
      const row = await t.db.selectFrom('units').select('id').where('project_id', 'in', visible).where('deleted_at', 'is', null).orderBy('id').executeTakeFirstOrThrow();
      unitId = row.id;
    });

    it('files the application; a retry with the same idempotency key writes nothing and answers the same', async () => {
      const idempotencyKey = randomUUID();
      const before = await crmCounts(t.db);
      const args = { unit_id: unitId, idempotency_key: idempotencyKey, ...application(`layla.${idempotencyKey}@example.com`) };
      const first = await callTool(client, 'submit_application', args);
      expect(first.isError, textOf(first)).toBeFalsy();
      const created = first.structuredContent as any;
      expect(created).toMatchObject({ replayed: false, client: { first_name: 'Layla', created: true }, offer: { unit: { id: unitId } } });
      expect(textOf(first)).toContain(`Opportunity ${created.opportunity.id}`);
      const afterFirst = await crmCounts(t.db);
      expect(afterFirst.opportunities).toBe(before.opportunities + 1);
      expect(afterFirst.offers).toBe(before.offers + 1);

      // A model retrying (sequentially and concurrently) and an integrator retrying through REST with the same key.
      const { replayed: _first, ...createdData } = created;
      const retries = [await callTool(client, 'submit_application', args), ...(await Promise.all([1, 2, 3].map(() => callTool(client, 'submit_application', args))))];
      for (const retry of retries) {
        const { replayed, ...data } = retry.structuredContent as any;
        expect(replayed).toBe(true);
        expect(data).toEqual(createdData);
        expect(textOf(retry)).toMatch(/already been filed/);
      }
      const viaRest = await rest(key, `/units/${unitId}/applications`, { method: 'POST', body: application(args.client.email), headers: { 'idempotency-key': idempotencyKey } });
      expect(viaRest.status).toBe(201);
      expect(viaRest.json.data.opportunity.id).toBe(created.opportunity.id);
      expect(await crmCounts(t.db)).toEqual(afterFirst);
    });

    it('concurrent first attempts with one idempotency key file one application', async () => {
      const idempotencyKey = randomUUID();
      const before = await crmCounts(t.db);
      const args = { unit_id: unitId, idempotency_key: idempotencyKey, ...application(`race.${idempotencyKey}@example.com`) };
      const results = await Promise.all([1, 2, 3, 4].map(() => callTool(client, 'submit_application', args)));
      const ok = results.filter((result) => !result.isError);
      expect(ok.length).toBeGreaterThan(0);
      expect(new Set(ok.map((result) => (result.structuredContent as any).opportunity.id)).size).toBe(1);
      for (const result of results.filter((r) => r.isError)) expect(textOf(result)).toBe('a request with this Idempotency-Key is still being processed; retry later');
      const after = await crmCounts(t.db);
      expect(after.opportunities).toBe(before.opportunities + 1);
    });

    it('the same key with other arguments, a missing key, invalid fields: the API\u2019s messages, nothing written', async () => {
      const idempotencyKey = randomUUID();
      await callTool(client, 'submit_application', { unit_id: unitId, idempotency_key: idempotencyKey, ...application(`a.${idempotencyKey}@example.com`) });
      const before = await crmCounts(t.db);
      const conflict = await callTool(client, 'submit_application', { unit_id: unitId, idempotency_key: idempotencyKey, ...application(`b.${idempotencyKey}@example.com`) });
      expect(conflict.structuredContent).toEqual({ status: 'error', http_status: 409, message: 'Idempotency-Key was already used with a different request body' });

      const missing = await callTool(client, 'submit_application', { unit_id: unitId, ...application('c@example.com') });
      expect(textOf(missing)).toBe('idempotency_key is required');
      const spaced = await callTool(client, 'submit_application', { unit_id: unitId, idempotency_key: 'has space', ...application('c@example.com') });
      expect(textOf(spaced)).toBe('idempotency_key must be 1 to 255 visible ASCII characters (no spaces)');

      for (const body of [
        { client: { first_name: '  ', email: 'x@example.com' } },
        { client: { first_name: 'No', last_name: 'Contact' } },
        { client: { first_name: 'A', email: 'no-at-sign' } },
        { client: { first_name: 'A', email: 'a@example.com' }, currency: 'aed' },
        { client: { first_name: 'A', email: 'a@example.com' }, preferences: { min_budget: 5, max_budget: 1 } },
        { client: { first_name: 'A', email: 'a@example.com' }, colour: 'blue' },
      ]) {
        const viaRest = await rest(key, `/units/${unitId}/applications`, { method: 'POST', body });
        expect(viaRest.status, JSON.stringify(body)).toBe(400);
        const result = await callTool(client, 'submit_application', { unit_id: unitId, idempotency_key: randomUUID(), ...body });
        expect(result.structuredContent, JSON.stringify(body)).toEqual({ status: 'error', http_status: 400, message: viaRest.json.message });
      }
      const hidden = await t.db.selectFrom('units').select('id').where('project_id', 'not in', (await rest(key, '/projects/list')).json.data.items.map((i: any) => i.id)).executeTakeFirstOrThrow();
      expect(textOf(await callTool(client, 'submit_application', { unit_id: hidden.id, idempotency_key: randomUUID(), ...application('d@example.com') }))).toBe('unit not found');
      expect(await crmCounts(t.db)).toEqual(before);
    });
  });
});

describe('MCP endpoint under the rate limit', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp('pglite', catalogueBundle(), { RATE_LIMIT: '3', RATE_LIMIT_WINDOW_S: '60' });
    baseUrl = await listen(t.app);
  }, 300_000);
  afterAll(() => t?.close());

  it('counts MCP requests against the key\u2019s allowance and refuses with the API\u2019s 429', async () => {
    const secret = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID });
    const send = () =>
      fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: { 'x-api-key': secret, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    for (let i = 0; i < 3; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBe(`"per-key";r=${2 - i};t=${res.headers.get('ratelimit')!.split('t=')[1]}`);
    }
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as any).error.message).toMatch(/^rate limit exceeded, retry in \d+ seconds?$/);
  });
});
