import type { Fixtures } from './fixtures.js';
import type { LoadRequest } from './load.js';

/*
 * The benchmarked requests. Catalogue reads use the key with a price vector (+1.1 %), as a partner
 * with a markup would, so the pricing path is always exercised; /whoIAm and applications use the plain
 * key. Ids rotate over a sample of what the key can see; applications carry a unique client email per
 * request, so each 201 must create exactly one client.
 */
export interface Scenario {
  name: string;
  /** Shown in the report: the request shape. */
  label: string;
  request: LoadRequest;
  /** The path changes per request: the typical size is the median of several probes. */
  rotating: boolean;
  /** Creates rows (applications): probes and runs are counted, and the count is checked afterwards. */
  writes: boolean;
  /**
   * The number of ids the path rotates over, when what the server keeps per id is made on first use
   * (the detail scenarios): one pass over them runs first, timed on its own as the first pass, so that
   * the warm-up and the measured run see the steady state whatever the warm-up's length.
   */
  rotation?: number;
  /** Problems with a 2xx probe body (e.g. an empty page), as warnings. */
  inspect?: (body: unknown) => string | undefined;
}

export const SCENARIO_NAMES = [
  'whoami',
  'projects',
  'projects-typical',
  'projects-typical-match',
  'projects-geo',
  'projects-unit-tags',
  'projects-worst',
  'projects-deep',
  'projects-sort',
  'projects-facets',
  'projects-typical-usd',
  'projects-unit-tags-uncached',
  'projects-worst-uncached',
  'projects-facets-uncached',
  'projects-bbox-uncached',
  'projects-polygon-uncached',
  'clusters-dubai',
  'clusters-dubai-uncached',
  'project-detail',
  'project-detail-br',
  'project-detail-lean',
  'project-contacts',
  'unit-detail',
  'projects-list',
  'mcp-search-typical',
  'applications',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const TYPICAL_QUERY = 'bedrooms=2&price_max=3000000&near_transport=true';
/** The typical search, cheapest first. */
export const SORT_QUERY = `${TYPICAL_QUERY}&sort=price_from`;
/*
 * The typical search with every price in USD (issue 22's `currency=`): its price bound is the same
 * 3,000,000 AED in USD at the demo's rate (3.6725), so it selects about the same projects. Target:
 * within 10 % of projects-typical's req/s.
 */
export const TYPICAL_USD_QUERY = 'bedrooms=2&price_max=816882&near_transport=true&currency=USD';
/*
 * The typical search with what matched inside each project (issue 24's `match=true`: the page's
 * items walk their units again). Target: within 10 % of projects-typical's req/s.
 */
export const TYPICAL_MATCH_QUERY = `${TYPICAL_QUERY}&match=true`;
/*
 * A project page as it needs the detail (issue 25): what it shows, and the nearest three facilities of
 * each category without their master data.
 */
export const LEAN_DETAIL_QUERY = 'fields=name,description,location,cost,media,units,nearby_facilities&nearby=summary&nearby_limit=3';
/** The typical search with the counts a filter panel shows. */
export const FACETS_QUERY = `${TYPICAL_QUERY}&facets=bedrooms,statuses,development_status,developer,unit_types,area`;

/*
 * Map search (issue 24). Clusters of all of Dubai at zoom 10 with the typical filters (target: >= 5,000
 * req/s cached, >= 2,000 never cached, p99 <= 30 ms, <= 200 clusters, <= 20 KB). A viewport of about
 * 12 x 11 km and a concave 50-vertex star of about the same size around the geo scenario's centre,
 * with the typical filters (target: >= 2,000 req/s never cached, p99 <= 30 ms).
 */
export const DUBAI_BBOX = '54.9,24.75,55.65,25.4';
export const CLUSTERS_QUERY = `zoom=10&bbox=${DUBAI_BBOX}&${TYPICAL_QUERY}`;

export function viewportAround(lat: number, lng: number): string {
  const round = (value: number) => Math.round(value * 1e5) / 1e5;
  return [lng - 0.06, lat - 0.05, lng + 0.06, lat + 0.05].map(round).join(',');
}

/** A star of `vertices` points (alternately 0.06 and 0.035 degrees from the centre): concave, simple. */
export function starAround(lat: number, lng: number, vertices = 50): string {
  const round = (value: number) => Math.round(value * 1e5) / 1e5;
  const points: number[] = [];
  for (let k = 0; k < vertices; k++) {
    const angle = (2 * Math.PI * k) / vertices;
    const radius = k % 2 === 0 ? 0.06 : 0.035;
    points.push(round(lng + radius * Math.cos(angle)), round(lat + radius * Math.sin(angle)));
  }
  return points.join(',');
}

function rotate<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length];
}

/*
 * The same search with `price_max` (or `parameter`) raised by one more at every request: a search the
 * snapshot's result cache (src/search/result-cache.ts) has not seen, so each request pays the full pass,
 * as the first visitor of a search does. The answer barely moves (a few dirhams on a bound of millions).
 * Also bench/http-ab.ts's `--raise`.
 */
export function neverSeenBefore(query: string, path = '/projects', parameter = 'price_max'): () => string {
  let step = 0;
  return () => {
    const params = new URLSearchParams(query);
    const value = Number(params.get(parameter) ?? 50_000_000);
    params.set(parameter, String(value + ++step));
    return `${path}?${params.toString().replace(/%2C/g, ',')}`;
  };
}

/*
 * The typical search as an MCP tool call (POST /mcp, tools/call search_projects, stateless: no
 * initialize before it, as a second instance would receive it). Compared with projects-typical: the
 * target is at least half of its req/s.
 */
const MCP_SEARCH_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'search_projects', arguments: Object.fromEntries(new URLSearchParams(TYPICAL_QUERY)) },
});

function nonEmptyToolResult(body: unknown): string | undefined {
  const result = (body as { result?: { isError?: boolean; structuredContent?: { total?: number; items?: unknown[] } } }).result;
  if (!result || result.isError) return `not a tool result: ${JSON.stringify(body).slice(0, 200)}`;
  if (!result.structuredContent?.items?.length) return 'empty page: the scenario does not exercise the item building';
  return undefined;
}

function someClusters(body: unknown): string | undefined {
  const data = (body as { data?: { total?: number; clusters?: unknown[] } }).data;
  if (!data?.clusters?.length) return `no cluster (total ${data?.total ?? '?'}): the scenario does not exercise the grid`;
  return undefined;
}

function nonEmptyPage(body: unknown): string | undefined {
  const data = (body as { data?: { total?: number; items?: unknown[] } }).data;
  if (!data?.items?.length) return `empty page (total ${data?.total ?? '?'}): the scenario does not exercise the item building`;
  return undefined;
}

function nonEmptyMatchedPage(body: unknown): string | undefined {
  const items = (body as { data?: { items?: { match?: unknown }[] } }).data?.items;
  return nonEmptyPage(body) ?? (items?.every((item) => item.match !== undefined) ? undefined : 'an item without `match`: the scenario does not exercise it');
}

export function buildScenarios(fixtures: Fixtures, runId: string): Scenario[] {
  const plain = { 'x-api-key': fixtures.keys.plain.secret };
  const markup = { 'x-api-key': fixtures.keys.markup.secret };
  const get = (path: string | (() => string), headers: Record<string, string> = markup): LoadRequest => ({ method: 'GET', path, headers });
  const list = (name: ScenarioName, query: string, label = `/projects?${query}`): Scenario => ({
    name,
    label,
    request: get(query ? `/projects?${query}` : '/projects'),
    rotating: false,
    writes: false,
    inspect: nonEmptyPage,
  });

  const { geo, unitTag } = fixtures;
  const unitTagQuery = `unit_preference_ids=${unitTag.tagId}&price_min=${unitTag.priceMin}&price_max=${unitTag.priceMax}`;
  const nextProject = rotate(fixtures.projectIds);
  const nextUnit = rotate(fixtures.unitIds);
  const applicationUnit = rotate(fixtures.unitIds);
  let applicationNumber = 0;

  const scenarios: Scenario[] = [
    { name: 'whoami', label: '/whoIAm', request: get('/whoIAm', plain), rotating: false, writes: false },
    list('projects', '', '/projects'),
    list('projects-typical', TYPICAL_QUERY),
    { ...list('projects-typical-match', TYPICAL_MATCH_QUERY), inspect: nonEmptyMatchedPage },
    list('projects-geo', `lat=${geo.lat}&lng=${geo.lng}&radius_km=${geo.radiusKm}`),
    list('projects-unit-tags', unitTagQuery),
    list('projects-worst', fixtures.worstQuery, '/projects?<every filter>'),
    list('projects-deep', `limit=20&offset=${fixtures.deepOffset}`),
    list('projects-sort', SORT_QUERY),
    list('projects-facets', FACETS_QUERY),
    list('projects-typical-usd', TYPICAL_USD_QUERY),
    ...(
      [
        ['projects-unit-tags-uncached', unitTagQuery],
        ['projects-worst-uncached', fixtures.worstQuery],
        ['projects-facets-uncached', FACETS_QUERY],
      ] as const
    ).map(([name, query]): Scenario => ({
      name,
      label: `${name.replace('-uncached', '').replace('projects', '/projects')}, price_max +1 per request (never cached)`,
      request: get(neverSeenBefore(query)),
      rotating: true,
      writes: false,
      inspect: nonEmptyPage,
    })),
    ...(
      [
        ['projects-bbox-uncached', `bbox=${viewportAround(geo.lat, geo.lng)}&${TYPICAL_QUERY}`, '/projects?bbox=<12 x 11 km>&<typical>'],
        ['projects-polygon-uncached', `polygon=${starAround(geo.lat, geo.lng)}&${TYPICAL_QUERY}`, '/projects?polygon=<50-vertex star>&<typical>'],
      ] as const
    ).map(([name, query, label]): Scenario => ({
      name,
      label: `${label}, price_max +1 per request (never cached)`,
      request: get(neverSeenBefore(query)),
      rotating: true,
      writes: false,
      inspect: nonEmptyPage,
    })),
    {
      name: 'clusters-dubai',
      label: `/projects/clusters?${CLUSTERS_QUERY}`,
      request: get(`/projects/clusters?${CLUSTERS_QUERY}`),
      rotating: false,
      writes: false,
      inspect: someClusters,
    },
    {
      name: 'clusters-dubai-uncached',
      label: '/projects/clusters (all of Dubai, zoom 10, typical), price_max +1 per request (never cached)',
      request: get(neverSeenBefore(CLUSTERS_QUERY, '/projects/clusters')),
      rotating: true,
      writes: false,
      inspect: someClusters,
    },
    {
      name: 'project-detail',
      label: `/projects/{id} (${fixtures.projectIds.length} ids)`,
      request: get(() => `/projects/${nextProject()}`),
      rotation: fixtures.projectIds.length,
      rotating: true,
      writes: false,
    },
    {
      // Issue 25: compressed once, the same rotation asked with `Accept-Encoding: br` (target >= 1,500 req/s).
      name: 'project-detail-br',
      label: `/projects/{id} (${fixtures.projectIds.length} ids), Accept-Encoding: br`,
      request: get(() => `/projects/${nextProject()}`, { ...markup, 'accept-encoding': 'br' }),
      rotation: fixtures.projectIds.length,
      rotating: true,
      writes: false,
    },
    {
      // Issue 25: a project page's lean form (target >= 8,000 req/s, <= 30 KB before compression).
      name: 'project-detail-lean',
      label: `/projects/{id}?${LEAN_DETAIL_QUERY} (${fixtures.projectIds.length} ids)`,
      request: get(() => `/projects/${nextProject()}?${LEAN_DETAIL_QUERY}`),
      rotation: fixtures.projectIds.length,
      rotating: true,
      writes: false,
    },
    {
      // Issue 25: the developer and its staff, from memory.
      name: 'project-contacts',
      label: `/projects/{id}/contacts (${fixtures.projectIds.length} ids)`,
      request: get(() => `/projects/${nextProject()}/contacts`),
      rotation: fixtures.projectIds.length,
      rotating: true,
      writes: false,
    },
    {
      name: 'unit-detail',
      label: `/units/{id} (${fixtures.unitIds.length} ids)`,
      request: get(() => `/units/${nextUnit()}`),
      rotation: fixtures.unitIds.length,
      rotating: true,
      writes: false,
    },
    { name: 'projects-list', label: '/projects/list', request: get('/projects/list'), rotating: false, writes: false },
    {
      name: 'mcp-search-typical',
      label: `POST /mcp tools/call search_projects (${TYPICAL_QUERY})`,
      request: {
        method: 'POST',
        path: '/mcp',
        headers: { ...markup, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: MCP_SEARCH_BODY,
      },
      rotating: false,
      writes: false,
      inspect: nonEmptyToolResult,
    },
    {
      name: 'applications',
      label: 'POST /units/{id}/applications',
      request: {
        method: 'POST',
        path: () => `/units/${applicationUnit()}/applications`,
        headers: { ...plain, 'content-type': 'application/json' },
        body: () => {
          applicationNumber += 1;
          return JSON.stringify({
            client: { first_name: 'Bench', last_name: `Client ${applicationNumber}`, email: `bench-${runId}-${applicationNumber}@bench.invalid` },
            preferences: { based_on_unit: true },
            message: 'Benchmark application: please ignore.',
          });
        },
      },
      rotating: true,
      writes: true,
    },
  ];
  return scenarios;
}

export function selectScenarios(all: Scenario[], names: string[] | undefined): Scenario[] {
  if (!names) return all;
  const unknown = names.filter((name) => !all.some((scenario) => scenario.name === name));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`);
  return all.filter((scenario) => names.includes(scenario.name));
}
