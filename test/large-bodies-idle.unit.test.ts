import { describe, expect, it, vi } from 'vitest';
import { IDLE_WINDOW_MS, idleSlabBytes, largeBody, largeBodyCounts, reuseNow } from '../src/bodies/large-bodies.js';

/*
 * src/bodies/large-bodies.ts drops, every IDLE_WINDOW_MS, the idle slabs that no body took in that window.
 * A file of its own: the module's timer must be made under the fake clock (vitest gives each file its
 * own modules).
 */

const MB = 1024 * 1024;

describe('large bodies: idle slabs not needed for a window are dropped', () => {
  it('keeps what the traffic takes again, drops the rest at the end of the window, not before', () => {
    vi.useFakeTimers();
    try {
      // A burst leaves three slabs idle; the window opens with the first given back.
      const burst = [largeBody(MB), largeBody(MB), largeBody(MB)];
      burst.forEach(reuseNow);
      expect(idleSlabBytes()).toBe(3 * MB);
      // One body at a time is taken and given back: at least two slabs stay idle from then on.
      for (let i = 0; i < 5; i++) {
        vi.advanceTimersByTime(IDLE_WINDOW_MS / 10);
        reuseNow(largeBody(MB));
      }
      vi.advanceTimersByTime(IDLE_WINDOW_MS / 2 - 1);
      expect(idleSlabBytes()).toBe(3 * MB);
      // The window's end: only the slab idle since its start goes (the others came back within it).
      vi.advanceTimersByTime(1);
      expect(idleSlabBytes()).toBe(2 * MB);
      // Through the next window one is taken and given back: one of the two stays idle throughout.
      vi.advanceTimersByTime(IDLE_WINDOW_MS / 2);
      reuseNow(largeBody(MB));
      vi.advanceTimersByTime(IDLE_WINDOW_MS / 2 - 1);
      expect(idleSlabBytes()).toBe(2 * MB);
      vi.advanceTimersByTime(1);
      expect(idleSlabBytes()).toBe(MB);
      // A window without any: the last one goes too.
      vi.advanceTimersByTime(IDLE_WINDOW_MS - 1);
      expect(idleSlabBytes()).toBe(MB);
      vi.advanceTimersByTime(1);
      expect(idleSlabBytes()).toBe(0);
      // Made anew afterwards, and dropped again once idle for a window.
      const before = { ...largeBodyCounts };
      reuseNow(largeBody(MB));
      expect(largeBodyCounts.made - before.made).toBe(1);
      vi.advanceTimersByTime(IDLE_WINDOW_MS);
      expect(idleSlabBytes()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
