import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/**
 * Runs a test helper (a TypeScript file, through tsx) in a process of its own and returns what it
 * printed. The tests of process-wide V8 settings need a fresh heap: without inherited NODE_OPTIONS
 * and, unless `nodeFlags` says otherwise, with a fixed heap limit (V8's own growth factor depends on
 * it), so the figures do not depend on the machine running them.
 */
export async function runChild(helper: string, args: string[] = [], { nodeFlags = ['--max-old-space-size=4096'], timeoutMs = 120_000 } = {}): Promise<string> {
  const { stdout } = await exec(process.execPath, [...nodeFlags, '--import', 'tsx', helper, ...args], {
    timeout: timeoutMs,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return stdout.trim();
}
