import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestHistogram } from './request-histogram.js';
import { TallyCounter } from './tally-counter.js';

/*
 * Every metric this service exports is defined here, in one registry of the process, so that names,
 * labels and units stay consistent and the list in docs/operations.md has one source. A subsystem
 * adds its metrics here and imports the instrument it updates (webhooks and MCP will join the same
 * way). Names follow Prometheus's conventions: `catalogue_` prefix, base units (`_seconds`, `_bytes`),
 * `_total` for counters; label values come from small fixed sets (route templates, status classes,
 * reasons), never from request data, except the opt-in per-key counter.
 *
 * Counting costs a few hundred nanoseconds, so the instruments are always updated; what is optional
 * is the listener that exposes them (METRICS_PORT, src/metrics/listener.ts) and the per-request
 * timing hooks, which are only installed when it is on (src/metrics/http-metrics.ts).
 *
 * Gauges that read the state of one running server (snapshot, pools, replicas, change signal) are not
 * here: they are collected from that server when scraped (src/service/service-gauges.ts).
 */
export const registry = new Registry();

collectDefaultMetrics({ register: registry });
// Gauges named like counters, which `promtool check metrics` refuses; each is the sum of the same
// family without `_total` (nodejs_active_handles{type}, …): `sum(nodejs_active_handles)` gives it.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);

/** Seconds, from 1 ms to 10 s: reads answer in milliseconds, applications and searches on L in tens. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequestDuration = new RequestHistogram({
  name: 'catalogue_http_request_duration_seconds',
  help: 'Time from the request arriving to the response sent, by route template (e.g. /projects/:id; "unmatched" for 404s of unknown paths), method and status class (2xx, 3xx, 4xx, 5xx).',
  labelNames: ['route', 'method', 'status_class'] as const,
  buckets: REQUEST_BUCKETS,
  registers: [registry],
});

/** Requests received and not yet answered, counted by the request hooks (src/metrics/http-metrics.ts) in a plain number read when scraped. */
export const requestsInFlight = { count: 0 };

export const httpRequestsInFlight = new Gauge({
  name: 'catalogue_http_requests_in_flight',
  help: 'Requests received and not yet answered.',
  registers: [registry],
  collect() {
    this.set(requestsInFlight.count);
  },
});

/** Only registered with METRICS_PER_KEY=true: one series per API key id, so its cardinality grows with the keys. */
export const httpRequestsByKey = new Counter({
  name: 'catalogue_http_requests_by_key_total',
  help: 'Requests authenticated with each API key id, by status class (opt-in: METRICS_PER_KEY=true).',
  labelNames: ['key_id', 'status_class'] as const,
  registers: [],
});

export const queryErrors = new Counter({
  name: 'catalogue_query_errors_total',
  help: 'Requests answered with a server error, by kind: "unavailable" (503: the database or a pool slot did not answer in time; retrying later works) or "internal" (500: a defect, logged with its stack).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const searchSnapshotBuildDuration = new Histogram({
  name: 'catalogue_search_snapshot_build_duration_seconds',
  help: 'Time to build an in-memory search snapshot from the database (at start-up and after every catalogue change), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const resultCacheRequests = new TallyCounter({
  name: 'catalogue_search_result_cache_requests_total',
  help: 'Searches looked up in the result cache of the search snapshot, by result (hit, miss). Hit ratio: hit / (hit + miss).',
  label: 'result',
  values: ['hit', 'miss'] as const,
  registers: [registry],
});

export const identityBodyRequests = new TallyCounter({
  name: 'catalogue_identity_body_cache_requests_total',
  help: 'Detail answers sent without compression (GET /units/{id}, GET /projects/{id}) looked up in the snapshot\'s cache of bodies: hit (sent as kept), miss (made and kept).',
  label: 'result',
  values: ['hit', 'miss'] as const,
  registers: [registry],
});

export const compressedBodyRequests = new TallyCounter({
  name: 'catalogue_compressed_body_cache_requests_total',
  help: 'Compressed detail answers looked up in the snapshot\'s cache of compressed bodies, by result (hit: sent without compressing, miss: compressed and kept).',
  label: 'result',
  values: ['hit', 'miss'] as const,
  registers: [registry],
});

export const nearbyBlockRequests = new TallyCounter({
  name: 'catalogue_nearby_block_requests_total',
  help: 'GET /projects/{id} nearby blocks written from what is kept as asked (without NEARBY_IN_MEMORY), by result: hit (the project\'s links and every facility text shown were kept), miss (some read and kept), ahead (the database was past the snapshot: the answer made by SQL, not kept).',
  label: 'result',
  values: ['hit', 'miss', 'ahead'] as const,
  registers: [registry],
});

export const contactsRequests = new TallyCounter({
  name: 'catalogue_contacts_requests_total',
  help: 'GET /projects/{id}/contacts answers, by result: hit (the developer\'s contacts kept in memory), miss (read from the database and kept), bypass (read, not kept: change signal reconnecting or primary down).',
  label: 'result',
  values: ['hit', 'miss', 'bypass'] as const,
  registers: [registry],
});

export const keyCacheRequests = new TallyCounter({
  name: 'catalogue_key_cache_requests_total',
  help: 'API key lookups, by result: hit (answered from the per-process cache), miss (read from the database), bypass (cache not trusted while the change signal reconnects).',
  label: 'result',
  values: ['hit', 'miss', 'bypass'] as const,
  registers: [registry],
});

export const changeSignalReconnects = new Counter({
  name: 'catalogue_change_signal_reconnects_total',
  help: 'Times the change-signal listener (PostgreSQL LISTEN) was re-established after losing its connection.',
  registers: [registry],
});

export const importDuration = new Histogram({
  name: 'catalogue_import_duration_seconds',
  help: 'Catalogue bundle imports run by this process (CLI commands passed to the service on the embedded database), by outcome: success, invalid (refused: a bad bundle, nothing written), failed (an error, rolled back).',
  labelNames: ['outcome'] as const,
  buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600],
  registers: [registry],
});

export const applicationsCreated = new Counter({
  name: 'catalogue_applications_created_total',
  help: 'Applications answered 201, by whether they were written now or replayed from an Idempotency-Key (replayed="true").',
  labelNames: ['replayed'] as const,
  registers: [registry],
});

export const applicationsRefused = new Counter({
  name: 'catalogue_applications_refused_total',
  help: 'Applications not created, by reason: invalid (400), unauthorized (401), author_gone (401), forbidden (403), unit_not_found (404), idempotency_conflict (409), rate_limited (429), offer_status_catalogue_empty (500), internal (500), unavailable (503).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const mcpToolCalls = new Counter({
  name: 'catalogue_mcp_tool_calls_total',
  help: 'MCP tools/call requests answered, by tool and outcome: ok, or error (a tool result with isError: a refused filter, an invisible id, a database outage...). Unknown tool names are not counted.',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});

/** The reasons of catalogue_applications_refused_total (src/http/routes/applications.ts counts them). */
export const APPLICATION_REFUSAL_REASONS = ['invalid', 'unauthorized', 'author_gone', 'forbidden', 'unit_not_found', 'idempotency_conflict', 'rate_limited', 'offer_status_catalogue_empty', 'internal', 'unavailable'] as const;

/*
 * Every labelled series an alert watches exists from the first scrape, at 0 (as the tally counters'
 * results do). A series born at its first event starts at 1, and increase() over it is 0: an alert on
 * "any failed build", "any failed import" or "any 500" would miss the first one.
 */
for (const kind of ['unavailable', 'internal']) queryErrors.inc({ kind }, 0);
for (const outcome of ['success', 'failed']) searchSnapshotBuildDuration.zero({ outcome });
for (const outcome of ['success', 'invalid', 'failed']) importDuration.zero({ outcome });
for (const replayed of ['true', 'false']) applicationsCreated.inc({ replayed }, 0);
for (const reason of APPLICATION_REFUSAL_REASONS) applicationsRefused.inc({ reason }, 0);

/** "2xx" for 204, etc. */
export function statusClass(statusCode: number): string {
  return `${Math.floor(statusCode / 100)}xx`;
}
