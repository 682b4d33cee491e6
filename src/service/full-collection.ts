import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * One full garbage collection, asked for once the service is built and before its ports open. Building
 * the first snapshot reads the whole catalogue and leaves about half the heap as garbage; V8 collects it
 * only when allocation next pushes it, and meanwhile sets its next limit from that larger heap.
 * Collected before the ports open, the ready process holds what is live and no request waits for the
 * pause (docs/performance.md, "One full collection before listening"). Rebuilds are left to V8: a full
 * collection's pause on every catalogue change would land in the requests' latency.
 *
 * `gc` is taken from a context of its own while --expose-gc is on (V8 reads the flag when a context is
 * made), and the flag is turned off again, so neither the service's global scope nor a context or worker
 * made later (the embedded database's) gains a `gc`.
 */
let collect: (() => void) | undefined | null;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  collect = null;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') collect = gc as () => void;
  } catch {
    // A runtime that does not expose it: the collection is an optimisation, never a reason not to start.
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/** A full collection now; nothing when the runtime cannot be asked for one. */
export function collectGarbage(): void {
  collector()?.();
}
