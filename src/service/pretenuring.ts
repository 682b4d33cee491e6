import v8 from 'node:v8';

/*
 * V8 allocates objects of an allocation site (an object or array literal in optimized code) straight
 * in the old generation once most of them were seen surviving young collections, and undoes that
 * only after a full collection that finds the old generation mostly dead. This service breaks both
 * assumptions: on the embedded database the first requests for details queue behind its single
 * connection for hundreds of milliseconds, so the request path's objects survive and their sites are
 * tenured; and the old generation is then mostly the detail caches, which stay alive, so no full
 * collection undoes it. From then on every answer's short-lived objects go to the old generation, and
 * full collections come many times as often (docs/performance.md, "Allocation-site pretenuring off").
 * Without pretenuring, objects that do live long (a snapshot being built) are copied once more, through
 * the young generation: start-up measured the same.
 * Process-wide, like the heap growth limit (the embedded database's worker thread too).
 */
export function stopAllocationSitePretenuring(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
