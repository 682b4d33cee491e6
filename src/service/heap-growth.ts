import v8 from 'node:v8';

/*
 * How far V8 lets the old generation grow past what was live after a full collection before it
 * collects again. Its own factor moves between 1.1 and 4 with its estimate of collection speed against
 * allocation rate, and under load it takes the top of that range: most of a busy service's heap was
 * garbage not yet collected (docs/performance.md, "Heap growth limit"). The flag replaces V8's factor
 * in every one of its modes (its memory-saving ones are 1.1 and 1.3), so the configured range stops at
 * 100 % and the default, 30 %, equals the conservative one. More frequent
 * full collections are the cost (marked concurrently, on another thread). V8 reads the flag at each full
 * collection, so it takes effect when set in a running process; it is process-wide (the embedded
 * database's worker thread too).
 */
export function limitHeapGrowth(percent: number): void {
  // 0 leaves V8's own factor (the flag's own meaning of 0).
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
