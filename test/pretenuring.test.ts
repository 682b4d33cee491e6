import { describe, expect, it } from 'vitest';
import { runChild } from './helpers/child-process.js';

/** Full collections while short-lived objects of a once-tenured allocation site are made (test/helpers/pretenuring-child.ts). */
async function fullCollections(mode: 'service' | 'v8'): Promise<number> {
  const printed = await runChild('test/helpers/pretenuring-child.ts', [mode], { nodeFlags: [] });
  return Number(printed.split(' ')[0]);
}

describe('allocation-site pretenuring (src/service/pretenuring.ts)', () => {
  it('the service keeps short-lived objects young after their site once lived long: far fewer full collections than V8 on its own', async () => {
    // Measured: 10-12 full collections with V8's pretenuring, 0 without (8 runs of the child each way).
    const own = await fullCollections('v8');
    const service = await fullCollections('service');
    expect(own).toBeGreaterThanOrEqual(6);
    expect(service).toBeLessThanOrEqual(own / 4);
  }, 240_000);
});
