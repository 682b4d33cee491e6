import { describe, expect, it, vi } from 'vitest';
import { IDLE_SLABS_KEPT_MS, idleSlabBytes, largeBody, largeBodyCounts, reuseNow } from '../src/http/large-bodies.js';

/*
 * src/http/large-bodies.ts drops its idle slabs after a quiet period. A file of its own: the module's
 * timer must be made under the fake clock (vitest gives each file its own modules).
 */

const MB = 1024 * 1024;

describe('large bodies: idle slabs after a quiet period', () => {
  it('drops the idle slabs once no large body has been taken for IDLE_SLABS_KEPT_MS, not before', () => {
    vi.useFakeTimers();
    try {
      const slab = largeBody(MB);
      reuseNow(slab);
      expect(idleSlabBytes()).toBeGreaterThanOrEqual(MB);
      // A large body taken before the period ends: the period starts again from it.
      vi.advanceTimersByTime(IDLE_SLABS_KEPT_MS - 1_000);
      reuseNow(largeBody(MB));
      vi.advanceTimersByTime(2_000);
      expect(idleSlabBytes()).toBeGreaterThanOrEqual(MB);
      vi.advanceTimersByTime(IDLE_SLABS_KEPT_MS);
      expect(idleSlabBytes()).toBe(0);
      // Made anew afterwards.
      const before = { ...largeBodyCounts };
      reuseNow(largeBody(MB));
      expect(largeBodyCounts.made - before.made).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
