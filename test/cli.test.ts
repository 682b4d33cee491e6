import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { PRIVATE_APPLICATIONS_ADVICE } from '../src/cli/commands.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { baseBundle, withRecords } from './helpers/fixtures.js';

const exec = promisify(execFile);

/*
 * The operator's CLI, run as a real process on a real embedded database directory, exactly as
 * `npm run catalogue -- …` runs it.
 */
describe('catalogue CLI (pglite data directory)', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const cli = async (...args: string[]) => {
    try {
      // node --import tsx, as `npm run catalogue` (tsx) loads it, without npx's start-up (~2.5 s a call under load).
      const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env, timeout: 120_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  };

  const withDb = async <T>(work: (database: Database) => Promise<T>) => {
    const database = await openDatabase({ dataDir: join(dir, 'data') });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalogue-cli-'));
    env = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent' };
    await writeFile(join(dir, 'bundle.json'), JSON.stringify(withRecords(baseBundle(), { projects: [{ id: 1, company_id: 10, name: 'Marina Vista' }] })));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('imports a bundle, and again with the same result', async () => {
    const first = await cli('import', join(dir, 'bundle.json'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/imported/);
    const second = await cli('import', join(dir, 'bundle.json'));
    expect(second.code, second.stderr).toBe(0);
    const projects = await withDb(({ db }) => db.selectFrom('projects').select('id').execute());
    expect(projects).toEqual([{ id: 1 }]);
  }, 180_000);

  it('reports a bad bundle with section, index and field, and exits 1', async () => {
    const bad = withRecords(baseBundle(), { units: [{ id: 1, project_id: 1, unit_number: 'A-1', status: 9 }] });
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const result = await cli('import', join(dir, 'bad.json'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/units\[0\]\.status/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('creates a key, prints the secret once, stores only its hash', async () => {
    const result = await cli('keys', 'create', '--company', '1', '--author', '100', '--name', 'Website', '--price-vector', '7.5', '--domains', 'agency.ae, www.agency.ae');
    expect(result.code, result.stderr).toBe(0);
    const secret = result.stdout.match(/ck_[0-9a-f]{64}/)?.[0];
    expect(secret).toBeDefined();
    const rows = await withDb(({ db }) => db.selectFrom('api_keys').selectAll().execute());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key_hash: hashApiKey(secret!), key_prefix: secret!.slice(0, 9), price_vector: 7.5, allowed_domains: ['agency.ae', 'www.agency.ae'], name: 'Website' });
    expect(JSON.stringify(rows)).not.toContain(secret!.slice(3));
    // A domain list without --private-applications: one line recommending it (issue 20), on stderr.
    expect(rows[0].private_applications).toBe(false);
    expect(result.stderr.trim().split('\n')).toEqual([PRIVATE_APPLICATIONS_ADVICE]);
    // The data directory holds no trace of the secret either.
    const listing = await cli('keys', 'list');
    expect(listing.stdout).toContain('\tapplications full\t');
    expect(listing.stdout).toContain(secret!.slice(0, 9));
    expect(listing.stdout).not.toContain(secret!);
  }, 120_000);

  it('updates and revokes a key', async () => {
    const updated = await cli('keys', 'update', '1', '--name', 'Renamed', '--price-vector', '-10', '--domains', '');
    expect(updated.code, updated.stderr).toBe(0);
    const revoked = await cli('keys', 'revoke', '1');
    expect(revoked.code, revoked.stderr).toBe(0);
    const [row] = await withDb(({ db }) => db.selectFrom('api_keys').selectAll().execute());
    expect(row).toMatchObject({ name: 'Renamed', price_vector: -10, allowed_domains: null, status: 1 });
  }, 120_000);

  it('sets, shows and changes private applications (issue 20)', async () => {
    const created = await cli('keys', 'create', '--company', '1', '--author', '100', '--name', 'Site', '--domains', 'agency.ae', '--private-applications');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('');
    const id = created.stdout.split('\t')[0];
    const flag = async () => (await withDb(({ db }) => db.selectFrom('api_keys').select('private_applications').where('id', '=', Number(id)).executeTakeFirstOrThrow())).private_applications;
    expect(await flag()).toBe(true);
    expect((await cli('keys', 'list')).stdout).toMatch(new RegExp(`^${id}\t.*\tapplications private\tSite$`, 'm'));
    const off = await cli('keys', 'update', id, '--no-private-applications');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('\tapplications full\t');
    expect(await flag()).toBe(false);
    // A key with domains left in the full form is still told, by `keys update` as by `keys create`.
    expect(off.stderr.trim().split('\n')).toEqual([PRIVATE_APPLICATIONS_ADVICE]);
    // Another change leaves the setting as it is.
    expect((await cli('keys', 'update', id, '--private-applications')).stderr).toBe('');
    await cli('keys', 'update', id, '--name', 'Site 2');
    expect(await flag()).toBe(true);
  }, 180_000);

  it.each([
    [['keys', 'create', '--company', '10', '--author', '110', '--name', 'x'], /not an agency/],
    [['keys', 'create', '--company', '1', '--author', '110', '--name', 'x'], /not a member/],
    [['keys', 'create', '--company', '1', '--author', '100', '--name', 'x', '--price-vector', '-100'], /price vector/],
    [['keys', 'create', '--company', '1', '--author', '100', '--name', 'x', '--domains', 'https://agency.ae/'], /not a domain/],
    [['keys', 'update', '99', '--name', 'x'], /does not exist/],
    [['keys', 'update', '1'], /nothing to update/],
  ])('refuses %j with a one-line reason', async (args, reason) => {
    const result = await cli(...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(reason);
  }, 120_000);

  it('stops with a message naming a bad configuration variable', async () => {
    const saved = env;
    env = { ...env, AMENITIEST_RADIUS: 'far' };
    try {
      const result = await cli('migrate');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/AMENITIEST_RADIUS/);
    } finally {
      env = saved;
    }
  }, 60_000);

  it('a data command starts without loading the HTTP app or the importer (half of its start-up)', async () => {
    const record = join(dir, 'modules.txt');
    await exec(process.execPath, ['--import', 'tsx', '--import', './test/helpers/record-modules.mjs', 'src/cli/main.ts', 'keys', 'list'], {
      env: { ...env, RECORD_MODULES_FILE: record },
      timeout: 120_000,
    });
    const loaded = (await readFile(record, 'utf8')).split('\n');
    // The recording works: the command's own modules are there.
    expect(loaded.some((url) => url.endsWith('/src/queries/api-keys.ts'))).toBe(true);
    for (const heavy of ['/src/service/server.ts', '/src/http/app.ts', '/src/http/mcp/stdio-proxy.ts', '/src/import/import-bundle.ts', '/node_modules/fastify/']) {
      expect(loaded.filter((url) => url.includes(heavy))).toEqual([]);
    }
  }, 120_000);

  it('help shows the required options as the bundle spec\u2019s synopsis does', async () => {
    const keys = await cli('keys', 'create', '--help');
    expect(keys.stdout).toContain('Usage: catalogue keys create --company ID --author USER_ID --name LABEL [options]');
    for (const option of ['--company', '--author', '--name']) expect(keys.stdout).toMatch(new RegExp(`${option} <\\w+>\\s+[^\\n]*\\(required\\)`));
    expect(keys.stdout).not.toMatch(/--price-vector[^\n]*\(required\)/);
    const webhooks = await cli('webhooks', 'create', '--help');
    expect(webhooks.stdout).toContain('Usage: catalogue webhooks create --key KEY_ID --url URL [options]');
    expect((await cli('--help')).stdout).toContain('webhooks');
  }, 60_000);

  it('never writes the secret into the data directory', async () => {
    const result = await cli('keys', 'create', '--company', '1', '--author', '100', '--name', 'Second');
    const secret = result.stdout.match(/ck_[0-9a-f]{64}/)![0];
    const files = await exec('grep', ['-rl', secret.slice(3), join(dir, 'data')]).catch(() => ({ stdout: '' }));
    expect(files.stdout).toBe('');
    expect(await readFile(join(dir, 'bundle.json'), 'utf8')).not.toContain(secret);
  }, 120_000);
});
