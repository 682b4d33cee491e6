import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { CatalogueApiError, CatalogueClient } from '../sdk/src/index.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { callTool, listen, mcpClient, textOf } from './helpers/mcp.js';
import { catalogueBundle, scenarioArb } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';

/*
 * One search through every door: GET /projects (inject), the MCP tool search_projects (the /mcp
 * endpoint, the SDK's MCP client) and the TypeScript SDK (against the listening app), for random
 * filter sets with and without `currency`, price and size bounds, bedrooms, sorts, pages and price
 * vectors. Every door gives the same projects, total and prices, or the same refusal.
 */

const SEED = Number(process.env.DOORS_SEED ?? 20261205);
const NUM_RUNS = Number(process.env.DOORS_RUNS ?? 60);
const CURRENCIES = ['AED', 'USD', 'EUR', 'XYZ'];
const SORTS = ['name', 'price_from', '-price_from', 'size_from', 'newest', '-name'];

describe.each(drivers)('REST, MCP and the SDK answer a search alike (%s)', (driver) => {
  let t: TestApp;
  let baseUrl: string;
  let catalogue: ReferenceCatalogue;
  const keys = new Map<number, Promise<string>>();
  const clients = new Map<number, Promise<Client>>();

  const keyFor = (priceVector: number) => {
    let found = keys.get(priceVector);
    if (!found) keys.set(priceVector, (found = t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector })));
    return found;
  };
  const mcpFor = (priceVector: number) => {
    let found = clients.get(priceVector);
    if (!found) clients.set(priceVector, (found = keyFor(priceVector).then((secret) => mcpClient(baseUrl, { 'X-API-Key': secret }))));
    return found;
  };

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle());
    baseUrl = await listen(t.app);
    catalogue = await loadReferenceCatalogue(t.db);
  }, 300_000);
  afterAll(async () => {
    for (const pending of clients.values()) await (await pending).close();
    await t?.close();
  });

  it('random filters, bounds, currencies, sorts, pages and price vectors: the same projects, totals and prices, or the same refusal', async () => {
    const seen = { converted: 0, found: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        scenarioArb(catalogue),
        fc.record({
          currency: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constantFrom(...CURRENCIES) }),
          priceMax: fc.option(fc.integer({ min: 50_000, max: 3_000_000 }), { nil: undefined }),
          sizeMin: fc.option(fc.integer({ min: 30, max: 200 }), { nil: undefined }),
          bedrooms: fc.option(fc.constantFrom('0', '1', '2', '1,2', '3,4'), { nil: undefined }),
          sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
          match: fc.boolean(),
        }),
        async (scenario, extra) => {
          const query: Record<string, string> = { ...scenario.query };
          if (extra.currency !== undefined) query.currency = extra.currency;
          if (extra.priceMax !== undefined) query.price_max = String(extra.priceMax);
          if (extra.sizeMin !== undefined) query.size_min = String(extra.sizeMin);
          if (extra.bedrooms !== undefined) query.bedrooms = extra.bedrooms;
          if (extra.sort !== undefined) query.sort = extra.sort;
          if (extra.match) query.match = 'true';
          const secret = await keyFor(scenario.priceVector);
          const url = `/projects?${new URLSearchParams(query)}`;
          const context = `${url} (price vector ${scenario.priceVector})`;

          const rest = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
          const mcp = await callTool(await mcpFor(scenario.priceVector), 'search_projects', query);
          const sdk = new CatalogueClient({ baseUrl, apiKey: secret });
          const viaSdk = await sdk.listProjects(query as never).then(
            (page) => ({ page, error: undefined }),
            (error: unknown) => ({ page: undefined, error }),
          );

          if (rest.statusCode === 200) {
            const data = rest.json().data;
            seen.found++;
            if (query.currency && query.currency !== 'AED' && data.items.length > 0) seen.converted++;
            expect(mcp.isError, `${context}: ${mcp.isError ? textOf(mcp) : ''}`).toBeFalsy();
            expect(mcp.structuredContent, `${context}: MCP`).toEqual(data);
            expect(viaSdk.error, `${context}: SDK`).toBeUndefined();
            expect(viaSdk.page, `${context}: SDK`).toEqual(data);
            // The digest names each project with its price in the currency of the answer.
            const text = textOf(mcp);
            for (const item of data.items as { id: number; price_from: number | null; currency: string }[]) {
              const line = text.split('\n').find((entry) => entry.startsWith(`- [project ${item.id}]`));
              expect(line, context).toBeDefined();
              if (item.price_from !== null) expect(line, context).toContain(`from ${item.currency} ${item.price_from.toLocaleString('en-US', { maximumFractionDigits: 2 })}`);
            }
          } else {
            seen.refused++;
            const { message } = rest.json();
            expect(rest.statusCode, context).toBe(400);
            expect(mcp.isError, context).toBe(true);
            expect(mcp.structuredContent, `${context}: MCP`).toEqual({ status: 'error', http_status: 400, message });
            expect(viaSdk.error, `${context}: SDK`).toBeInstanceOf(CatalogueApiError);
            expect((viaSdk.error as CatalogueApiError).status, context).toBe(400);
            expect((viaSdk.error as Error).message, context).toContain(message);
          }
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // The draws reach every case: converted prices found, and refusals (an unrated currency among them).
    expect(seen.converted).toBeGreaterThan(NUM_RUNS / 20);
    expect(seen.refused).toBeGreaterThan(0);
  }, 300_000);
});
