import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { BenchError, type DriverName } from './options.js';
import { nodeWithTsx } from './server-process.js';

/*
 * The database each driver is benchmarked on: a dedicated PostgreSQL database (created when missing)
 * or a PGlite data directory of its own. The catalogue is loaded with the CLI (`seed-demo`) in a child
 * process, exactly as an operator would, and reused when it already has the requested size.
 */
export interface Target {
  driver: DriverName;
  /** postgres only. */
  databaseUrl?: string;
  /** pglite only (absolute). */
  dataDir?: string;
}

export function describeTarget(target: Target): string {
  return target.driver === 'postgres' ? redactUrl(target.databaseUrl!) : `PGlite ${target.dataDir}`;
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** The environment of a child (server or CLI) pointed at this target; nothing inherited can redirect it. */
export function targetEnv(target: Target, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // RATE_LIMIT too: 32 connections on one key would measure 429s, not the catalogue.
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'LOG_LEVEL', 'RATE_LIMIT']) delete env[name];
  if (target.driver === 'postgres') env.DATABASE_URL = target.databaseUrl;
  else env.DATA_DIR = target.dataDir;
  // Stopped by SIGTERM with no load balancer to drain: no 10 s wait per server.
  return { SHUTDOWN_DRAIN_S: '0', ...env, ...extra };
}

export function openTarget(target: Target): Promise<Database> {
  return openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`BENCH_DATABASE_URL must name a database: ${redactUrl(url)}`);
  return name;
}

/** Runs `work` on the server's maintenance database (`postgres`), where CREATE/DROP DATABASE are allowed. */
async function withMaintenance<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new BenchError(
      `cannot connect to PostgreSQL at ${redactUrl(maintenance.toString())} (${(error as Error).message}): ` +
        'start it, point BENCH_DATABASE_URL at another server, or run with --drivers pglite',
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function ensurePostgresDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return withMaintenance(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    return true;
  });
}

/** Empties the target: a new PostgreSQL database, or no PGlite directory at all. */
export async function resetTarget(target: Target): Promise<void> {
  if (target.driver === 'postgres') {
    const name = databaseName(target.databaseUrl!);
    await withMaintenance(target.databaseUrl!, async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    });
  } else {
    await rm(target.dataDir!, { recursive: true, force: true });
  }
}

/** Number of projects stored (0 before the schema exists). */
export async function countProjects(database: Database): Promise<number> {
  try {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`.execute(database.db);
    return Number(rows[0].n);
  } catch (error) {
    // 42P01 undefined_table: nothing was ever loaded here.
    if ((error as { code?: string }).code === '42P01') return 0;
    throw error;
  }
}

/*
 * A catalogue is reused only when it was loaded by the same generator, importer and migrations: a
 * marker table (bench databases only) keeps the size and a hash of those sources.
 */
const CATALOGUE_SOURCES = ['src/demo', 'src/import', 'src/db/migrations'];

export async function catalogueFingerprint(root: string, foreignCurrencies: number): Promise<string> {
  const hash = createHash('sha256').update(`FACILITY_LINK_RADIUS_M=${LINK_RADIUS_M}\0`);
  // The demo's own mix leaves the fingerprint as it was (a catalogue loaded before the flag is reused).
  if (foreignCurrencies > 0) hash.update(`--foreign-currencies=${foreignCurrencies}\0`);
  for (const directory of CATALOGUE_SOURCES) {
    const files = (await readdir(join(root, directory))).filter((name) => name.endsWith('.ts')).sort();
    for (const file of files) hash.update(`${directory}/${file}\0`).update(await readFile(join(root, directory, file))).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

export interface CatalogueMarker {
  projects: number;
  fingerprint: string;
}

export async function readMarker(database: Database): Promise<CatalogueMarker | undefined> {
  try {
    const { rows } = await sql<CatalogueMarker>`SELECT projects, fingerprint FROM bench_catalogue LIMIT 1`.execute(database.db);
    return rows[0];
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return undefined;
    throw error;
  }
}

export async function writeMarker(database: Database, marker: CatalogueMarker): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS bench_catalogue (projects integer NOT NULL, fingerprint text NOT NULL, loaded_at timestamptz NOT NULL DEFAULT now())`.execute(
    database.db,
  );
  await sql`DELETE FROM bench_catalogue`.execute(database.db);
  await sql`INSERT INTO bench_catalogue (projects, fingerprint) VALUES (${marker.projects}, ${marker.fingerprint})`.execute(database.db);
}

/*
 * The link radius the catalogue is loaded with. The generator puts 10 facilities per project in the
 * same communities, so at the contract's default of 10 km the L catalogue would hold some 55 million
 * links (20 M at 5 km, 9 M at 3 km) and every project detail would list thousands of facilities; 2 km
 * gives 4.4 million links, about 900 per project. FACILITY_LINK_RADIUS_M overrides it.
 */
export const LINK_RADIUS_M = process.env.FACILITY_LINK_RADIUS_M ?? '2000';

/** `catalogue seed-demo --projects N [--foreign-currencies P] --no-key` in a child process; its output goes to our stderr. */
export async function seedCatalogue(target: Target, projects: number, cwd: string, foreignCurrencies = 0): Promise<void> {
  const foreign = foreignCurrencies > 0 ? ['--foreign-currencies', String(foreignCurrencies)] : [];
  const args = nodeWithTsx(['src/cli/main.ts', 'seed-demo', '--projects', String(projects), ...foreign, '--no-key', '--verbose']);
  const child = spawn(process.execPath, args, { cwd, env: targetEnv(target, { LOG_LEVEL: 'warn', FACILITY_LINK_RADIUS_M: LINK_RADIUS_M }), stdio: ['ignore', process.stderr, process.stderr] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`seed-demo --projects ${projects} exited with code ${code} (${describeTarget(target)})`);
}
