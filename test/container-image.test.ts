import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SHUTDOWN_DRAIN_S } from '../src/config/config.js';
import { instructions } from './helpers/dockerfile.js';

/*
 * No container registry is reachable here, so the image cannot be built: what can be checked without
 * one is. The Dockerfile and the compose file parse and lint clean (dockerfile-utils, the linter of
 * VS Code's Docker support; dclint for compose files), and say what docs/operations.md promises.
 * The image's steps themselves run on the host in test/scale-out/image-steps.test.ts.
 */
const dockerfile = readFileSync('Dockerfile', 'utf8');

describe('Dockerfile', () => {
  it('lints clean', () => {
    expect(validate(dockerfile)).toEqual([]);
  });

  it('builds in one stage and runs the compiled service in a slim Node 20 one, as a non-root user, with a health check and a data volume', () => {
    const steps = instructions(dockerfile);
    const from = steps.filter((step) => step.keyword === 'FROM').map((step) => step.args);
    expect(from).toEqual(['node:20-bookworm-slim AS build', 'node:20-bookworm-slim AS runtime']);
    const runtime = steps.slice(steps.findIndex((step) => step.args.endsWith('AS runtime')));
    expect(runtime.find((step) => step.keyword === 'RUN')?.args).toContain('npm ci --omit=dev');
    expect(runtime.find((step) => step.keyword === 'USER')?.args).toBe('node');
    expect(runtime.find((step) => step.keyword === 'HEALTHCHECK')?.args).toContain('/health/live');
    expect(runtime.find((step) => step.keyword === 'VOLUME')?.args).toBe('["/data"]');
    expect(runtime.at(-1)).toEqual({ keyword: 'CMD', args: '["node", "dist/cli/main.js", "serve"]' });
  });
});

describe('deploy/compose.yaml', () => {
  it('lints without errors (dclint) and holds the reference topology', () => {
    // dclint exits 1 on errors; its warnings are about key order only.
    execFileSync(process.execPath, ['node_modules/dclint/bin/dclint.cjs', 'deploy/compose.yaml'], { encoding: 'utf8' });
    const compose = parse(readFileSync('deploy/compose.yaml', 'utf8'), { merge: true });
    expect(Object.keys(compose.services).sort()).toEqual(['api-1', 'api-2', 'lb', 'primary', 'redis', 'replica']);
    expect(compose.services['api-2'].build.dockerfile).toBe('Dockerfile');
    expect(compose.services['api-1'].environment.DATABASE_READ_URL).toContain('@replica:');
    // HAProxy's settings parse (haproxy -c needs the service names to resolve, so only the file is read here).
    const haproxy = readFileSync('deploy/haproxy.cfg', 'utf8');
    expect(haproxy).toMatch(/option httpchk GET \/health\/ready/);
    expect(haproxy).toMatch(/retries 0/);
  });

  it('takes an instance out of HAProxy before its drain ends, even when no check is answered (docs/operations.md, Shutdown)', () => {
    const compose = parse(readFileSync('deploy/compose.yaml', 'utf8'), { merge: true });
    const haproxy = readFileSync('deploy/haproxy.cfg', 'utf8');
    const seconds = (pattern: RegExp) => Number(haproxy.match(pattern)?.[1]);
    const inter = seconds(/default-server[^\n]*\binter (\d+(?:\.\d+)?)s/);
    const fall = Number(haproxy.match(/default-server[^\n]*\bfall (\d+)/)?.[1]);
    const checkTimeout = seconds(/timeout check (\d+(?:\.\d+)?)s/);
    // The worst case: `fall` checks `inter` apart, each failing only at the check timeout.
    const worst = fall * (inter + checkTimeout);
    expect(worst).toBeGreaterThan(0);
    for (const api of ['api-1', 'api-2']) expect(Number(compose.services[api].environment.SHUTDOWN_DRAIN_S ?? DEFAULT_SHUTDOWN_DRAIN_S), api).toBeGreaterThan(worst);
  });
});
