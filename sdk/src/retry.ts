import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first, default 2; 0 turns retrying off. */
  retries?: number;
  /** First backoff in ms, doubled per attempt with full jitter; default 250. */
  baseDelayMs?: number;
  /** Longest wait between attempts, ms, default 10,000. A `Retry-After` above it is not waited for: the answer is returned as it is. */
  maxDelayMs?: number;
}

/** Statuses worth retrying: the service promises the same request can work later (see the OpenAPI description). */
const RETRYABLE_STATUS = new Set([500, 503]);

/**
 * Whether a request may be sent again without risk of doing something twice: reads always; the
 * application (POST) only with an `Idempotency-Key`, which makes the service answer a repeat with
 * the first response instead of creating a second offer.
 */
export function isRetryable(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  return request.method === 'POST' && request.headers.has('idempotency-key');
}

/** How long to wait before attempt `attempt + 1`: `Retry-After` when given, else exponential backoff with full jitter. */
export function retryDelayMs(attempt: number, retryAfter: string | null, options: Required<RetryOptions>, random = Math.random): number {
  const told = retryAfterSeconds(retryAfter);
  if (told !== undefined) return told * 1000;
  return Math.round(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt));
}

/**
 * A fetch that resends retryable requests (above) on 500, 503 and network failures, up to
 * `retries` times. Everything else (4xx, a non-idempotent POST) is sent exactly once.
 */
export function retryingFetch(baseFetch: typeof fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const settings: Required<RetryOptions> = { retries: options.retries ?? 2, baseDelayMs: options.baseDelayMs ?? 250, maxDelayMs: options.maxDelayMs ?? 10_000 };
  return async (request) => {
    if (!isRetryable(request) || settings.retries === 0) return baseFetch(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= settings.retries;
      // Each attempt sends its own copy: a body can be read only once.
      const copy = last ? request : request.clone();
      let response: Response;
      try {
        response = await baseFetch(copy);
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(retryDelayMs(attempt, null, settings), request.signal);
        continue;
      }
      if (last || !RETRYABLE_STATUS.has(response.status)) return response;
      const delay = retryDelayMs(attempt, response.headers.get('retry-after'), settings);
      if (delay > settings.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
