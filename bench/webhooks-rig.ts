import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { onServer } from '../scripts/pg-admin.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { targetEnv } from './catalogue.js';
import { loadFixtures, type Fixtures } from './fixtures.js';
import { serviceArgs, startChildServer, type ChildServer } from './server-process.js';

/*
 * What the webhook bench (bench/webhooks.ts) and soak (scripts/soak-webhooks.ts) share: a throwaway
 * PostgreSQL database with the demo catalogue, a receiver on 127.0.0.1 that records every request,
 * an endpoint on a bench key, the compiled service as a child process, and a producer of catalogue
 * changes through the importer (price changes of visible units, `batch` per import, at a set rate).
 *
 * Each import is one catalogue version; every unit.changed event carries it, so the receiver knows
 * which commit an event reports and when that commit returned (the latency measured is from there to
 * the receiver's answer).
 */
export const LINK_RADIUS_M = 2_000;

export interface Rig {
  serverUrl: string;
  databaseUrl: string;
  database: Database;
  fixtures: Fixtures;
  units: UnitRecord[];
  drop(): Promise<void>;
}

/** A unit record of the demo bundle with a price, re-imported with new prices. */
type BundleUnit = NonNullable<ReturnType<typeof generateDemoBundle>['units']>[number];
type UnitRecord = BundleUnit & { price: number };
const isPricedUnit = (unit: BundleUnit): unit is UnitRecord => typeof unit.price === 'number';

export async function createRig(serverUrl: string, projects: number, label: string): Promise<Rig> {
  const name = `cat_${label}_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const database = await openDatabase({ databaseUrl, poolSize: 4 });
  const drop = async () => {
    await database.close().catch(() => {});
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((error: unknown) => console.error(`could not drop ${name}: ${String(error)}`));
  };
  try {
    await migrateToLatest(database.primary);
    const bundle = generateDemoBundle({ projects });
    await importBundle(database.db, bundle, { facilityLinkRadiusM: LINK_RADIUS_M });
    const fixtures = await loadFixtures(database.db, name);
    const visible = new Set(fixtures.unitIds);
    const units = (bundle.units ?? []).filter(isPricedUnit).filter((unit) => visible.has(unit.id));
    return { serverUrl, databaseUrl, database, fixtures, units, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

export interface Receipt {
  id: string;
  version: number;
  unitId: number;
  status: number;
  at: number;
}

export interface BenchReceiver {
  url: string;
  receipts: Receipt[];
  close(): Promise<void>;
}

/** Answers `status(…)` at once (after reading the body); records each request with its answer. */
export async function startBenchReceiver(status: () => number = () => 200): Promise<BenchReceiver> {
  const receipts: Receipt[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = status();
      response.writeHead(answer).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number; catalogue_version: number } };
      receipts.push({ id: String(request.headers['webhook-id']), version: Number(body.data.catalogue_version), unitId: body.data.id, status: answer, at: performance.now() });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function addEndpoint(rig: Rig, url: string): Promise<number> {
  const { endpoint } = await createEndpoint(rig.database.db, { keyId: rig.fixtures.keys.markup.id, url, eventTypes: ['unit.changed'] });
  return endpoint.id;
}

export function startService(rig: Rig, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ChildServer> {
  return startChildServer({
    args: [...nodeArgs, ...serviceArgs(['serve'])],
    env: targetEnv({ driver: 'postgres', databaseUrl: rig.databaseUrl }, { PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', ...env }),
    cwd: process.cwd(),
    label: 'service',
    startTimeoutMs: 120_000,
    stopGraceMs: 30_000,
  });
}

export interface Production {
  /** Catalogue version -> when its import returned (performance.now()). */
  committedAt: Map<number, number>;
  /** Events the imports should have queued (per endpoint of the key). */
  events: number;
  imports: number;
  eventsPerImport: number;
  /** Seconds from the first import to the last one's return. */
  elapsedS: number;
  /** Imports that started later than their slot (the importer could not keep the rate). */
  late: number;
}

/**
 * Price changes of visible units at `rate` events/s for `durationS`: each changed unit is one
 * unit.changed event. Each import changes the priced units of whole projects, taken in turn until
 * they make `batch` events, and imports follow each other every events/rate seconds. `onTick` is
 * called after each import (e.g. to kill the service at some point).
 */
export async function produce(rig: Rig, options: { rate: number; batch: number; durationS: number; onTick?: (elapsedS: number) => Promise<void> | void }): Promise<Production> {
  const { rate, batch, durationS } = options;
  const units: UnitRecord[] = [];
  for (const projectId of new Set(rig.units.map((unit) => Number(unit.project_id)))) {
    if (units.length >= batch) break;
    units.push(...rig.units.filter((unit) => Number(unit.project_id) === projectId));
  }
  const eventsPerImport = units.length;
  const intervalMs = (eventsPerImport / rate) * 1000;
  const rounds = Math.floor((durationS * 1000) / intervalMs);
  const committedAt = new Map<number, number>();
  const started = performance.now();
  let late = 0;
  for (let round = 1; round <= rounds; round += 1) {
    const slot = started + (round - 1) * intervalMs;
    const wait = slot - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else if (wait < -intervalMs) late += 1;
    await importBundle(rig.database.db, { units: units.map((unit) => ({ ...unit, price: unit.price + round })) }, { facilityLinkRadiusM: LINK_RADIUS_M });
    const returned = performance.now();
    const { rows } = await sql<{ version: string }>`SELECT version FROM catalogue_state`.execute(rig.database.primary);
    committedAt.set(Number(rows[0].version), returned);
    await options.onTick?.((returned - started) / 1000);
  }
  return { committedAt, events: rounds * eventsPerImport, imports: rounds, eventsPerImport, elapsedS: (performance.now() - started) / 1000, late };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const loadAverage = () => loadavg().map((value) => value.toFixed(2)).join(' ');

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat. */
export async function cpuSeconds(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Until nothing is pending (or `timeoutMs`): resolves with what is left. */
export async function drained(rig: Rig, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'`.execute(rig.database.primary);
    const left = Number(rows[0].n);
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
