import type { FastifyReply } from 'fastify';

/*
 * Memory for the large bodies made per request (a full project detail: 1.3-2.5 MB on L, written whole
 * into one buffer), used again once the body has been handed to the socket. A fresh buffer per request
 * costs its allocation (pages the kernel zeroes and maps) and its collection, a large share of a full
 * detail's server CPU (docs/performance.md, "Large bodies on reused slabs"). A body is taken with
 * `largeBody` and given back with `reuseOnceSent` (the reply's 'finish': the OS has all of it) or
 * `reuseNow` (read synchronously, e.g. compressed). A body not given back (a connection cut mid-write:
 * no 'finish') is left to the GC; a buffer that is not a large body is ignored by both.
 *
 * Only bodies over LARGE_BODY are taken from here: no cache keeps one (compressed-once keeps identity
 * bodies of at most 256 kB and never a large body; see sendMade), so nothing refers to a slab after it
 * is given back.
 */

/** Bytes: smaller bodies come from Buffer.allocUnsafe (Node's pool). */
export const LARGE_BODY = 256 * 1024;
/** Slabs are sized in steps of this, so that bodies of similar size share them. */
const SLAB_STEP = 256 * 1024;
/** Idle slabs kept at most (32 full details in flight are ~42 MB); more are left to the GC. Those not needed for a while are dropped (below). */
const IDLE_BYTES = 48 * 1024 * 1024;

/*
 * Idle slabs that were not needed for a while are dropped: a burst of full details (32 in flight)
 * leaves ~48 MB idle, which a process then serving a full detail now and then would hold for good.
 * Every IDLE_WINDOW_MS, as many slabs are dropped as stayed idle through the whole window (the fewest
 * idle at any moment of it), so the list shrinks to what the traffic takes again. A dropped slab's
 * memory goes back to the OS at the next major collection (Node's large buffers are memory of their
 * own; docs/performance.md, "Large bodies on reused slabs").
 */
export const IDLE_WINDOW_MS = 10_000;

const idle: Buffer[] = [];
let idleBytes = 0;
/** The fewest idle slabs at any moment of the current window, and the timer that closes it. */
let fewestIdle = 0;
let trimTimer: NodeJS.Timeout | undefined;
const slabOf = new WeakMap<Buffer, Buffer>();
/** Counts for tests: slabs made, and bodies written into a slab used before. */
export const largeBodyCounts = { made: 0, reused: 0 };

/** A buffer of `size` bytes for a body; its contents are not zeroed. */
export function largeBody(size: number): Buffer {
  if (size <= LARGE_BODY) return Buffer.allocUnsafe(size);
  // The smallest idle slab that fits (slabs are over 256 kB: at most ~190 of them to look at).
  let best = -1;
  for (let i = 0; i < idle.length; i++) if (idle[i].length >= size && (best < 0 || idle[i].length < idle[best].length)) best = i;
  let slab: Buffer;
  if (best < 0) {
    slab = Buffer.allocUnsafeSlow(Math.ceil(size / SLAB_STEP) * SLAB_STEP);
    largeBodyCounts.made++;
  } else {
    slab = idle[best];
    idle[best] = idle[idle.length - 1];
    idle.pop();
    idleBytes -= slab.length;
    fewestIdle = Math.min(fewestIdle, idle.length);
    largeBodyCounts.reused++;
  }
  const body = slab.subarray(0, size);
  slabOf.set(body, slab);
  return body;
}

/** Whether `body` came from largeBody and has not been given back (it must not be kept). */
export function isLargeBody(body: Buffer): boolean {
  return slabOf.has(body);
}

/** Gives `body`'s memory back now: nothing reads it any more. */
export function reuseNow(body: Buffer): void {
  const slab = slabOf.get(body);
  if (!slab) return;
  slabOf.delete(body);
  // When full, smaller idle slabs make room for a larger one (bodies grew: the small ones fit fewer).
  while (idleBytes + slab.length > IDLE_BYTES && idle.length > 0) {
    let smallest = 0;
    for (let i = 1; i < idle.length; i++) if (idle[i].length < idle[smallest].length) smallest = i;
    if (idle[smallest].length >= slab.length) return;
    idleBytes -= idle[smallest].length;
    idle[smallest] = idle[idle.length - 1];
    idle.pop();
    fewestIdle = Math.min(fewestIdle, idle.length);
  }
  if (idleBytes + slab.length > IDLE_BYTES) return;
  idle.push(slab);
  idleBytes += slab.length;
  closeWindowLater();
}

/** While slabs are idle, one timer (never holding the process open) closes each window. */
function closeWindowLater(): void {
  if (trimTimer) return;
  fewestIdle = idle.length;
  trimTimer = setTimeout(() => {
    trimTimer = undefined;
    // Slabs not taken once in the window: the smallest go first (the larger fit any body).
    idle.sort((a, b) => b.length - a.length);
    for (let dropped = 0; dropped < fewestIdle; dropped++) idleBytes -= idle.pop()!.length;
    if (idle.length > 0) closeWindowLater();
  }, IDLE_WINDOW_MS).unref();
}

/** Bytes of idle slabs kept (tests). */
export function idleSlabBytes(): number {
  return idleBytes;
}

/** Gives `body`'s memory back once `reply` has handed all of it to the OS. */
export function reuseOnceSent(reply: FastifyReply, body: Buffer): void {
  if (!slabOf.has(body)) return;
  reply.raw.once('finish', () => reuseNow(body));
}
