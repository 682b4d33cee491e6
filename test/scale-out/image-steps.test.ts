import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { instructions } from '../helpers/dockerfile.js';

/*
 * The Dockerfile's runtime steps, run on the host since no registry is reachable to pull its base
 * image: in an empty directory, the files the runtime stage copies (manifests, lockfile, compiled
 * service), its `npm ci --omit=dev`, then its CMD as an unprivileged user (uid of `nobody`, the
 * image's `node` user's counterpart here) with DATA_DIR on a directory of its own, and its
 * HEALTHCHECK command; then the service is called.
 */
const root = process.getuid?.() === 0;

describe.skipIf(!root)(`the image's steps on the host${root ? '' : ' (skipped: needs root to run as another user)'}`, () => {
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs, serves as a non-root user, passes its health check and answers', async () => {
    const steps = instructions(readFileSync('Dockerfile', 'utf8'));
    const runtime = steps.slice(steps.findIndex((step) => step.args.endsWith('AS runtime')));
    const build = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);

    dir = mkdtempSync(join(tmpdir(), 'catalogue-image-'));
    chmodSync(dir, 0o755);
    const app = join(dir, 'app');
    // COPY --from=build: exactly what the runtime stage copies.
    for (const step of runtime.filter((s) => s.keyword === 'COPY')) {
      const [, ...paths] = step.args.split(/\s+/);
      const target = paths.pop()!;
      for (const source of paths) {
        const from = source.replace(/^\/app\//, '');
        const to = target === './' ? join(app, from) : join(app, target);
        mkdirSync(join(to, '..'), { recursive: true });
        cpSync(from, to, { recursive: true });
      }
    }
    const install = runtime.find((step) => step.keyword === 'RUN')!.args.split('&&')[0].trim().split(/\s+/);
    expect(install.slice(0, 3)).toEqual(['npm', 'ci', '--omit=dev']);
    const installed = spawnSync(install[0], install.slice(1), { cwd: app, encoding: 'utf8', timeout: 600_000 });
    expect(installed.status, installed.stderr).toBe(0);
    expect(spawnSync('ls', [join(app, 'node_modules', 'typescript')]).status).not.toBe(0);

    const data = join(dir, 'data');
    mkdirSync(data);
    chownSync(data, 65534, 65534);
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const env = { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: data, SHUTDOWN_DRAIN_S: '0' };
    const cmd = JSON.parse(runtime.at(-1)!.args) as string[];
    expect(cmd).toEqual(['node', 'dist/cli/main.js', 'serve']);
    let output = '';
    child = spawn(process.execPath, cmd.slice(1), { cwd: app, env, uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const deadline = Date.now() + 150_000;
    while (!/listening on/.test(output)) {
      if (child.exitCode !== null) throw new Error(`serve exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`serve did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // HEALTHCHECK … CMD ["node", "-e", "…"], run as the image would, as the same user.
    const healthcheck = JSON.parse(runtime.find((step) => step.keyword === 'HEALTHCHECK')!.args.replace(/^.*CMD\s+/, '')) as string[];
    const health = spawnSync(process.execPath, healthcheck.slice(1), { env, uid: 65534, gid: 65534, timeout: 10_000 });
    expect(health.status).toBe(0);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/whoIAm`)).status).toBe(401);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 900_000);
});
