import { createRequire } from 'node:module';
import autocannon from 'autocannon';

/*
 * autocannon appends every response body to a string (PipelinedRequestsQueue.addBody: `body += data`,
 * autocannon#362), decoding each chunk as UTF-8. For a compressed body, which is not UTF-8, that takes a
 * whole core of the load generator at ~500 req/s of 107 kB while the server sits at 0.3 of a core: a
 * compressed scenario would measure the load generator. The ceiling's padding is ASCII, which decodes
 * fast, so the ratios would be skewed too. No run here reads a body (the probe fetches its own), so the
 * queue keeps none.
 */
const { prototype: pipelinedRequests } = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
// An internal of autocannon's: if a version renames it, fail here rather than measure the client again.
if (typeof pipelinedRequests.addBody !== 'function') throw new Error('autocannon: PipelinedRequestsQueue.addBody not found; see bench/load.ts');
pipelinedRequests.addBody = () => {};

/*
 * One load run with autocannon's programmatic API, reduced to the figures the report needs. Requests
 * whose path or body must change on every call (rotating ids, unique emails) get them from
 * setupRequest; autocannon runs in this process, so a closure counter is shared by all connections.
 */
export type Method = 'GET' | 'POST';

export interface LoadRequest {
  method: Method;
  /** A fixed path, or one computed for every request. */
  path: string | (() => string);
  headers: Record<string, string>;
  body?: string | (() => string);
}

export interface LoadStats {
  connections: number;
  /** From the start to the last response, seconds. */
  durationS: number;
  /** Responses received (any status). */
  responses: number;
  /** responses / durationS. */
  rps: number;
  /** Milliseconds, over 2xx responses only (as autocannon does); undefined when none arrived. */
  latency: { p50: number; p90: number; p99: number; max: number; mean: number } | undefined;
  /** Status code -> count. */
  statusCodes: Record<string, number>;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
}

export interface LoadSettings {
  connections: number;
  /** Seconds of load; ignored when `amount` is given. */
  durationS: number;
  /**
   * Exactly this many requests, each awaited: nothing is left in flight at the end (a duration run
   * abandons up to `connections` requests the server still completes), so a write scenario can
   * compare the rows it created with the 201s it received.
   */
  amount?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function toAutocannonRequest(request: LoadRequest): autocannon.Request {
  const { path, body } = request;
  const base: autocannon.Request = {
    method: request.method,
    headers: request.headers,
    path: typeof path === 'string' ? path : path(),
    ...(body !== undefined && { body: typeof body === 'string' ? body : body() }),
  };
  if (typeof path === 'string' && typeof body !== 'function') return base;
  return {
    ...base,
    setupRequest: (current) => ({
      ...current,
      ...(typeof path === 'function' && { path: path() }),
      ...(typeof body === 'function' && { body: body() }),
    }),
  };
}

/*
 * Latencies are kept per response (autocannon's own histogram has whole milliseconds only, which
 * flattens a sub-millisecond endpoint at concurrency 1 to 0), and req/s is responses over the time to
 * the last response, the same definition for duration and amount runs.
 */
export async function runLoad(baseUrl: string, request: LoadRequest, settings: LoadSettings): Promise<LoadStats> {
  const latencies: number[] = [];
  let responses = 0;
  let lastResponseAt = 0;
  const startedAt = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: settings.amount === undefined ? settings.connections : Math.min(settings.connections, settings.amount),
        ...(settings.amount === undefined ? { duration: settings.durationS } : { amount: settings.amount }),
        timeout: 10,
        requests: [toAutocannonRequest(request)],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      responses += 1;
      lastResponseAt = performance.now();
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  const durationS = Math.max(0.001, ((lastResponseAt || performance.now()) - startedAt) / 1000);
  const sorted = Float64Array.from(latencies).sort();
  const latency = sorted.length
    ? {
        p50: round2(percentile(sorted, 50)),
        p90: round2(percentile(sorted, 90)),
        p99: round2(percentile(sorted, 99)),
        max: round2(sorted[sorted.length - 1]),
        mean: round2(latencies.reduce((sum, value) => sum + value, 0) / latencies.length),
      }
    : undefined;
  return {
    connections: settings.connections,
    durationS: round2(durationS),
    responses,
    rps: round2(responses / durationS),
    latency,
    statusCodes,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Responses with this status, summed over runs (e.g. the 201s of an application scenario). */
export function countStatus(runs: (LoadStats | undefined)[], status: number): number {
  return runs.reduce((sum, run) => sum + (run?.statusCodes[String(status)] ?? 0), 0);
}

export interface ProbeResult {
  path: string;
  status: number;
  /** The body's size once decoded. */
  bytes: number;
  /** The body's size as sent (Content-Length): smaller when it came compressed. */
  wireBytes: number;
  body: string;
  ms: number;
}

/** One request outside the load run: the scenario's first response must be 2xx, and its size sizes the ceiling. */
export async function probe(baseUrl: string, request: LoadRequest): Promise<ProbeResult> {
  const path = typeof request.path === 'string' ? request.path : request.path();
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : request.body();
  const started = performance.now();
  // fetch asks for compression by itself; the load runs (autocannon) send only the scenario's headers.
  const headers = Object.keys(request.headers).some((name) => name.toLowerCase() === 'accept-encoding') ? request.headers : { ...request.headers, 'accept-encoding': 'identity' };
  const response = await fetch(new URL(path, baseUrl), { method: request.method, headers, body });
  const buffer = Buffer.from(await response.arrayBuffer());
  // fetch decodes a compressed body; the ceiling is taken at the size that went over the wire.
  const sent = Number(response.headers.get('content-length'));
  const wireBytes = response.headers.get('content-encoding') && Number.isInteger(sent) && sent > 0 ? sent : buffer.length;
  return { path, status: response.status, bytes: buffer.length, wireBytes, body: buffer.toString('utf8'), ms: performance.now() - started };
}
