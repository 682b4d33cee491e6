import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/queries/api-key-admin.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { AGENCY, oneUnitCatalogue, OWNER } from '../helpers/fixtures.js';

/*
 * Rolling restarts behind a real load balancer: HAProxy (Debian's) on 127.0.0.1 in front of two API
 * processes (`catalogue serve` on one PostgreSQL database), probing /health/ready actively, with
 * `retries 0`: a request the proxy could not deliver would reach the client as an error, since the
 * proxy never tries it again elsewhere (a POST retried could be an application written twice).
 * Under reads and applications, each process in turn gets SIGTERM and is started again; no request
 * may fail. The drain (SHUTDOWN_DRAIN_S) is longer than the proxy needs to see readiness fail (two
 * checks 500 ms apart), as docs/deployment.md asks of the production values.
 */
const haproxy = spawnSync('haproxy', ['-v']).status === 0 ? 'haproxy' : undefined;
const databaseUrl = process.env.TEST_DATABASE_URL;
/*
 * Runs whenever HAProxy and PostgreSQL are there (.ci/run installs HAProxy). With readiness on a
 * connection of its own, compiled instances and a drain past the proxy's slowest detection it passed
 * three runs in a row on a 2-core machine at load average 7-17 (other engineers' suites). One run
 * before those, at load average ~20, failed on applications only: 503 while one instance carried the
 * whole load during its peer's restart (a wait past 3 s for a pooled connection behind 32 connections
 * of reads), a capacity limit of the machine, not of the shutdown (docs/operations.md, "Shutdown").
 */
const skipped = !haproxy ? 'haproxy not installed (apt-get install haproxy)' : !databaseUrl ? 'TEST_DATABASE_URL not set' : undefined;

// HAProxy's probe: every CHECK_INTER_MS, out after CHECK_FALL failures, each answer within CHECK_TIMEOUT_S.
const CHECK_INTER_MS = 500;
const CHECK_FALL = 2;
const CHECK_TIMEOUT_S = 3;
// The drain outlasts the proxy's detection at its slowest (each of the `fall` checks answered only at
// the check timeout, on a busy event loop), plus a second, as docs/deployment.md asks.
const DRAIN_S = CHECK_FALL * (CHECK_INTER_MS / 1000 + CHECK_TIMEOUT_S) + 1;
// The default grace (SHUTDOWN_GRACE_S): applications queue on the agency's board lock, and one in
// flight at the stop may wait behind the others for seconds on a busy machine.
const GRACE_S = 20;
// The issue's load: 32 connections of reads and 20 applications a second.
const READERS = 32;
const APPLICATIONS_PER_S = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Instance {
  name: string;
  port: number;
  child?: ChildProcess;
  exited?: Promise<number | null>;
  output: string[];
}

/*
 * `catalogue serve` compiled (`npm run build` in beforeAll), as the image runs it: through tsx, each
 * start transpiled the whole service on a core the surviving instance needed for the full load.
 * Resolves once the instance answers /health/ready.
 */
async function startInstance(instance: Instance, url: string): Promise<void> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(instance.port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_S: String(DRAIN_S), SHUTDOWN_GRACE_S: String(GRACE_S) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  instance.child = child;
  instance.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const keep = (chunk: Buffer) => instance.output.push(chunk.toString());
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${instance.name} exited early:\n${instance.output.join('')}`);
    const ready = await fetch(`http://127.0.0.1:${instance.port}/health/ready`).then((response) => response.status === 200, () => false);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`${instance.name} not ready within 120 s:\n${instance.output.join('')}`);
    await sleep(200);
  }
}

/** HAProxy's view of each server (`show stat` on its admin socket): status, retries, redispatches, errors. */
async function proxyStats(socketPath: string): Promise<Record<string, Record<string, string>>> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(socketPath);
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write('show stat\n');
  });
  const [header, ...rows] = text.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const servers: Record<string, Record<string, string>> = {};
  for (const row of rows) {
    const values = row.split(',');
    const record = Object.fromEntries(columns.map((column, index) => [column, values[index]]));
    if (record.pxname === 'api') servers[record.svname] = record;
  }
  return servers;
}

describe.skipIf(skipped)(`rolling restart behind HAProxy${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let database: TestDatabase;
  let dir: string;
  let proxy: ChildProcess;
  let proxyExited: Promise<unknown>;
  let proxyUrl: string;
  let statsSocket: string;
  let key: string;
  const instances: Instance[] = [
    { name: 'a', port: 0, output: [] },
    { name: 'b', port: 0, output: [] },
  ];

  beforeAll(async () => {
    const build = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8' });
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    database = await createTestDatabase('postgres');
    await importBundle(database.database.db, oneUnitCatalogue(), { facilityLinkRadiusM: 10_000 });
    key = (await createApiKey(database.database.db, { companyId: AGENCY, authorId: OWNER, name: 'rolling restart' })).secret;
    for (const instance of instances) instance.port = await freePort();
    await Promise.all(instances.map((instance) => startInstance(instance, database.url!)));

    dir = await mkdtemp(join(tmpdir(), 'catalogue-haproxy-'));
    statsSocket = join(dir, 'admin.sock');
    const proxyPort = await freePort();
    // The settings of docs/deployment.md, with the probe interval shortened for a quick test.
    await writeFile(
      join(dir, 'haproxy.cfg'),
      [
        'global',
        `  stats socket ${statsSocket} mode 600 level admin`,
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 30s',
        '  timeout server 30s',
        // A probe answer may take a while on a busy machine; only a failed answer counts against it.
        `  timeout check ${CHECK_TIMEOUT_S}s`,
        '  retries 0',
        'frontend api_in',
        `  bind 127.0.0.1:${proxyPort}`,
        '  default_backend api',
        'backend api',
        '  balance roundrobin',
        '  option httpchk GET /health/ready',
        '  http-check expect status 200',
        `  default-server inter ${CHECK_INTER_MS}ms fall ${CHECK_FALL} rise 2`,
        ...instances.map((instance) => `  server ${instance.name} 127.0.0.1:${instance.port} check`),
        '',
      ].join('\n'),
    );
    const check = spawnSync(haproxy!, ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    proxy = spawn(haproxy!, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
    proxyExited = new Promise((resolve) => proxy.once('exit', resolve));
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    for (let attempt = 0; ; attempt++) {
      const stats = await proxyStats(statsSocket).catch(() => ({}) as Record<string, Record<string, string>>);
      if (instances.every((instance) => stats[instance.name]?.status === 'UP')) break;
      if (attempt > 100) throw new Error(`HAProxy does not see both instances up: ${JSON.stringify(stats)}`);
      await sleep(100);
    }
  }, 300_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      proxy.kill('SIGTERM');
      await proxyExited;
    }
    for (const instance of instances) {
      if (instance.child && instance.child.exitCode === null) {
        instance.child.kill('SIGKILL');
        await instance.exited;
      }
    }
    if (dir) await rm(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('restarts each instance under reads and applications with no failed request and no proxy retry', async () => {
    const failures: string[] = [];
    // When each failure happened, against the restarts' steps (printed with the failures).
    const started = Date.now();
    const events = { log: [] as string[], now: () => `+${Date.now() - started}ms`, mark: (what: string) => events.log.push(`${events.now()} ${what}`) };
    let reads = 0;
    const created: string[] = [];
    let running = true;
    const applications: Promise<unknown>[] = [];

    const reader = async () => {
      const paths = ['/projects/100', '/projects?limit=5', '/whoIAm', '/units/1000'];
      for (let i = 0; running; i++) {
        const path = paths[i % paths.length];
        try {
          const response = await fetch(`${proxyUrl}${path}`, { headers: { 'x-api-key': key } });
          const body = await response.text();
          if (response.status !== 200) failures.push(`${events.now()} GET ${path}: ${response.status} ${body.slice(0, 120)}`);
          else reads++;
        } catch (error) {
          failures.push(`${events.now()} GET ${path}: ${(error as Error).cause ?? error}`);
        }
      }
    };
    const applicant = async () => {
      for (let i = 0; running; i++) {
        const email = `rolling.${i}.${Date.now()}@example.com`;
        const sent = fetch(`${proxyUrl}/units/1000/applications`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ client: { first_name: 'Rolling', email } }),
        }).then(
          async (response) => {
            const body = await response.text();
            if (response.status === 201) created.push(email);
            else failures.push(`${events.now()} POST application: ${response.status} ${body.slice(0, 120)}`);
          },
          (error: Error) => failures.push(`${events.now()} POST application: ${error.cause ?? error}`),
        );
        applications.push(sent);
        await sleep(1000 / APPLICATIONS_PER_S);
      }
    };
    const pendingLoad = [...Array.from({ length: READERS }, reader), applicant()];

    // HAProxy's view of each server as it changes, among the events printed with any failure.
    const seen: Record<string, string> = {};
    const watching = (async () => {
      while (running) {
        const stats = await proxyStats(statsSocket).catch(() => ({}) as Record<string, Record<string, string>>);
        for (const instance of instances) {
          const status = stats[instance.name]?.status;
          if (status && status !== seen[instance.name]) events.mark(`proxy sees ${instance.name} ${(seen[instance.name] = status)}`);
        }
        await sleep(100);
      }
    })();

    await sleep(1_000);
    const exitCodes: (number | null)[] = [];
    for (const instance of instances) {
      const before = reads;
      events.mark(`SIGTERM ${instance.name}`);
      instance.child!.kill('SIGTERM');
      exitCodes.push(await instance.exited!);
      events.mark(`${instance.name} exited`);
      expect(reads, 'reads went on while the instance stopped').toBeGreaterThan(before);
      await startInstance(instance, database.url!);
      events.mark(`${instance.name} ready again`);
      for (let attempt = 0; (await proxyStats(statsSocket))[instance.name]?.status !== 'UP'; attempt++) {
        if (attempt > 100) throw new Error(`HAProxy does not see ${instance.name} up again`);
        await sleep(100);
      }
      await sleep(500);
    }
    running = false;
    await Promise.all([...pendingLoad, watching]);
    await Promise.all(applications);

    events.mark(`${created.length} applications created, ${reads} reads`);
    expect([...failures.slice(0, 10), ...(failures.length ? events.log : [])]).toEqual([]);
    expect(exitCodes).toEqual([0, 0]);
    expect(reads).toBeGreaterThan(100);
    expect(created.length).toBeGreaterThan(10);
    // Every 201 is stored once: nothing lost, nothing doubled.
    const stored = await database.database.db.selectFrom('clients').select('email').where('email', 'like', 'rolling.%').execute();
    expect(stored.map((row) => row.email).sort()).toEqual([...created].sort());
    // The proxy delivered everything on the first try: no retry, no redispatch, no server-side error.
    const stats = await proxyStats(statsSocket);
    for (const instance of instances) {
      expect(stats[instance.name], instance.name).toMatchObject({ wretr: '0', wredis: '0', eresp: '0', econ: '0' });
      expect(Number(stats[instance.name].stot), `${instance.name} served requests`).toBeGreaterThan(20);
    }
  }, 300_000);
});
