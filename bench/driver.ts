import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import {
  catalogueFingerprint,
  countProjects,
  describeTarget,
  ensurePostgresDatabase,
  openTarget,
  readMarker,
  resetTarget,
  seedCatalogue,
  targetEnv,
  writeMarker,
  type Target,
} from './catalogue.js';
import type { CeilingJob } from './ceiling.js';
import { countCrm, loadFixtures, revokeBenchKeys } from './fixtures.js';
import { countStatus, probe, runLoad, type LoadSettings, type LoadStats } from './load.js';
import type { BenchOptions, DriverName } from './options.js';
import type { DriverResult, ScenarioResult } from './report.js';
import { buildScenarios, selectScenarios, type Scenario } from './scenarios.js';
import { RssSampler, serviceArgs, startChildServer, waitForHealth, waitUntilIdle } from './server-process.js';

/*
 * One driver end to end: make sure the catalogue is there, read fixtures and issue keys, start the
 * service as a child process, run every scenario while sampling its RSS, stop it, and check what the
 * write scenario left in the database.
 */
export interface DriverContext {
  options: BenchOptions;
  root: string;
  runId: string;
  log: (line: string) => void;
}

const ROTATING_PROBES = 9;

export function targetFor(driver: DriverName, options: BenchOptions): Target {
  return driver === 'postgres' ? { driver, databaseUrl: options.postgresUrl } : { driver, dataDir: options.pgliteDir };
}

/** Makes sure the target holds a catalogue of the requested size, loading one when it does not. */
export async function ensureCatalogue(target: Target, context: DriverContext): Promise<{ loadSeconds?: number }> {
  const { options, log, root } = context;
  if (target.driver === 'postgres') {
    if (await ensurePostgresDatabase(target.databaseUrl!)) log(`created database ${describeTarget(target)}`);
  } else {
    await mkdir(dirname(target.dataDir!), { recursive: true });
  }
  const fingerprint = await catalogueFingerprint(root, options.foreignCurrencies);
  let database = await openTarget(target);
  const { stored, marker } = await (async () => ({ stored: await countProjects(database), marker: await readMarker(database) }))().finally(() =>
    database.close(),
  );
  const sameSources = marker?.fingerprint === fingerprint;
  if (stored === options.projects && marker?.projects === stored && sameSources && !options.reload) {
    log(`reusing the catalogue of ${stored} projects in ${describeTarget(target)}`);
    return {};
  }
  if (stored > 0 || marker || options.reload) {
    const why = options.reload
      ? '--reload'
      : stored !== options.projects
        ? `it holds ${stored} projects, ${options.projects} wanted`
        : 'it was loaded by another version of the generator, importer or migrations';
    log(`emptying ${describeTarget(target)}: ${why}`);
    await resetTarget(target);
  }
  log(`loading ${options.projects} projects into ${describeTarget(target)} (catalogue seed-demo)…`);
  const started = Date.now();
  await seedCatalogue(target, options.projects, root, options.foreignCurrencies);
  const loadSeconds = (Date.now() - started) / 1000;
  log(`loaded in ${loadSeconds.toFixed(1)} s`);
  database = await openTarget(target);
  await writeMarker(database, { projects: options.projects, fingerprint }).finally(() => database.close());
  return { loadSeconds };
}

export interface DriverRun {
  result: DriverResult;
  /** Scenario name -> its ceiling request, for the scenarios that ran. */
  ceilingJobs: Map<string, CeilingJob>;
}

export async function benchDriver(driver: DriverName, context: DriverContext): Promise<DriverRun> {
  const { options, log, root, runId } = context;
  const target = targetFor(driver, options);
  const { loadSeconds } = await ensureCatalogue(target, context);

  let database = await openTarget(target);
  const prepared = await (async () => {
    // A reused database may predate a migration; the server would apply it anyway.
    await migrateToLatest(database.db);
    const projects = await countProjects(database);
    if (projects !== options.projects) log(`warning: ${projects} projects stored after loading ${options.projects}`);
    const { rows } = await sql<{ version: string }>`SELECT version()`.execute(database.db);
    return { fixtures: await loadFixtures(database.db, runId), crmBefore: await countCrm(database.db), version: rows[0].version };
  })().finally(() => database.close());
  const { fixtures, crmBefore } = prepared;
  const c = fixtures.catalogue;
  log(`catalogue: ${c.projects} projects (${c.visibleProjects} visible), ${c.units} units (${c.visibleUnits} visible), ${c.facilities} facilities`);
  const scenarios = selectScenarios(buildScenarios(fixtures, runId), options.scenarios);

  const startedAt = Date.now();
  const server = await startChildServer({
    args: serviceArgs(['serve']),
    env: targetEnv(target, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
    cwd: root,
    label: `server ${driver}`,
  });
  const results: ScenarioResult[] = [];
  const ceilingJobs = new Map<string, CeilingJob>();
  let rssPeakMb = 0;
  let serverStartSeconds = 0;
  try {
    await waitForHealth(server.url);
    serverStartSeconds = (Date.now() - startedAt) / 1000;
    log(`server ${driver} (pid ${server.pid}) ready at ${server.url} in ${serverStartSeconds.toFixed(1)} s`);
    const sampler = new RssSampler(server.pid).start();
    for (const scenario of scenarios) {
      const result = await runScenario(server.url, server.pid, scenario, driver, sampler, context);
      results.push(result);
      if (result.load) ceilingJobs.set(scenario.name, ceilingJobOf(scenario, result.wireBytes));
    }
    rssPeakMb = sampler.stop();
  } finally {
    const code = await server.stop();
    if (code !== 0) log(`server ${driver} exited with code ${code}`);
  }

  database = await openTarget(target);
  const crmAfter = await (async () => {
    const counts = await countCrm(database.db);
    await revokeBenchKeys(database.db, fixtures.keys);
    return counts;
  })().finally(() => database.close());

  const applications = results.find((r) => r.scenario === 'applications');
  const writes = applications && {
    created201: (applications.probeCreated ?? 0) + countStatus([applications.warmup, applications.load, applications.latency], 201),
    clients: crmAfter.clients - crmBefore.clients,
    opportunities: crmAfter.opportunities - crmBefore.opportunities,
    offers: crmAfter.offers - crmBefore.offers,
  };

  const result: DriverResult = {
    driver,
    target: describeTarget(target),
    databaseVersion: prepared.version,
    catalogue: fixtures.catalogue,
    ...(loadSeconds !== undefined && { loadSeconds }),
    serverStartSeconds,
    rssPeakMb,
    ...(writes && { writes }),
    scenarios: results,
  };
  return { result, ceilingJobs };
}

interface RunPlan {
  warmup?: LoadSettings;
  /** Given the warm-up's req/s when there was one. */
  load: (warmupRps: number | undefined) => LoadSettings;
  latency?: LoadSettings;
}

/** Reads: fixed durations. */
function readRuns(options: BenchOptions): RunPlan {
  const { connections } = options;
  return {
    ...(options.warmup > 0 && { warmup: { connections, durationS: options.warmup } }),
    load: () => ({ connections, durationS: options.duration }),
    ...(options.latencyDuration > 0 && { latency: { connections: 1, durationS: options.latencyDuration } }),
  };
}

/*
 * Writes: request counts sized to last about as long as the read runs (from the warm-up's rate, and
 * the probes' latency for the warm-up and c=1), so that every request is answered before the run
 * ends and the 201s can be compared with the rows created.
 */
function writeRuns(options: BenchOptions, probeMs: number): RunPlan {
  const { connections } = options;
  const sequentialRps = 1000 / Math.max(1, probeMs);
  const amount = (rps: number, seconds: number) => Math.min(1_000_000, Math.max(connections, Math.round(rps * seconds)));
  return {
    ...(options.warmup > 0 && { warmup: { connections, durationS: options.warmup, amount: amount(2 * sequentialRps, options.warmup) } }),
    load: (warmupRps) => ({ connections, durationS: options.duration, amount: amount(warmupRps ?? 2 * sequentialRps, options.duration) }),
    ...(options.latencyDuration > 0 && {
      latency: { connections: 1, durationS: options.latencyDuration, amount: Math.max(3, Math.round(sequentialRps * options.latencyDuration)) },
    }),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function runScenario(
  url: string,
  pid: number,
  scenario: Scenario,
  driver: DriverName,
  sampler: RssSampler,
  context: DriverContext,
): Promise<ScenarioResult> {
  const { options, log } = context;
  sampler.resetWindow();
  const result: ScenarioResult = {
    scenario: scenario.name,
    label: scenario.label,
    driver,
    method: scenario.request.method,
    path: '',
    bytes: 0,
    wireBytes: 0,
    probeStatus: 0,
    problems: [],
    rssPeakMb: 0,
  };

  const probes = [];
  for (let i = 0; i < (scenario.rotating ? ROTATING_PROBES : 1); i++) probes.push(await probe(url, scenario.request));
  result.path = probes[0].path;
  result.probeStatus = probes[0].status;
  result.bytes = median(probes.map((p) => p.bytes));
  result.wireBytes = median(probes.map((p) => p.wireBytes));
  if (scenario.writes) result.probeCreated = probes.filter((p) => p.status === 201).length;
  const failed = probes.find((p) => p.status < 200 || p.status >= 300);
  if (failed) {
    result.problems.push(`probe answered HTTP ${failed.status}: ${failed.body.slice(0, 200)}`);
    log(`${driver} ${scenario.name}: probe answered ${failed.status}, scenario skipped`);
    result.rssPeakMb = sampler.windowPeakMb();
    return result;
  }
  let warning: string | undefined;
  try {
    warning = scenario.inspect?.(JSON.parse(probes[0].body));
  } catch {
    warning = 'the probe answer is not JSON';
  }
  if (warning) result.problems.push(warning);

  const runs = scenario.writes ? writeRuns(options, median(probes.map((p) => p.ms))) : readRuns(options);
  // Each run starts on an idle server (see waitUntilIdle).
  const run = async (settings: LoadSettings) => {
    const stats = await runLoad(url, scenario.request, settings);
    await waitUntilIdle(url, pid);
    return stats;
  };
  if (scenario.rotation) {
    result.firstPass = await run({ connections: options.connections, durationS: 0, amount: scenario.rotation });
    const { rps, latency } = result.firstPass;
    log(`${driver} ${scenario.name}: first pass over ${scenario.rotation} ids: ${Math.round(rps)} req/s${latency ? `, p99 ${latency.p99} ms` : ''}`);
  }
  if (runs.warmup) result.warmup = await run(runs.warmup);
  result.load = await run(runs.load(result.warmup?.rps));
  if (runs.latency) result.latency = await run(runs.latency);
  result.rssPeakMb = sampler.windowPeakMb();

  const errors = [result.firstPass, result.warmup, result.load, result.latency].reduce((sum, run) => sum + (run ? run.non2xx + run.errors : 0), 0);
  if (errors > 0) result.problems.push(`${errors} non-2xx or failed requests: ${describeStatuses([result.firstPass, result.warmup, result.load, result.latency])}`);
  const ms = (stats: LoadStats | undefined, p: 'p50' | 'p99') => (stats?.latency ? `${stats.latency[p]} ms` : '-');
  log(
    `${driver} ${scenario.name}: ${Math.round(result.load.rps)} req/s, p50 ${ms(result.load, 'p50')}, p99 ${ms(result.load, 'p99')}` +
      (result.latency ? `; c=1 p50 ${ms(result.latency, 'p50')}` : '') +
      `; ${result.bytes} B${result.wireBytes !== result.bytes ? ` (${result.wireBytes} B sent)` : ''}; RSS ${Math.round(result.rssPeakMb)} MB${errors ? `; ${errors} errors` : ''}`,
  );
  return result;
}

/** The ceiling request of a scenario: same method, headers and (one sample) body; the typical size. */
function ceilingJobOf(scenario: Scenario, bytes: number): CeilingJob {
  const { method, headers, body } = scenario.request;
  return { method, bytes, headers, ...(body !== undefined && { body: typeof body === 'string' ? body : body() }) };
}

function describeStatuses(runs: (LoadStats | undefined)[]): string {
  const totals = new Map<string, number>();
  for (const run of runs) {
    if (!run) continue;
    for (const [code, count] of Object.entries(run.statusCodes)) if (!code.startsWith('2')) totals.set(code, (totals.get(code) ?? 0) + count);
    if (run.errors) totals.set('connection errors/timeouts', (totals.get('connection errors/timeouts') ?? 0) + run.errors);
  }
  return [...totals].map(([code, count]) => `${code} x${count}`).join(', ');
}
