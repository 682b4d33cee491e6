import { execFileSync, spawnSync } from 'node:child_process';
import net from 'node:net';
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { detailCacheBounds } from '../src/details/detail-cache-budget.js';
import { detailCacheLabel } from '../src/service/service-gauges.js';
import { drivers } from './helpers/databases.js';
import { oneUnitCatalogue } from './helpers/fixtures.js';
import { startTestServer, type TestServer } from './helpers/running-server.js';

/*
 * The Prometheus endpoint (METRICS_PORT) of the real service, scraped over HTTP and read with an
 * independent parser of the text exposition format (parse-prometheus-text-format), not prom-client.
 */

interface Scrape {
  /** Each family with its HELP and TYPE. */
  families: Map<string, MetricFamily>;
  /**
   * Every series by its own name (`…_bucket`, `…_count`, `…_sum` apart), read without the comment
   * lines: the parser folds a histogram's series into one per `le` whatever their other labels, so
   * the values of labelled histograms are read as the plain samples they are on the wire.
   */
  series: Map<string, MetricFamily>;
  contentType: string | null;
}

/** Prometheus's own linter (Debian `prometheus`, which .ci/run installs); undefined when not installed. */
const promtool = spawnSync('promtool', ['--version']).status === 0 ? 'promtool' : undefined;

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const text = await response.text();
  // Without comments a name comes back once per run of consecutive lines (a histogram's _count follows
  // each label set's buckets): the runs are joined.
  const byName = (list: MetricFamily[]) => {
    const map = new Map<string, MetricFamily>();
    for (const family of list) {
      const known = map.get(family.name);
      if (known) known.metrics.push(...family.metrics);
      else map.set(family.name, { ...family, metrics: [...family.metrics] });
    }
    return map;
  };
  const withoutComments = text.split('\n').filter((line) => !line.startsWith('#')).join('\n');
  return { families: byName(parsePrometheusTextFormat(text)), series: byName(parsePrometheusTextFormat(withoutComments)), contentType: response.headers.get('content-type') };
}

function samples(series: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = series.get(name);
  if (!family) return [];
  return family.metrics.filter((sample) => Object.entries(labels).every(([label, value]) => sample.labels?.[label] === value));
}

/** The value of the one series matching `labels` (0 when it does not exist yet: counters start there). */
function value(series: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const found = samples(series, name, labels);
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found.length ? Number(found[0].value) : 0;
}

describe('configuration', () => {
  it('is off by default, and refuses the public port', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '0.0.0.0', perKey: false });
    expect(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '9464', METRICS_PER_KEY: 'yes' })).toThrow(/METRICS_PER_KEY/);
  });
});

describe.each(drivers)('metrics listener (%s)', (driver) => {
  let t: TestServer;
  let key: string;
  let metricsUrl: string;
  const api = (path: string, init: RequestInit = {}) => fetch(`${t.server.url}${path}`, { ...init, headers: { 'x-api-key': key, ...(init.headers ?? {}) } });
  const apply = (unitId: number, body: unknown) =>
    api(`/units/${unitId}/applications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    t = await startTestServer(driver, oneUnitCatalogue(), { METRICS_PORT: '0', METRICS_PER_KEY: 'true' });
    key = await t.key();
    metricsUrl = t.server.metricsUrl!;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the exposition format on its own port, and nothing on the public one', async () => {
    expect(new URL(metricsUrl).port).not.toBe(new URL(t.server.url).port);
    const { families, contentType } = await scrape(metricsUrl);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(families.get('catalogue_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect((await fetch(`${t.server.url}/metrics`)).status).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });

  it.skipIf(!promtool)('lints clean with promtool check metrics (Prometheus\u2019s conventions)', async () => {
    // The whole exposition, Node's default process metrics included.
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toContain('catalogue_');
    expect(text).toContain('nodejs_active_handles');
    // Exit code 0 and no complaint (it exits 3 and names the metric otherwise).
    expect(execFileSync(promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');
  });

  it('follows Prometheus naming: prefix, base units, _total on counters', async () => {
    const { families } = await scrape(metricsUrl);
    const ours = [...families.values()].filter((family) => family.name.startsWith('catalogue_'));
    expect(ours.length).toBeGreaterThan(20);
    for (const family of ours) {
      expect(family.help.length, family.name).toBeGreaterThan(10);
      if (family.type === 'COUNTER') expect(family.name).toMatch(/_total$/);
      if (family.type === 'HISTOGRAM') expect(family.name).toMatch(/_seconds$/);
      expect(family.name).not.toMatch(/_ms$|_milliseconds/);
    }
    // The process's own (prom-client's default collectors).
    expect(families.has('process_resident_memory_bytes')).toBe(true);
  });

  it('times requests by route template, method and status class, and counts them per key when asked', async () => {
    const before = (await scrape(metricsUrl)).series;
    const route = { route: '/projects/:id', method: 'GET' };
    expect((await api('/projects/100')).status).toBe(200);
    expect((await api('/projects/100')).status).toBe(200);
    expect((await api('/projects/99999')).status).toBe(404);
    expect((await api('/no/such/path')).status).toBe(404);
    const after = (await scrape(metricsUrl)).series;
    const count = (series: typeof after, labels: Record<string, string>) => value(series, 'catalogue_http_request_duration_seconds_count', labels);
    expect(count(after, { ...route, status_class: '2xx' }) - count(before, { ...route, status_class: '2xx' })).toBe(2);
    expect(count(after, { ...route, status_class: '4xx' }) - count(before, { ...route, status_class: '4xx' })).toBe(1);
    expect(count(after, { route: 'unmatched', method: 'GET', status_class: '4xx' }) - count(before, { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(1);
    // The ids never become label values: one series per template.
    const routes = samples(after, 'catalogue_http_request_duration_seconds_count').map((sample) => sample.labels?.route ?? '');
    expect(routes).toContain('/projects/:id');
    expect(routes.filter((path) => /\d/.test(path))).toEqual([]);
    const labels = { ...route, status_class: '2xx' };
    expect(value(after, 'catalogue_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(value(after, 'catalogue_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count(after, labels));
    expect(value(after, 'catalogue_http_requests_in_flight')).toBe(0);

    const keyId = String((await (await api('/whoIAm')).json()).data.api_key.id);
    const byKey = (await scrape(metricsUrl)).series;
    // 2 + 1 + /whoIAm (the unmatched path has no key: no route authenticates it). As differences: the
    // registry is the process's, and the other driver's suite counted the same key id before this one.
    const byKeyDelta = (status_class: string) =>
      value(byKey, 'catalogue_http_requests_by_key_total', { key_id: keyId, status_class }) -
      value(before, 'catalogue_http_requests_by_key_total', { key_id: keyId, status_class });
    expect(byKeyDelta('2xx')).toBe(3);
    expect(byKeyDelta('4xx')).toBe(1);
  });

  it('counts applications created and refused by reason, and key-cache lookups', async () => {
    const before = (await scrape(metricsUrl)).series;
    expect((await apply(1000, { client: { first_name: 'Jane', email: `jane.${Date.now()}@example.com` } })).status).toBe(201);
    expect((await apply(1000, { client: { first_name: 'No contact' } })).status).toBe(400);
    expect((await apply(424242, { client: { first_name: 'Jane', email: 'x@example.com' } })).status).toBe(404);
    expect((await apply(1000, { unknown: true })).status).toBe(400);
    const after = (await scrape(metricsUrl)).series;
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta('catalogue_applications_created_total', { replayed: 'false' })).toBe(1);
    expect(delta('catalogue_applications_refused_total', { reason: 'invalid' })).toBe(2);
    expect(delta('catalogue_applications_refused_total', { reason: 'unit_not_found' })).toBe(1);
    // Four requests, one key: looked up at most once per change signal, and each request counted.
    const lookups = ['hit', 'miss', 'bypass'].reduce((sum, result) => sum + delta('catalogue_key_cache_requests_total', { result }), 0);
    expect(lookups).toBe(4);
    expect(delta('catalogue_key_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
  });

  it('counts result-cache hits and misses of searches', async () => {
    const before = (await scrape(metricsUrl)).series;
    // Kept from its second sighting (the cache's doorkeeper): miss, miss, hit.
    for (let i = 0; i < 3; i++) expect((await api('/projects?bedrooms=2&limit=3')).status).toBe(200);
    const after = (await scrape(metricsUrl)).series;
    const delta = (result: string) => value(after, 'catalogue_search_result_cache_requests_total', { result }) - value(before, 'catalogue_search_result_cache_requests_total', { result });
    expect(delta('miss')).toBe(2);
    expect(delta('hit')).toBe(1);
  });

  it('shows the bytes each detail cache keeps for the snapshot in service, within its share of DETAIL_CACHE_MB', async () => {
    const caches = Object.keys(detailCacheBounds()).map(detailCacheLabel);
    const kept = (series: Map<string, MetricFamily>) => Object.fromEntries(caches.map((cache) => [cache, value(series, 'catalogue_detail_cache_bytes', { cache })]));
    const before = kept((await scrape(metricsUrl)).series);
    // A unit without compression (its identity body kept), the project with Brotli (its compressed body kept).
    expect((await api('/units/1000', { headers: { 'accept-encoding': 'identity' } })).status).toBe(200);
    expect((await api('/projects/100', { headers: { 'accept-encoding': 'br' } })).status).toBe(200);
    const { series } = await scrape(metricsUrl);
    const after = kept(series);
    const t0 = t.server.search.current();
    // The gauge is what the caches count (the routes' own caches, not copies): each as the app reports it.
    expect(after).toEqual(Object.fromEntries(Object.entries(t.server.details.keptBytes(t0)).map(([cache, bytes]) => [detailCacheLabel(cache), bytes])));
    for (const cache of ['unit_pages', 'identity_units', 'compressed_projects']) expect(after[cache], cache).toBeGreaterThan(before[cache]);
    // The project's envelope may be kept already (an earlier test asked the project).
    expect(after.project_texts).toBeGreaterThan(0);
    const bounds = detailCacheBounds(loadConfig({}).detailCacheMb);
    for (const [cache, bound] of Object.entries(bounds)) {
      const name = detailCacheLabel(cache);
      expect(value(series, 'catalogue_detail_cache_limit_bytes', { cache: name })).toBe(bound);
      expect(after[name]).toBeLessThanOrEqual(bound);
    }
  });

  it('counts requests in flight: a request whose body is still coming, until its client goes away', async () => {
    const inFlight = async () => value((await scrape(metricsUrl)).series, 'catalogue_http_requests_in_flight');
    const idle = await inFlight();
    const { hostname, port } = new URL(t.server.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /units/1000/applications HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"cli`);
    const deadline = Date.now() + 5_000;
    while ((await inFlight()) !== idle + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await inFlight()).toBe(idle + 1);
    socket.destroy();
    while ((await inFlight()) !== idle && Date.now() < deadline + 5_000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await inFlight()).toBe(idle);
  });

  it('counts MCP tool calls by tool and outcome, and shows the webhook queue', async () => {
    const before = (await scrape(metricsUrl)).series;
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      api('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
      }).then(async (response) => (await response.json()).result);
    expect((await call(1, 'search_projects', { limit: 1 })).isError).toBeUndefined();
    expect((await call(2, 'get_project', { project_id: 100 })).isError).toBeUndefined();
    expect((await call(3, 'get_project', { project_id: 424242 })).isError).toBe(true);
    const after = (await scrape(metricsUrl)).series;
    const delta = (labels: Record<string, string>) => value(after, 'catalogue_mcp_tool_calls_total', labels) - value(before, 'catalogue_mcp_tool_calls_total', labels);
    expect(delta({ tool: 'search_projects', outcome: 'ok' })).toBe(1);
    expect(delta({ tool: 'get_project', outcome: 'ok' })).toBe(1);
    expect(delta({ tool: 'get_project', outcome: 'error' })).toBe(1);
    // The same figures as /health's webhook block (no endpoint set up here: an empty queue).
    const health = (await (await fetch(`${t.server.url}/health`)).json()).data.webhooks;
    expect(value(after, 'catalogue_webhook_deliveries_pending')).toBe(health.pending);
    expect(value(after, 'catalogue_webhook_deliveries_held')).toBe(health.held);
    expect(value(after, 'catalogue_webhook_oldest_pending_age_seconds')).toBe(health.oldest_pending_age_s ?? 0);
    expect(after.has('catalogue_webhook_deliveries_pending')).toBe(true);
  });

  it('reports the search snapshot, the pools, the change signal and the shutdown state', async () => {
    const { families, series } = await scrape(metricsUrl);
    const snapshot = t.server.search.current();
    expect(value(series, 'catalogue_search_snapshot_generation')).toBe(snapshot.generation);
    expect(value(series, 'catalogue_search_snapshot_catalogue_version')).toBe(snapshot.catalogueVersion);
    expect(value(series, 'catalogue_catalogue_version')).toBe(t.server.changes.catalogueVersion);
    expect(value(series, 'catalogue_search_snapshot_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(series, 'catalogue_search_snapshot_age_seconds')).toBeLessThan(120);
    expect(value(series, 'catalogue_search_snapshot_last_build_duration_seconds')).toBeCloseTo(snapshot.buildMs / 1000, 5);
    // The first build and the one after the import, at least.
    expect(value(series, 'catalogue_search_snapshot_build_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(2);
    const pool = driver === 'postgres' ? 'primary' : 'embedded';
    expect(value(series, 'catalogue_db_pool_connections', { pool })).toBe(driver === 'postgres' ? 10 : 1);
    expect(value(series, 'catalogue_db_pool_connections_in_use', { pool })).toBeGreaterThanOrEqual(0);
    expect(value(series, 'catalogue_db_pool_waiting_requests', { pool })).toBe(0);
    expect(value(series, 'catalogue_change_signal_listening')).toBe(1);
    expect(families.has('catalogue_change_signal_reconnects_total')).toBe(true);
    expect(value(series, 'catalogue_shutting_down')).toBe(0);
    // Series an alert watches for "any increase" exist before their first event (at 0 here: none happened).
    for (const [name, labels] of [
      ['catalogue_query_errors_total', { kind: 'internal' }],
      ['catalogue_query_errors_total', { kind: 'unavailable' }],
      ['catalogue_search_snapshot_build_duration_seconds_count', { outcome: 'failed' }],
      ['catalogue_import_duration_seconds_count', { outcome: 'failed' }],
      ['catalogue_import_duration_seconds_count', { outcome: 'invalid' }],
      ['catalogue_applications_refused_total', { reason: 'rate_limited' }],
      ['catalogue_applications_refused_total', { reason: 'offer_status_catalogue_empty' }],
    ] as const) {
      expect(samples(series, name, labels), `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
      expect(value(series, name, labels)).toBe(0);
    }
    expect(families.get('catalogue_import_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(value(series, 'catalogue_import_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
  });
});
