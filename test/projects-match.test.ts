import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp, type StartedApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';
import { callTool, listen, mcpClient, textOf } from './helpers/mcp.js';

/*
 * `match=true` (issue 24, "what matched"), with figures worked out by hand: a 2-bedroom filter gives
 * each project's cheapest 2-bedroom price and how many 2-bedroom units it has, where `price_from` stays
 * the lowest price of all its units. Deleted units never count; unpriced ones count but have no price.
 */

const bundle: Bundle = withRecords(baseBundle(), {
  currency_rates: [{ currency: 'USD', aed_per_unit: 3.6725, as_of: '2026-11-20T12:00:00Z' }],
  projects: [
    { id: 1, company_id: DEV, name: 'Creek Vista', latitude: 25.2, longitude: 55.3 },
    { id: 2, company_id: DEV, name: 'Palm Gardens', latitude: 25.201, longitude: 55.301 },
    { id: 3, company_id: DEV, name: 'Empty Shell', latitude: 25.202, longitude: 55.302 },
    { id: 4, company_id: DEV, name: 'Harbour Point', currency: 'USD', latitude: 25.203, longitude: 55.303 },
  ],
  units: [
    { id: 11, project_id: 1, unit_number: 'S-1', bedrooms: 0, status: 4, price: 368101, unit_area: 35 },
    { id: 12, project_id: 1, unit_number: 'A-1', bedrooms: 2, status: 4, price: 1103560, unit_area: 74.5 },
    { id: 13, project_id: 1, unit_number: 'A-2', bedrooms: 2, status: 3, price: 1250000, unit_area: 80, parking: 2, tag_ids: [1] },
    { id: 14, project_id: 1, unit_number: 'A-3', bedrooms: 2, status: 4, unit_area: 70.2 },
    { id: 15, project_id: 1, unit_number: 'A-4', bedrooms: 2, status: 4, price: 900000, unit_area: 60, deleted: true },
    { id: 16, project_id: 1, unit_number: 'B-1', bedrooms: 3, status: 4, price: 2000000, unit_area: 120 },
    { id: 21, project_id: 2, unit_number: 'G-1', bedrooms: 2, status: 4, unit_area: 90 },
    { id: 22, project_id: 2, unit_number: 'G-2', bedrooms: 1, status: 4, price: 700000, unit_area: 60 },
    // 320,000 USD is 1,175,200 AED: a smaller number than Creek Vista's 1,103,560 AED, a larger value.
    { id: 41, project_id: 4, unit_number: 'H-1', bedrooms: 2, status: 4, price: 320000, unit_area: 65 },
  ],
});

type Match = { units: number; price_from: number | null; size_from: number | null };
type Item = { id: number; name: string; price_from: number | null; size_from: number | null; currency: string; match?: Match };

describe.each(drivers)('match=true (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let marked: string;
  let assertDocumented: StartedApp['assertDocumented'];
  useTestApp(driver, bundle, async (started) => {
    ({ t, key, assertDocumented } = started);
    marked = await t.key({ priceVector: 10 });
  }, { documented: true });

  const get = async (url: string, secret = key) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    // A `fields=` selection leaves out properties the document requires: only full answers are checked.
    if (!url.includes('fields=')) assertDocumented('GET', new URL(url, 'http://x').pathname, 200, res.json());
    return res;
  };
  const items = async (query: string, secret = key) => (await get(`/projects?${query}`, secret)).json().data.items as Item[];
  const byName = (list: Item[]) => Object.fromEntries(list.map((item) => [item.name, item]));

  it('bedrooms=2: the cheapest 2-bedroom price and the number of 2-bedroom units, price_from still the lowest of all', async () => {
    const found = byName(await items('bedrooms=2&match=true'));
    expect(Object.keys(found).sort()).toEqual(['Creek Vista', 'Harbour Point', 'Palm Gardens']);
    // Three live 2-bedroom units (the deleted one at 900,000 does not count), one of them unpriced.
    expect(found['Creek Vista']).toMatchObject({ price_from: 368101, size_from: 35, match: { units: 3, price_from: 1103560, size_from: 70.2 } });
    // Its only 2-bedroom unit has no price: the project matches, the match has no price.
    expect(found['Palm Gardens']).toMatchObject({ price_from: 700000, match: { units: 1, price_from: null, size_from: 90 } });
    expect(found['Harbour Point']).toMatchObject({ currency: 'USD', price_from: 320000, match: { units: 1, price_from: 320000, size_from: 65 } });
  });

  it('asked again (a kept search), each page is its own: the pages of one search, in the key\u2019s prices, as asked the first time', async () => {
    const pages = ['bedrooms=2&match=true&limit=1&offset=0', 'bedrooms=2&match=true&limit=1&offset=1', 'bedrooms=2&match=true&limit=2&offset=1'];
    const first = await Promise.all(pages.map(async (query) => JSON.stringify(await items(query))));
    const markedFirst = JSON.stringify(await items(pages[0], marked));
    for (let ask = 0; ask < 3; ask++) {
      for (const [k, query] of pages.entries()) expect(JSON.stringify(await items(query)), query).toBe(first[k]);
      expect(JSON.stringify(await items(pages[0], marked))).toBe(markedFirst);
    }
    expect(new Set(first).size).toBe(3);
    expect(markedFirst).not.toBe(first[0]);
  });

  it('every unit-level filter narrows the units counted: price, tags, statuses, parking, size', async () => {
    const only = async (query: string) => {
      const list = await items(`${query}&match=true`);
      expect(list.map((item) => item.name), query).toEqual(['Creek Vista']);
      return list[0].match;
    };
    expect(await only('bedrooms=2&price_min=1200000')).toEqual({ units: 1, price_from: 1250000, size_from: 80 });
    expect(await only('bedrooms=2&unit_preference_ids=1')).toEqual({ units: 1, price_from: 1250000, size_from: 80 });
    expect(await only('parking_min=2')).toEqual({ units: 1, price_from: 1250000, size_from: 80 });
    expect(await only('statuses=4&size_min=70&size_max=100&price_max=1500000')).toEqual({ units: 1, price_from: 1103560, size_from: 74.5 });
    // 14,812.89 and 15,625 per m²; unpriced units have no price per m², so they never count.
    expect(await only('bedrooms=2&price_per_m2_min=10000')).toEqual({ units: 2, price_from: 1103560, size_from: 74.5 });
  });

  it('in the key\u2019s prices and, with currency=, in that currency, exactly as price_from', async () => {
    const marked10 = byName(await items('bedrooms=2&match=true', marked));
    // 368,101 x 1.1 and 1,103,560 x 1.1.
    expect(marked10['Creek Vista']).toMatchObject({ price_from: 404911.1, match: { units: 3, price_from: 1213916, size_from: 70.2 } });
    const inUsd = byName(await items('bedrooms=2&match=true&currency=USD'));
    // 1,103,560 / 3.6725 = 300,492.852... and 368,101 / 3.6725 = 100,231.722...
    expect(inUsd['Creek Vista']).toMatchObject({ currency: 'USD', price_from: 100231.72, match: { units: 3, price_from: 300492.85 } });
    expect(inUsd['Harbour Point']).toMatchObject({ currency: 'USD', match: { price_from: 320000 } });
  });

  it('without unit-level filters: the project\u2019s own figures, 0 units and nulls for a project without units', async () => {
    const found = byName(await items('match=true'));
    expect(found['Creek Vista']).toMatchObject({ price_from: 368101, size_from: 35, match: { units: 5, price_from: 368101, size_from: 35 } });
    expect(found['Empty Shell']).toMatchObject({ price_from: null, size_from: null, match: { units: 0, price_from: null, size_from: null } });
    for (const item of Object.values(found)) expect(item.match).toMatchObject({ price_from: item.price_from, size_from: item.size_from });
  });

  it('without match=true the answer is the one without it, byte for byte; fields= and the POST form take it', async () => {
    const plain = await get('/projects?bedrooms=2');
    expect(plain.body).not.toContain('"match"');
    expect((await get('/projects?bedrooms=2&match=false')).body).toBe(plain.body);
    const withMatch = await get('/projects?bedrooms=2&match=true');
    expect(withMatch.body.replace(/,"match":\{[^{}]*\}/g, '')).toBe(plain.body);
    const picked = (await items('bedrooms=2&match=true&fields=id,match')) as unknown as Record<string, unknown>[];
    expect(picked.map((item) => Object.keys(item))).toEqual(picked.map(() => ['id', 'match']));
    const posted = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': key }, payload: { bedrooms: '2', match: true } });
    expect(posted.body).toBe(withMatch.body);
    const bad = await t.app.inject({ method: 'GET', url: '/projects?match=maybe', headers: { 'x-api-key': key } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^match/);
  });

  it('clusters: units summed, the lowest match price by value across currencies, the smallest size', async () => {
    const res = await get('/projects/clusters?bbox=55,25,56,26&zoom=0&bedrooms=2&match=true');
    const [cluster, ...others] = res.json().data.clusters;
    expect(others).toEqual([]);
    // The cluster's own lowest price is Creek Vista's studio; its cheapest 2-bedroom by value is Creek Vista's
    // 1,103,560 AED, not Harbour Point's 320,000 USD (1,175,200 AED); the smallest is Harbour Point's.
    expect(cluster).toMatchObject({ count: 3, price_from: 368101, currency: 'AED', match: { units: 5, price_from: 1103560, currency: 'AED', size_from: 65 } });
    const inUsd = (await get('/projects/clusters?bbox=55,25,56,26&zoom=0&bedrooms=2&match=true&currency=USD')).json().data.clusters[0];
    expect(inUsd.match).toEqual({ units: 5, price_from: 300492.85, currency: 'USD', size_from: 65 });
    const plain = (await get('/projects/clusters?bbox=55,25,56,26&zoom=0&bedrooms=2')).json().data.clusters[0];
    expect(plain).not.toHaveProperty('match');
  });

  describe('MCP search_projects', () => {
    let client: Client | undefined;
    afterAll(async () => client?.close());

    it('with match: true and unit-level filters, the match in its text and structured content', async () => {
      client = await mcpClient(await listen(t.app), { 'X-API-Key': key });
      const result = await callTool(client, 'search_projects', { bedrooms: '2', match: true });
      const rest = (await get('/projects?bedrooms=2&match=true')).json().data;
      expect(result.structuredContent).toEqual(rest);
      const text = textOf(result);
      expect(text).toContain('[project 1] Creek Vista by Emaar Properties: from AED 368,101');
      expect(text).toContain('3 units match the unit filters, from AED 1,103,560, from 70.2 m²');
      expect(text).toContain('1 unit matches the unit filters, from price on request, from 90 m²');
      // Without unit-level filters `match` repeats the project's figures: in the structured content only.
      const unfiltered = await callTool(client, 'search_projects', { match: true });
      expect((unfiltered.structuredContent as { items: Item[] }).items[0].match).toBeDefined();
      expect(textOf(unfiltered)).not.toContain('unit filters');
      expect(textOf(await callTool(client, 'search_projects', { bedrooms: '2' }))).not.toContain('unit filters');
    });
  });
});
