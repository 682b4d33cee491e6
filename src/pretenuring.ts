import v8 from 'node:v8';

/*
 * V8 allocates objects of an allocation site (an object or array literal in optimized code) straight
 * in the old generation once most of them were seen surviving young collections, and undoes that
 * only after a full collection that finds the old generation mostly dead. This service breaks both
 * assumptions: on the embedded database the first requests for details queue behind its single
 * connection for hundreds of milliseconds, so the request path's objects survive and their sites are
 * tenured; and the old generation is then mostly the detail caches, which stay alive, so no full
 * collection undoes it. From then on every answer's short-lived objects went to the old generation:
 * on PGlite L, after the bench's first passes, 2 MB promoted per young collection instead of 0.1-0.5
 * and 12-23 full collections per 10 s scenario instead of 1 (docs/performance.md, stop 51). Without
 * pretenuring, objects that do live long (a snapshot being built) are copied once more, through the
 * young generation: start-up on L measured the same.
 * Process-wide, like the heap growth limit (the embedded database's worker thread too).
 */
export function stopAllocationSitePretenuring(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
