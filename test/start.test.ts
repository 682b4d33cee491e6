import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * What a newcomer does: `npm start` on an empty data directory, then paste the printed curl line.
 * The graceful shutdown is checked on the way out: SIGTERM ends the process with exit code 0.
 * Runs the real command in a child process; PORT=0 picks a free port, which the banner reports.
 */
describe('npm start', () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads the demo catalogue, prints a key and a curl line that works, and shuts down on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalogue-start-'));
    // What `npm start` runs, without npm in between (npm's own signal handling would hide our exit code).
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start'], {
      env: { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: false,
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));

    const deadline = Date.now() + 150_000;
    while (!/curl -s -H 'X-API-Key: (ck_[0-9a-f]{64})' (http:\/\/\S+)\/whoIAm/.test(output)) {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no curl line printed:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [, key, base] = output.match(/curl -s -H 'X-API-Key: (ck_[0-9a-f]{64})' (http:\/\/\S+)\/whoIAm/)!;

    const whoAmI = await fetch(`${base}/whoIAm`, { headers: { 'X-API-Key': key } });
    expect(whoAmI.status).toBe(200);
    const body = await whoAmI.json();
    expect(body.status).toBe('success');
    expect(body.data.api_key.key_prefix).toBe(key.slice(0, 9));

    const projects = await (await fetch(`${base}/projects?limit=5`, { headers: { 'X-API-Key': key } })).json();
    expect(projects.data.total).toBeGreaterThanOrEqual(40);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 200_000);
});
