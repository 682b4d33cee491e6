import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);

describe('start-up collection (src/full-collection.ts)', () => {
  it("the service listens with the garbage of its start-up collected, not left in its heap", async () => {
    const { stdout } = await exec(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', 'test/helpers/collect-before-listen-child.ts'], {
      timeout: 120_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const usedMb = Number(stdout.trim());
    expect(usedMb).toBeGreaterThan(0);
    // The start-up left ~200 MB of garbage; the service itself (tsx included) uses well under 150 MB.
    expect(usedMb).toBeLessThan(150);
  }, 180_000);
});
