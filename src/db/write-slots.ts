/*
 * A per-process cap on how many application transactions hold a pooled connection at once.
 *
 * Applications of one agency queue on its board lock inside their transaction, each holding a pooled
 * connection while it waits. Without a cap, a burst of applications (or one slow transaction holding
 * the lock) takes every connection of the pool, and reads that need a connection for a moment fail
 * after the pool's wait timeout. With the cap, the surplus waits here, in memory and in arrival
 * order, so part of the pool always stays free for reads. Throughput is not lost: the queued
 * applications would have waited for the same lock anyway.
 */

/** The wait for a slot ran out; nothing was started. */
export class SlotWaitTimeout extends Error {
  override name = 'SlotWaitTimeout';
}

export interface WriteSlots {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Callers waiting for a slot (for tests and diagnostics). */
  readonly waiting: number;
}

export function createWriteSlots(size: number, maxWaitMs: number): WriteSlots {
  let busy = 0;
  const queue: { resolve: () => void; timer: NodeJS.Timeout }[] = [];

  const acquire = () =>
    new Promise<void>((resolve, reject) => {
      if (busy < size) {
        busy++;
        resolve();
        return;
      }
      const entry = {
        resolve,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(entry), 1);
          reject(new SlotWaitTimeout(`no write slot free within ${maxWaitMs} ms`));
        }, maxWaitMs),
      };
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
