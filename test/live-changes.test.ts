import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedCommands } from '../src/cli/commands.js';
import { loadConfig } from '../src/config/config.js';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../src/db/data-dir-lock.js';
import { openDatabase } from '../src/db/database.js';
import { LISTENER_APPLICATION_NAME } from '../src/db/postgres-listener.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { updateKey } from '../src/queries/api-keys.js';
import { startServer, type RunningServer } from '../src/service/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, UNLICENSED_AGENCY, withRecords, type Bundle } from './helpers/fixtures.js';

const exec = promisify(execFile);

/*
 * Changes made while the service runs (issue: nothing lost, every instance sees them within a second).
 * The servers here keep key records for 60 s: a change seen at once can only have come through the
 * change signal, not through the cache running out.
 */
const LONG_KEY_CACHE_MS = 60_000;

const project = (id: number, extra: Record<string, unknown> = {}) => ({
  id, company_id: DEV, author_id: 110, area_id: 1, name: `Tower ${id}`, latitude: 25.08, longitude: 55.14, ...extra,
});
const unit = (id: number, projectId: number, price: number) => ({ id, project_id: projectId, unit_number: `U-${id}`, bedrooms: 2, status: 4, price, unit_area: 100 });

function catalogue(): Bundle {
  return withRecords(baseBundle(), {
    projects: [project(1), project(2)],
    units: [unit(11, 1, 1_000_000), unit(21, 2, 2_000_000)],
  });
}

async function get(server: RunningServer, path: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } });
  return { status: response.status, body: await response.json() };
}

/** Polls until `seen` holds; returns the milliseconds it took, or throws after `withinMs`. */
async function seenWithin(withinMs: number, seen: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await seen()) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`not seen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an embedded data directory while the service runs (pglite)', () => {
  let dir: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: RunningServer | undefined;

  const config = () => loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', FACILITY_LINK_RADIUS_M: '10000' });
  const serve = async () => {
    server = await startServer(config(), { runCommand: servedCommands(config), keyCacheTtlMs: LONG_KEY_CACHE_MS });
    return server;
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  // Run from the test's directory, as an operator next to their bundles would.
  const cli = (...args: string[]) => execCli(env, dir, ...args);
  const secretOf = (stdout: string) => stdout.trim().split('\n').at(-1)!;
  const idOf = (stdout: string) => Number(stdout.split('\t')[0]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalogue-live-'));
    dataDir = join(dir, 'data');
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(catalogue()));
    // Nobody serves the directory yet: the CLI opens it itself.
    const imported = await cli('import', join(dir, 'catalogue.json'));
    expect(imported.code, imported.stderr).toBe(0);
    await serve();
  }, 240_000);
  afterAll(async () => {
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a key created through the CLI while serving works at once, and after a restart', async () => {
    const created = await cli('keys', 'create', '--company', String(AGENCY), '--author', String(OWNER), '--name', 'My website');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/\tactive\tprice_vector 0\tdomains \(any\)\tapplications full\tMy website\n\nSecret \(shown once/);
    const secret = secretOf(created.stdout);
    expect((await get(server!, '/whoIAm', secret)).body.data.api_key.name).toBe('My website');

    await stop();
    await serve();
    expect((await get(server!, '/whoIAm', secret)).status).toBe(200);
    const listed = await cli('keys', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${idOf(created.stdout)}\t`);
    expect(listed.stdout).toMatch(/\tactive\tprice_vector 0\tdomains \(any\)\tapplications full\tMy website/);
  }, 300_000);

  it('a key revoked while serving is refused on the next request, and after a restart', async () => {
    const created = await cli('keys', 'create', '--company', String(AGENCY), '--author', String(OWNER), '--name', 'Soon revoked', '--price-vector', '10');
    const secret = secretOf(created.stdout);
    // Cached now, for a minute: only the signal can make the next answer a 401.
    expect((await get(server!, '/projects/1', secret)).body.data.units[0].price).toBe(1_100_000);

    const updated = await cli('keys', 'update', String(idOf(created.stdout)), '--price-vector', '-10');
    expect(updated.code, updated.stderr).toBe(0);
    expect((await get(server!, '/projects/1', secret)).body.data.units[0].price).toBe(900_000);

    const revoked = await cli('keys', 'revoke', String(idOf(created.stdout)));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(/\trevoked\t/);
    expect(await get(server!, '/whoIAm', secret)).toEqual({ status: 401, body: { status: 'error', message: 'invalid api key' } });

    await stop();
    await serve();
    expect((await get(server!, '/whoIAm', secret)).status).toBe(401);
  }, 300_000);

  it('an import while serving is served at once: a project turned draft, a contract ended, a licence approved, a price changed', async () => {
    const agencyKey = (await createApiKeyThrough(cli, AGENCY, OWNER)).secret;
    const pendingKey = (await createApiKeyThrough(cli, UNLICENSED_AGENCY, 102)).secret;
    expect((await get(server!, '/projects', agencyKey)).body.data.total).toBe(2);
    expect((await get(server!, '/units/21', agencyKey)).body.data.price).toBe(2_000_000);
    expect((await get(server!, '/whoIAm', pendingKey)).status).toBe(403);

    const changes = {
      projects: [project(1, { is_draft: true })],
      units: [unit(21, 2, 2_500_000)],
      companies: [{ id: UNLICENSED_AGENCY, company_type: 2, company_name: 'Pending Realty', licence_status: 'approved' }],
    };
    await writeFile(join(dir, 'changes.json'), JSON.stringify(changes));
    const imported = await cli('import', 'changes.json');
    // A relative path is the caller's, also when the serving process reads it.
    expect(imported).toMatchObject({ code: 0, stdout: expect.stringMatching(/^imported changes\.json: /) });
    // Handed over: the CLI says that interrupting it will not stop the command (issue 20 #8).
    expect(imported.stderr).toMatch(/^note: the command runs in the catalogue service \(process \d+\) that holds .*; interrupting this CLI will not stop it$/m);
    expect((await get(server!, '/projects', agencyKey)).body.data.items.map((p: { id: number }) => p.id)).toEqual([2]);
    expect((await get(server!, '/projects/1', agencyKey)).status).toBe(404);
    expect((await get(server!, '/units/21', agencyKey)).body.data.price).toBe(2_500_000);
    expect((await get(server!, '/whoIAm', pendingKey)).status).toBe(200);
    const health = (await fetch(`${server!.url}/health`).then((r) => r.json())) as { data: { catalogue_version: number } };
    expect(health.data.catalogue_version).toBe(server!.changes.catalogueVersion);

    await writeFile(join(dir, 'ended.json'), JSON.stringify({ contracts: [{ agency_id: AGENCY, developer_id: DEV, status: 'rejected' }] }));
    expect((await cli('import', join(dir, 'ended.json'))).code).toBe(0);
    expect((await get(server!, '/projects', agencyKey)).body.data.total).toBe(0);
    expect((await get(server!, '/units/21', agencyKey)).status).toBe(404);
    const version = server!.changes.catalogueVersion;
    expect((await fetch(`${server!.url}/health`).then((r) => r.json())).data.catalogue_version).toBe(version);
  }, 300_000);

  it('a second process on the directory is refused with one line, and so is a command nobody can take', async () => {
    const second = await cli('serve');
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split('\n').filter((line) => !line.startsWith('npm warn'))).toEqual([
      expect.stringMatching(/^error: the data directory .* is in use by the catalogue service \(process \d+, since .*\): stop it first/),
    ]);
    expect(() => lockDataDir(dataDir)).toThrow(DataDirInUseError);

    // A live holder without a socket (this test process pretends to be one).
    const otherDir = join(dir, 'held');
    const lock = lockDataDir(otherDir);
    try {
      const result = await execCli({ ...env, DATA_DIR: otherDir }, dir, 'keys', 'create', '--company', '1', '--author', '100', '--name', 'x');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: the data directory .* is in use by process \d+, which does not take commands .*: wait until it has started and try again, or stop it\n$/m);
      expect(result.stdout).toBe('');
    } finally {
      lock.release();
    }
    // Nothing was written there: the directory holds no database.
    expect(existsSync(join(otherDir, 'PG_VERSION'))).toBe(false);
  }, 300_000);

  it("a crashed process's stale lock is recovered on the next start", async () => {
    const crashDir = join(dir, 'crashed');
    const child = spawn(TSX, [MAIN, 'serve'], {
      env: { ...env, DATA_DIR: crashDir, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk)); // the banner goes to stderr
    await seenWithin(180_000, async () => output.includes('listening'));
    expect(existsSync(join(crashDir, LOCK_FILE))).toBe(true);
    // Kill the service (tsx and the node process it starts) without letting it clean up.
    const killed = await killTree(child.pid!);
    await seenWithin(30_000, async () => killed.every((pid) => !existsSync(`/proc/${pid}`) || isZombie(pid)));
    expect(existsSync(join(crashDir, LOCK_FILE))).toBe(true);

    const database = await openDatabase({ dataDir: crashDir });
    try {
      expect(await database.ping()).toBe(true);
    } finally {
      await database.close();
    }
    expect(existsSync(join(crashDir, LOCK_FILE))).toBe(false);
  }, 300_000);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two service instances on one PostgreSQL database', () => {
  let t: TestDatabase;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    await importBundle(t.database.db, catalogue(), { facilityLinkRadiusM: 10_000 });
    const config = loadConfig({ DATABASE_URL: t.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    a = await startServer(config, { keyCacheTtlMs: LONG_KEY_CACHE_MS });
    b = await startServer(config, { keyCacheTtlMs: LONG_KEY_CACHE_MS });
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await t?.drop();
  });

  it('a change made through one is seen by the other within 1 s: keys, price vector, licence, contract, catalogue', async () => {
    const db = t.database.db;
    const { secret, key } = await createApiKey(db, { companyId: AGENCY, authorId: OWNER, name: 'two instances' });
    // Both instances hold the key's record now.
    for (const server of [a, b]) expect((await get(server, '/units/11', secret)).body.data.price).toBe(1_000_000);

    await updateKey(db, key.id, { priceVector: 20 });
    await seenWithin(1_000, async () => (await get(b, '/units/11', secret)).body.data?.price === 1_200_000);

    const versionBefore = b.changes.catalogueVersion;
    await importBundle(db, { units: [unit(11, 1, 1_500_000)] }, { facilityLinkRadiusM: 10_000 });
    await seenWithin(1_000, async () => b.changes.catalogueVersion === versionBefore + 1);
    expect((await get(b, '/units/11', secret)).body.data.price).toBe(1_800_000);

    await importBundle(db, { contracts: [{ agency_id: AGENCY, developer_id: DEV, status: 'rejected' }] }, { facilityLinkRadiusM: 10_000 });
    await seenWithin(1_000, async () => (await get(b, '/units/11', secret)).status === 404);
    await importBundle(db, { companies: [{ id: AGENCY, company_type: 2, company_name: 'Gulf Homes Realty', logo_file_id: 1, licence_status: 'pending' }] }, { facilityLinkRadiusM: 10_000 });
    await seenWithin(1_000, async () => (await get(b, '/whoIAm', secret)).status === 403);
    await updateKey(db, key.id, { status: 1 });
    await seenWithin(1_000, async () => (await get(a, '/whoIAm', secret)).status === 401);
    await seenWithin(1_000, async () => (await get(b, '/whoIAm', secret)).status === 401);
  }, 60_000);

  it('the listening connection killed with pg_terminate_backend: the instance serves nothing stale and listens again', async () => {
    const db = t.database.db;
    const { secret, key } = await createApiKey(db, { companyId: UNLICENSED_AGENCY, authorId: 102, name: 'terminated listener' });
    await importBundle(db, { companies: [{ id: UNLICENSED_AGENCY, company_type: 2, company_name: 'Pending Realty', licence_status: 'approved' }] }, { facilityLinkRadiusM: 10_000 });
    await seenWithin(1_000, async () => (await get(a, '/whoIAm', secret)).status === 200);

    const admin = new pg.Client({ connectionString: t.url });
    await admin.connect();
    try {
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_APPLICATION_NAME],
      );
      // Two per instance: the change signal's and the webhook worker's LISTEN connections.
      expect(killed.rows.length).toBe(4);
      // The change lands while the listeners may be away: it must be seen all the same.
      await updateKey(db, key.id, { status: 1 });
      for (const server of [a, b]) await seenWithin(1_000, async () => (await get(server, '/whoIAm', secret)).status === 401);
      // Both listen again (a fresh LISTEN connection each), and report it.
      await seenWithin(5_000, async () => {
        const listeners = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [
          LISTENER_APPLICATION_NAME,
        ]);
        return listeners.rows[0].n === 4 && a.changes.listening && b.changes.listening;
      });
      const health = await fetch(`${a.url}/health`).then((r) => r.json());
      expect(health.data.change_signal).toBe('listening');
      // And the signal works again: a change after the reconnect is seen through it.
      const again = await createApiKey(db, { companyId: UNLICENSED_AGENCY, authorId: 102, name: 'after reconnect' });
      expect((await get(b, '/whoIAm', again.secret)).status).toBe(200);
      await updateKey(db, again.key.id, { status: 1 });
      await seenWithin(1_000, async () => (await get(b, '/whoIAm', again.secret)).status === 401);
    } finally {
      await admin.end();
    }
  }, 60_000);
});

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const MAIN = join(process.cwd(), 'src', 'cli', 'main.ts');

/** `npm run catalogue -- …` as a real process, in the working directory `cwd`. */
async function execCli(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec(TSX, [MAIN, ...args], { env, cwd, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

async function createApiKeyThrough(cli: (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, company: number, author: number) {
  const created = await cli('keys', 'create', '--company', String(company), '--author', String(author), '--name', `key of ${company}`);
  expect(created.code, created.stderr).toBe(0);
  return { secret: created.stdout.trim().split('\n').at(-1)! };
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** SIGKILL a process and its descendants (tsx starts node); returns their pids. */
async function killTree(pid: number): Promise<number[]> {
  const { stdout } = await exec('ps', ['-e', '-o', 'pid=,ppid=']);
  const children = new Map<number, number[]>();
  for (const line of stdout.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const all: number[] = [];
  const walk = (id: number) => {
    all.push(id);
    for (const child of children.get(id) ?? []) walk(child);
  };
  walk(pid);
  for (const id of all.reverse()) {
    try {
      process.kill(id, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return all;
}
