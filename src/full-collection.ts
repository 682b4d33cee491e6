import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * One full garbage collection, asked for once the service is built and before it listens. Building the
 * first snapshot reads the whole catalogue (L: 245,000 units) and leaves ~55 MB of garbage in a heap of
 * ~110 MB; V8 collects it only when allocation next pushes it, and meanwhile its next limit is set from
 * that larger heap. Collected before the port opens, the ready process holds what is live (L on
 * PostgreSQL: 201 -> 151 MB RSS, ~64 ms once; docs/performance.md, stop 38), and no request waits for
 * the pause. Rebuilds are left to V8: a pause of that length on every catalogue change would land in
 * the requests' latency.
 *
 * `gc` is exposed in a context of its own (V8 reads --expose-gc when a context is made), so the
 * service's own global scope gains nothing.
 */
let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
