import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);

/** The largest heap (MB) of the service's process started with HEAP_GROWTH_PERCENT=percent under the child's allocations. */
async function peakHeapMb(percent: string): Promise<number> {
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'test/helpers/heap-growth-child.ts', percent], { timeout: 120_000 });
  return Number(stdout.trim().split(' ')[0]);
}

describe('HEAP_GROWTH_PERCENT', () => {
  it('the service keeps its heap near what is live: half or less of the heap V8 takes on its own', async () => {
    // 0: V8's own factor (~310 MB measured for ~85 MB live); 10: ~160 MB.
    const own = await peakHeapMb('0');
    const limited = await peakHeapMb('10');
    expect(own).toBeGreaterThan(0);
    expect(limited).toBeLessThan(own * 0.75);
  }, 240_000);
});
