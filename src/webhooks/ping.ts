import type { Database } from '../db/database.js';
import { claimUnattempted, deliveryProgress, queuePing } from '../queries/webhook-deliveries.js';
import { attemptDelivery, leaseMs, type DeliveryOptions } from './worker.js';

/*
 * `webhooks test`: a ping queued like any delivery, and its first attempt's outcome waited for. The
 * running service's workers take it (woken at the commit of the queuing, in any process: the CLI on
 * PostgreSQL, or the service itself on the embedded database), with the service's settings, so the
 * answer printed is the one the endpoint will get from the service. When nobody takes it within
 * HANDOFF_MS (no service running), the caller attempts it itself. Either way the command ends with
 * the outcome, never before it.
 */
const HANDOFF_MS = 2_000;
const POLL_MS = 50;

export interface PingOutcome {
  deliveryId: number;
  messageId: string;
  delivered: boolean;
  /** `HTTP 200`, or why there was no answer. */
  answer: string;
  ms: number | null;
}

export async function pingEndpoint(database: Database, endpointId: number, options: DeliveryOptions, handoffMs = HANDOFF_MS): Promise<PingOutcome | undefined> {
  const db = database.primary;
  const queued = await queuePing(db, endpointId);
  if (!queued) return undefined;
  const outcome = (delivered: boolean, answer: string, ms: number | null): PingOutcome => ({ deliveryId: queued.id, messageId: queued.message_id, delivered, answer, ms });
  const started = Date.now();
  // A worker's attempt lasts at most its own timeout, which may be longer than ours: wait past its lease.
  const deadline = started + handoffMs + leaseMs(Math.max(options.timeoutMs, 10_000));
  while (Date.now() < deadline) {
    const progress = await deliveryProgress(db, queued.id);
    if (!progress) return outcome(false, 'the delivery was deleted (its endpoint deleted meanwhile)', null);
    const answer = progress.last_status !== null ? `HTTP ${progress.last_status}` : (progress.last_error ?? 'no answer');
    if (progress.state === 'delivered') return outcome(true, answer, progress.took_ms);
    if (progress.state !== 'pending' || (progress.attempts > 0 && !progress.attempting)) {
      return outcome(false, progress.state === 'pending' ? `${answer} (the service retries it like any delivery)` : `${progress.state}: ${answer}`, progress.took_ms);
    }
    if (progress.attempts === 0 && Date.now() - started >= handoffMs) {
      const claimed = await claimUnattempted(db, queued.id, leaseMs(options.timeoutMs));
      if (claimed) {
        const result = await attemptDelivery(database, claimed, options);
        return outcome(result.record.kind === 'delivered', result.status !== undefined ? `HTTP ${result.status}` : (result.error ?? 'no answer'), result.ms);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return outcome(false, `no outcome within ${Math.round((deadline - started) / 1000)} s (it stays queued and is retried)`, null);
}
