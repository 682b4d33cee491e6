import { describe, expect, it } from 'vitest';
import { isLargeBody, LARGE_BODY, largeBody, largeBodyCounts, reuseNow } from '../src/bodies/large-bodies.js';

/* The free list of src/bodies/large-bodies.ts, used directly (no socket: test/large-bodies.test.ts has one). */

const MB = 1024 * 1024;

describe('large bodies: the free list', () => {
  it('gives small bodies ordinary buffers, and large ones slabs used again once given back', () => {
    expect(isLargeBody(largeBody(LARGE_BODY))).toBe(false);
    const before = { ...largeBodyCounts };
    const first = largeBody(LARGE_BODY + 1);
    expect(isLargeBody(first)).toBe(true);
    reuseNow(first);
    expect(isLargeBody(first)).toBe(false);
    // Given back twice: counted once.
    reuseNow(first);
    const [a, b] = [largeBody(LARGE_BODY + 10), largeBody(LARGE_BODY + 10)];
    expect(a.buffer === b.buffer && a.byteOffset === b.byteOffset).toBe(false);
    expect([largeBodyCounts.made - before.made, largeBodyCounts.reused - before.reused]).toEqual([2, 1]);
    reuseNow(a);
    reuseNow(b);
  });

  it('keeps at most 48 MB idle, and lets smaller idle slabs make room for a larger one', () => {
    // 64 slabs of 1 MB fill the idle list (48 MB) and 16 are dropped.
    const small = Array.from({ length: 64 }, () => largeBody(MB));
    small.forEach(reuseNow);
    const before = { ...largeBodyCounts };
    const taken = Array.from({ length: 64 }, () => largeBody(MB));
    expect([largeBodyCounts.made - before.made, largeBodyCounts.reused - before.reused]).toEqual([16, 48]);
    taken.forEach(reuseNow);
    // A 4 MB slab given back to a full list of 1 MB slabs is kept: the next 4 MB body reuses it.
    const large = largeBody(4 * MB);
    reuseNow(large);
    const again = { ...largeBodyCounts };
    largeBody(4 * MB);
    expect(largeBodyCounts.reused - again.reused).toBe(1);
  });
});
