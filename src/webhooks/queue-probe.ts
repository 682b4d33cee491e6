import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { queueStats, type QueueStats } from '../queries/webhook-deliveries.js';

/*
 * The webhook queue as /health shows it. The count is one indexed query, but on the embedded database
 * a query waits for the transaction in progress (an import can take a minute), and /health must not
 * hang then: past WAIT_MS the last figures read are shown (with the time they were read), and the
 * query in flight refreshes them when it ends. Concurrent calls share one query.
 */
const WAIT_MS = 300;

export interface QueueProbeResult extends QueueStats {
  /** When the figures were read (older than the request when the database was busy). */
  as_of: string;
}

export function createQueueProbe(db: Kysely<DB>): () => Promise<QueueProbeResult | undefined> {
  let last: QueueProbeResult | undefined;
  let inFlight: Promise<QueueProbeResult | undefined> | undefined;
  const refresh = () =>
    (inFlight ??= queueStats(db)
      .then((stats) => (last = { ...stats, as_of: new Date().toISOString() }))
      .catch(() => last)
      .finally(() => (inFlight = undefined)));
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), WAIT_MS)));
    const result = await Promise.race([refresh(), waited]);
    clearTimeout(timer);
    return result ?? last;
  };
}
