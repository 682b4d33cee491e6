/*
 * A per-process cap on how many tasks of one kind hold a pooled connection at once.
 *
 * Some work holds a connection for long: applications of one agency queue on its board lock inside
 * their transaction (application-intake.ts, the webhook worker's outcome writes), and a never-asked
 * project's nearby block reads ~900 facilities (nearby-on-demand.ts). Without a cap, a burst of such
 * work (or one slow transaction holding the lock) takes every connection of the pool, and reads that
 * need a connection for a moment fail after the pool's wait timeout (CONNECT_TIMEOUT_MS). With the
 * cap, the surplus waits here, in memory and in arrival order, so a burst of one kind leaves part of
 * the pool to the other reads. Each kind has a cap of its own (half the pool each): bursts of two kinds
 * at once can still take every connection. Applications lose no throughput (the queued ones would
 * have waited for the same lock); nearby reads may, on a database with more cores than half the pool
 * (none measured on 2 cores; docs/performance.md, "Cold reads hold half the pool at most").
 */

/** The usual cap: half the pool's connections, at least one (PGlite's single connection). */
export const halfThePool = (poolSize: number): number => Math.max(1, Math.floor(poolSize / 2));

/** The wait for a slot ran out; nothing was started. */
export class SlotWaitTimeout extends Error {
  override name = 'SlotWaitTimeout';
}

export interface PoolSlots {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Callers waiting for a slot (for tests and diagnostics). */
  readonly waiting: number;
}

/** `kind` names the work in the timeout's message (the log's); `maxWaitMs` may be Infinity (no limit). */
export function createPoolSlots(kind: string, size: number, maxWaitMs: number): PoolSlots {
  let busy = 0;
  const queue: { resolve: () => void; timer?: NodeJS.Timeout }[] = [];

  const acquire = () =>
    new Promise<void>((resolve, reject) => {
      if (busy < size) {
        busy++;
        resolve();
        return;
      }
      const entry: { resolve: () => void; timer?: NodeJS.Timeout } = { resolve };
      // Infinity: no limit (setTimeout would take it as 1 ms).
      if (Number.isFinite(maxWaitMs)) {
        entry.timer = setTimeout(() => {
          queue.splice(queue.indexOf(entry), 1);
          reject(new SlotWaitTimeout(`no ${kind} slot free within ${maxWaitMs} ms`));
        }, maxWaitMs);
      }
      queue.push(entry);
    });

  // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
  const release = () => {
    const next = queue.shift();
    if (!next) {
      busy--;
      return;
    }
    clearTimeout(next.timer);
    next.resolve();
  };

  return {
    async run(work) {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
    get waiting() {
      return queue.length;
    },
  };
}
