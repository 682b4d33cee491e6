import { describe, expect, it } from 'vitest';
import { runChild } from './helpers/child-process.js';

describe('start-up collection (src/service/full-collection.ts)', () => {
  it("the service listens with the garbage of its start-up collected, not left in its heap", async () => {
    const usedMb = Number(await runChild('test/helpers/collect-before-listen-child.ts'));
    expect(usedMb).toBeGreaterThan(0);
    // The start-up left ~200 MB of garbage; the service itself (tsx included) uses well under 150 MB.
    expect(usedMb).toBeLessThan(150);
  }, 180_000);
});
