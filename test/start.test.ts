import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';

/*
 * What a newcomer does: `npm start` on an empty data directory, then paste the printed curl line.
 * The graceful shutdown is checked on the way out: SIGTERM while an application is in flight (its
 * body only half sent, over a keep-alive connection) refuses new connections at once, still answers
 * that request, closes the database and ends the process with exit code 0.
 * Runs the real command in a child process; PORT=0 picks a free port, which the banner reports.
 */

/** A POST whose headers and first half of the body are sent now, the rest when `finish()` is called. */
function halfSentPost(url: string, headers: Record<string, string>, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  const agent = new http.Agent({ keepAlive: true });
  const request = http.request(url, {
    method: 'POST',
    agent,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) },
  });
  const response = new Promise<{ status: number; connection: string | undefined; body: string; at: number }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text, at: Date.now() }));
    });
    request.on('error', reject);
  });
  const sent = new Promise<void>((resolve) => request.write(payload.subarray(0, payload.length >> 1), () => resolve()));
  return { sent, response, finish: () => request.end(payload.subarray(payload.length >> 1)), close: () => agent.destroy() };
}

/** Resolves with the error code of a plain TCP connection attempt (undefined when it connects). */
function tryConnect(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const CURL_LINE = /curl -s -H 'X-API-Key: (ck_[0-9a-f]{64})' (http:\/\/\S+)\/whoIAm/;

/** Runs the CLI's `start` on a fresh data directory; resolves once it prints its curl line. */
async function startCli(command: string[], dataDir: string, logLevel: string) {
  const child = spawn(process.execPath, [...command, 'start'], {
    // No drain (SHUTDOWN_DRAIN_S=0): what SIGTERM does once it is over is checked here; the drain
    // itself behind a load balancer in test/scale-out/graceful-shutdown.test.ts.
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: logLevel, SHUTDOWN_DRAIN_S: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 150_000;
  while (!CURL_LINE.test(output)) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`no curl line printed:\n${output}`);
    await sleep(200);
  }
  const [, key, base] = output.match(CURL_LINE)!;
  return { child, key, base, output: () => output };
}

async function stopIfRunning(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
describe('npm start', () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    await stopIfRunning(child);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads the demo catalogue, prints a key and a curl line that works, and shuts down on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalogue-start-'));
    // What `npm start` runs, without npm in between (npm's own signal handling would hide our exit code).
    const started = await startCli(['--import', 'tsx', 'src/cli/main.ts'], join(dir, 'data'), 'info');
    child = started.child;
    const { key, base } = started;

    const whoAmI = await fetch(`${base}/whoIAm`, { headers: { 'X-API-Key': key } });
    expect(whoAmI.status).toBe(200);
    const body = await whoAmI.json();
    expect(body.status).toBe('success');
    expect(body.data.api_key.key_prefix).toBe(key.slice(0, 9));

    const projects = await (await fetch(`${base}/projects?limit=5`, { headers: { 'X-API-Key': key } })).json();
    expect(projects.data.total).toBeGreaterThanOrEqual(40);

    let unitId: number | undefined;
    for (const { id } of projects.data.items) {
      const detail = await (await fetch(`${base}/projects/${id}`, { headers: { 'X-API-Key': key } })).json();
      unitId ??= detail.data.units[0]?.id;
    }
    expect(unitId).toBeDefined();

    // The printed key answers applications in the private form: a stranger who types the phone number
    // of a client the demo CRM holds (James Whitfield's) sees only what they sent, never the stored client.
    const stranger = await fetch(`${base}/units/${unitId}/applications`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client: { first_name: 'Stranger', mobile_number: '+971 50 123 4567' } }),
    });
    const strangerBody = await stranger.text();
    expect(stranger.status, strangerBody).toBe(201);
    const strangerAnswer = JSON.parse(strangerBody).data;
    expect(strangerAnswer.client).toMatchObject({ first_name: 'Stranger', mobile_number: '+971 50 123 4567' });
    expect(strangerAnswer.client).not.toHaveProperty('id');
    expect(strangerAnswer.client).not.toHaveProperty('created');
    for (const stored of ['Whitfield', 'james.whitfield', 'jwhitfield']) expect(strangerBody).not.toContain(stored);
    expect(started.output()).toContain('private answer');

    const email = 'shutdown@example.com';
    const inFlight = halfSentPost(`${base}/units/${unitId}/applications`, { 'X-API-Key': key }, { client: { first_name: 'Late', email } });
    await inFlight.sent;
    await sleep(300);

    const exited = new Promise<{ code: number | null; at: number }>((resolve) => child!.once('exit', (code) => resolve({ code, at: Date.now() })));
    child.kill('SIGTERM');
    const refuseBy = Date.now() + 10_000;
    while ((await tryConnect(base)) !== 'ECONNREFUSED') {
      if (Date.now() > refuseBy) throw new Error(`still accepting connections 10 s after SIGTERM:\n${started.output()}`);
      await sleep(50);
    }
    // Refusing new connections, but still running: the half-sent request holds it.
    await sleep(500);
    expect(child.exitCode).toBeNull();

    inFlight.finish();
    const answered = await inFlight.response;
    inFlight.close();
    expect(answered.status, answered.body).toBe(201);
    expect(JSON.parse(answered.body).data.client.email).toBe(email);
    // The keep-alive client is told to go, so it cannot hold the shutdown open until its timeout.
    expect(answered.connection).toBe('close');

    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - answered.at).toBeLessThan(5_000);
    const output = started.output();
    expect(output.indexOf('stopped: requests in flight answered, database closed')).toBeGreaterThan(output.indexOf('shutting down'));

    // What was answered 201 is stored, and the data directory opens again after the shutdown.
    const database = await openDatabase({ dataDir: join(dir, 'data') });
    try {
      const rows = await database.db.selectFrom('clients').select('id').where('email', '=', email).execute();
      expect(rows).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 200_000);
});

/*
 * Production runs the compiled service (README): `npm run build`, then `node dist/cli/main.js`. Built
 * here and started on a fresh embedded database, so a file the build leaves out (the PGlite worker is
 * plain JavaScript, copied beside the compiled code) fails here rather than in a deployment.
 */
describe('npm run build', () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    await stopIfRunning(child);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('compiles a service that starts on the embedded database and serves the catalogue', async () => {
    const build = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8' });
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);

    dir = await mkdtemp(join(tmpdir(), 'catalogue-built-'));
    const started = await startCli(['dist/cli/main.js'], join(dir, 'data'), 'warn');
    child = started.child;
    const { key, base } = started;
    const headers = { 'X-API-Key': key };
    const page = await (await fetch(`${base}/projects?bedrooms=2&limit=1`, { headers })).json();
    expect(page.data.total).toBeGreaterThan(0);
    const detail = await fetch(`${base}/projects/${page.data.items[0].id}`, { headers });
    expect(detail.status).toBe(200);
    expect(Object.keys((await detail.json()).data.nearby_facilities)).toHaveLength(8);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 200_000);
});
