/*
 * When a failed delivery is tried again, and when it is given up. Exponential backoff with full
 * jitter (each wait is random between half and the whole of base * 2^(n-1), capped), so that the
 * deliveries that failed together (an endpoint's outage) do not all come back in the same second.
 * A delivery is retried until RETRY_FOR_MS after it was queued; then it fails and its endpoint is
 * disabled (it says why in `webhooks list`). 410 Gone gives up at once.
 */
export const DEFAULT_RETRY_BASE_MS = 5_000;
export const MAX_RETRY_WAIT_MS = 60 * 60 * 1000;
export const DEFAULT_RETRY_FOR_MS = 72 * 60 * 60 * 1000;

export interface RetryPolicy {
  baseMs: number;
  /** How long after it was queued a delivery is still tried. */
  retryForMs: number;
}

/** Milliseconds to wait after the attempt number `attempts` (1 = the first) failed. */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_WAIT_MS, policy.baseMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type AttemptOutcome = { kind: 'delivered' } | { kind: 'gone' } | { kind: 'failed'; delayMs: number } | { kind: 'given up' };

/**
 * What follows attempt number `attempts` that ended with `status` (undefined: no answer), `ageMs`
 * after the delivery was queued.
 */
export function afterAttempt(status: number | undefined, attempts: number, ageMs: number, policy: RetryPolicy, random?: () => number): AttemptOutcome {
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  const delayMs = retryDelayMs(attempts, policy, random);
  if (ageMs + delayMs > policy.retryForMs) return { kind: 'given up' };
  return { kind: 'failed', delayMs };
}
