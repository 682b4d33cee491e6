import type { Database } from '../db/database.js';
import { afterAttempt, type RetryPolicy } from '../domain/webhook-retry.js';
import { WEBHOOK_CHANNEL } from '../domain/webhook-events.js';
import type { Listener } from '../db/postgres-listener.js';
import { createPoolSlots, halfThePool, type PoolSlots } from '../db/pool-slots.js';
import { claimDueDeliveries, nextDueAt, pruneDeliveryLog, recordAttempt, type AttemptRecord, type ClaimedDelivery } from '../queries/webhook-deliveries.js';
import { signMessage } from './signing.js';
import { postWebhook, type PostResult } from './transport.js';

/*
 * The delivery worker of an API process. It sleeps until something is due: woken by the
 * notification that deliveries were queued (sent at the commit of the change, by any process), or by
 * its timer set to the next retry (at most IDLE_CHECK_MS, which also catches endpoints re-enabled and
 * leases of dead processes running out). Awake, it claims due deliveries up to its concurrency and
 * posts them; each outcome is written back (src/queries/webhook-deliveries.ts says how claims and
 * leases make this at least once across processes).
 */
export interface DeliveryOptions {
  /** Per attempt (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  allowPrivate: boolean;
  retry: RetryPolicy;
}

export interface WorkerOptions extends DeliveryOptions {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  onError?: (error: unknown, context: string) => void;
}

export interface DeliveryWorker {
  /** Claims what is due now (tests and the CLI call it after queuing). */
  wake(): void;
  close(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 16;
const IDLE_CHECK_MS = 5_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** How long a claim holds a delivery: past the attempt's timeout, with room for writing the outcome. */
export const leaseMs = (timeoutMs: number) => timeoutMs * 2 + 5_000;

/**
 * Outcomes written at once by one worker: half the pool, as for applications. Attempts end in bursts
 * (a refusing endpoint fails 16 in a millisecond); without a cap their writes queued in the pool
 * ahead of the requests' reads; with only 2, outcomes at 200 events/s on a loaded machine could not
 * be written as fast as they came (docs/performance.md, "Webhooks").
 */
const outcomeWrites = (database: Database) => halfThePool(database.poolSize);

/** Posts one claimed delivery, signed with its endpoint's secrets, and writes the outcome (through `writes` when given). */
export async function attemptDelivery(database: Database, delivery: ClaimedDelivery, options: DeliveryOptions, writes?: PoolSlots): Promise<PostResult & { record: AttemptRecord }> {
  const headers = signMessage(delivery.message_id, delivery.body, delivery.secrets);
  const result = await postWebhook(delivery.url, { ...headers }, delivery.body, options);
  const record = attemptRecord(result, delivery, options.retry, leaseMs(options.timeoutMs));
  const write = () => recordAttempt(database.primary, delivery, record);
  await (writes ? writes.run(write) : write());
  return { ...result, record };
}

function attemptRecord(result: PostResult, delivery: ClaimedDelivery, policy: RetryPolicy, lease: number): AttemptRecord {
  const next = afterAttempt(result.status, delivery.attempts, delivery.age_ms + result.ms, policy);
  const status = result.status ?? null;
  const error = result.error ?? (result.status === undefined ? null : `HTTP ${result.status}`);
  const at = new Date().toISOString();
  switch (next.kind) {
    case 'delivered':
      return { kind: 'delivered', status: result.status! };
    case 'failed':
      // No answer at all: the endpoint is down or hanging, and this delivery probes it for the others
      // (src/queries/webhook-deliveries.ts); they wait until a lease past its next attempt.
      if (result.status === undefined) return { kind: 'retry', status, error, delayMs: next.delayMs, holdOthersMs: next.delayMs + lease };
      return { kind: 'retry', status, error, delayMs: next.delayMs };
    case 'gone':
      return { kind: 'failed', status, error, disableReason: `the endpoint answered 410 Gone at ${at} (delivery ${delivery.id})` };
    case 'given up':
      return { kind: 'failed', status, error, disableReason: `delivery ${delivery.id} failed for ${Math.round(policy.retryForMs / 3_600_000)} h (last: ${error}) at ${at}` };
  }
}

export async function startDeliveryWorker(database: Database, options: WorkerOptions): Promise<DeliveryWorker> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const onError = options.onError ?? (() => {});
  const lease = leaseMs(options.timeoutMs);
  // A write that waited past the rest of the lease is dropped: the delivery is attempted again (at least once).
  const writes = createPoolSlots('outcome write', outcomeWrites(database), lease - options.timeoutMs);
  const db = database.primary;
  let inFlight = 0;
  let pumping = false;
  let again = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const attempts = new Set<Promise<unknown>>();

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(wake, Math.max(0, Math.min(ms, IDLE_CHECK_MS)));
  };

  async function pump(): Promise<void> {
    while (!closed && inFlight < concurrency) {
      const claimed = await claimDueDeliveries(db, concurrency - inFlight, lease);
      if (claimed.length === 0) break;
      for (const delivery of claimed) {
        inFlight += 1;
        const attempt = attemptDelivery(database, delivery, options, writes)
          .catch((error: unknown) => onError(error, `webhook delivery ${delivery.id}`))
          .finally(() => {
            inFlight -= 1;
            attempts.delete(attempt);
            wake();
          });
        attempts.add(attempt);
      }
    }
    if (inFlight < concurrency) {
      const due = await nextDueAt(db);
      schedule(due === null ? IDLE_CHECK_MS : due);
    }
  }

  function wake(): void {
    if (closed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    pump()
      .catch((error: unknown) => {
        onError(error, 'webhook delivery worker');
        schedule(IDLE_CHECK_MS);
      })
      .finally(() => {
        pumping = false;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  const listener: Listener = await database.listen(WEBHOOK_CHANNEL, {
    notification: () => wake(),
    up: () => wake(),
    down: (error) => onError(error, 'webhook notifications lost; checking every few seconds until they are back'),
  });
  const prune = () => pruneDeliveryLog(db).catch((error: unknown) => onError(error, 'webhook log pruning'));
  void prune();
  const pruner = setInterval(prune, PRUNE_EVERY_MS);
  pruner.unref();
  wake();

  return {
    wake,
    async close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(pruner);
      await listener.close();
      // Attempts in flight finish (each within its timeout) and write their outcome before the database closes.
      await Promise.allSettled([...attempts]);
    },
  };
}
