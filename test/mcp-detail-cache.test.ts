import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { linkBuilder } from '../src/contract/links.js';
import type { App } from '../src/http/app.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { secondApp } from './helpers/detail-differential.js';
import { listen } from './helpers/mcp.js';
import { catalogueBundle } from './helpers/project-scenarios.js';

/*
 * MCP's get_project and GET /projects/{id} make the detail from the same per-snapshot texts: a text
 * MCP made first must be the one the route would make, byte for byte, or the route's answer would
 * depend on whether an assistant asked first. Compared with an app that never served MCP.
 */
describe.each(drivers)('a project detail asked by MCP first (%s)', (driver) => {
  let t: TestApp;
  let fresh: App;
  let baseUrl: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle());
    baseUrl = await listen(t.app);
    fresh = await secondApp(t, linkBuilder(t.config.staticBaseUrl), {});
  }, 300_000);
  afterAll(async () => {
    await fresh?.close();
    await t?.close();
  });

  it('GET /projects/{id} answers the same bytes whether MCP made the detail first or not', async () => {
    key = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector: 7.5 });
    const list = await t.app.inject({ method: 'GET', url: '/projects?limit=5', headers: { 'x-api-key': key } });
    const ids = (list.json().data.items as { id: number }[]).map((item) => item.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const res = await fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project', arguments: { project_id: id } } }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result?: { isError?: boolean } }).result?.isError).toBeFalsy();
      const [afterMcp, never] = await Promise.all(
        [t.app, fresh].map((app) => app.inject({ method: 'GET', url: `/projects/${id}?fields=name,cost,media,units,location`, headers: { 'x-api-key': key } })),
      );
      expect(afterMcp.statusCode).toBe(200);
      expect(afterMcp.body, `project ${id}`).toBe(never.body);
    }
  });
});
