import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrateToLatest } from '../src/db/migrate.js';
import { openTarget, targetEnv } from './catalogue.js';
import { ensureCatalogue, targetFor } from './driver.js';
import { loadFixtures, revokeBenchKeys, type Fixtures } from './fixtures.js';
import { probe, runLoad } from './load.js';
import { median } from './median.js';
import { cpuSeconds, inRoundOrder } from './process-cpu.js';
import { DEFAULT_POSTGRES_URL, type BenchOptions, type DriverName } from './options.js';
import { gitCommit, machineInfo } from './report.js';
import { buildScenarios, SCENARIO_NAMES, type Scenario } from './scenarios.js';
import { buildService, serviceArgs, startChildServer, waitForHealth, waitUntilIdle, type ChildServer } from './server-process.js';

/*
 * `npm run bench:ab -- --compare mcp|metrics`: two variants measured in alternating rounds of the same
 * run (A B, then B A, ...), so that the load other processes put on the shared machine weighs on both
 * alike; the figure that counts is the ratio B/A per round (and its median), not the req/s.
 *
 *   mcp      one server; A = projects-typical (GET /projects), B = mcp-search-typical (the same search
 *            as an MCP tools/call). Target (issue 27): B/A >= 50 %.
 *   metrics  two servers on the same database, at the default log level (info): A without the metrics
 *            listener, B with METRICS_PORT (scraped every second, pessimistic); scenarios whoami and
 *            projects-typical. Target (issue 28): B/A >= 97 %. Also the bytes of log per request at info
 *            (each server's stdout over the responses it gave), target <= 300.
 *   scenarios one server; A = --a, B = --b (any two names of bench/scenarios.ts), e.g. projects-typical
 *            against projects-typical-usd (issue 22: >= 90 %) or projects-typical-match (issue 24:
 *            >= 90 %), on L with --projects 5000 --foreign-currencies 25.
 *   drivers  two servers, A on PostgreSQL and B on PGlite, each on its own copy of the catalogue; the
 *            detail scenarios (DRIVER_SCENARIOS), each first asked over its rotation. Target (issue 25):
 *            B/A >= 80 % on each. `npm run bench` runs the drivers one after the other, minutes apart,
 *            where other work on a shared machine moves the figures by more than that.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => process.stderr.write(`[bench:ab] ${line}\n`);

const USAGE =
  'Usage: npm run bench:ab -- --compare mcp|metrics|scenarios|drivers [--a SCENARIO --b SCENARIO (scenarios)] [--projects N (500)] ' +
  '[--foreign-currencies P (0)] [--rounds R (5)] [--duration S (5)] [--connections C (32)] [--driver postgres|pglite (not drivers)]';

/** What `--compare drivers` runs on both: the detail scenarios of issue 25. */
const DRIVER_SCENARIOS = ['project-detail', 'project-detail-br', 'project-detail-lean', 'project-contacts', 'unit-detail'] as const;

interface Variant {
  name: string;
  server: RunningChild;
  scenario: Scenario;
}

interface RunningChild extends ChildServer {
  logBytes: () => number;
  metricsUrl?: string;
}

async function startService(driver: DriverName, options: BenchOptions, extra: Record<string, string>, label: string): Promise<RunningChild> {
  let bytes = 0;
  let metricsUrl: string | undefined;
  const server = await startChildServer({
    args: serviceArgs(['serve']),
    env: targetEnv(targetFor(driver, options), { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extra }),
    cwd: ROOT,
    label,
    echo: (line) => !line.startsWith('{') || !line.includes('"level":30'),
    onLine: (line) => {
      // stdout and stderr both come here: JSON lines are the request log, the rest the banner.
      if (line.startsWith('{')) bytes += Buffer.byteLength(line) + 1;
      metricsUrl ??= /metrics: (http:\/\/[^\s)]+)/.exec(line)?.[1];
    },
  });
  await waitForHealth(server.url);
  return { ...server, logBytes: () => bytes, metricsUrl };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      compare: { type: 'string' },
      a: { type: 'string' },
      b: { type: 'string' },
      projects: { type: 'string' },
      'foreign-currencies': { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      driver: { type: 'string' },
    },
  });
  const compare = values.compare;
  if (compare !== 'mcp' && compare !== 'metrics' && compare !== 'scenarios' && compare !== 'drivers') throw new Error(USAGE);
  const named = [values.a, values.b];
  if (compare === 'scenarios' && !named.every((name) => name !== undefined && (SCENARIO_NAMES as readonly string[]).includes(name))) {
    throw new Error(`${USAGE}\n--a and --b name scenarios of bench/scenarios.ts: ${SCENARIO_NAMES.join(', ')}`);
  }
  const driver = (values.driver ?? 'postgres') as DriverName;
  const drivers: DriverName[] = compare === 'drivers' ? ['postgres', 'pglite'] : [driver];
  const rounds = Number(values.rounds ?? 5);
  const durationS = Number(values.duration ?? 5);
  const connections = Number(values.connections ?? 32);
  const options: BenchOptions = {
    projects: Number(values.projects ?? 500),
    foreignCurrencies: Number(values['foreign-currencies'] ?? 0),
    duration: durationS,
    warmup: 1,
    latencyDuration: 0,
    connections,
    drivers,
    scenarios: undefined,
    ceiling: false,
    reload: false,
    postgresUrl: process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL,
    pgliteDir: process.env.BENCH_PGLITE_DIR ?? join(ROOT, 'bench', '.data', 'pglite'),
  };
  const machine = machineInfo();
  const git = gitCommit(ROOT);
  log(`${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}, commit ${git.short}${git.dirty ? ' (dirty)' : ''}, load average ${machine.loadAverage.join(' ')}`);
  log(`built the service in ${buildService(ROOT).toFixed(1)} s`);
  const runId = `ab${randomBytes(4).toString('hex')}`;
  const servers: RunningChild[] = [];
  const pairs: [Variant, Variant][] = [];
  let scrapes = 0;
  let scraper: NodeJS.Timeout | undefined;
  // Each driver's catalogue has its own keys (and ids): its scenarios are built from its own fixtures.
  // Filled inside the try, so that the keys of a driver prepared before a failure are revoked too.
  const prepared = new Map<DriverName, { fixtures: Fixtures; scenarios: Map<string, Scenario> }>();
  try {
    for (const name of drivers) {
      await ensureCatalogue(targetFor(name, options), { options, root: ROOT, runId: 'ab', log });
      const database = await openTarget(targetFor(name, options));
      const fixtures = await (async () => {
        await migrateToLatest(database.db);
        return loadFixtures(database.db, runId);
      })().finally(() => database.close());
      prepared.set(name, { fixtures, scenarios: new Map(buildScenarios(fixtures, runId).map((scenario) => [scenario.name, scenario])) });
    }
    const scenarios = prepared.get(drivers[0])!.scenarios;
    if (compare === 'mcp' || compare === 'scenarios') {
      const server = await startService(driver, options, {}, 'server');
      servers.push(server);
      const [a, b] = compare === 'mcp' ? ['projects-typical', 'mcp-search-typical'] : [values.a!, values.b!];
      pairs.push([
        { name: compare === 'mcp' ? 'GET /projects' : a, server, scenario: scenarios.get(a)! },
        { name: compare === 'mcp' ? 'MCP search_projects' : b, server, scenario: scenarios.get(b)! },
      ]);
    } else if (compare === 'drivers') {
      const postgres = await startService('postgres', options, {}, 'postgres');
      servers.push(postgres);
      const pglite = await startService('pglite', options, {}, 'pglite');
      servers.push(pglite);
      for (const name of DRIVER_SCENARIOS) {
        pairs.push([
          { name: `${name} postgres`, server: postgres, scenario: prepared.get('postgres')!.scenarios.get(name)! },
          { name: `${name} pglite`, server: pglite, scenario: prepared.get('pglite')!.scenarios.get(name)! },
        ]);
      }
    } else {
      const off = await startService(driver, options, {}, 'metrics off');
      const on = await startService(driver, options, { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' }, 'metrics on');
      if (!on.metricsUrl) throw new Error('the server with METRICS_PORT printed no metrics URL');
      servers.push(off, on);
      for (const name of ['whoami', 'projects-typical'] as const) {
        pairs.push([
          { name: `${name} metrics off`, server: off, scenario: scenarios.get(name)! },
          { name: `${name} metrics on`, server: on, scenario: scenarios.get(name)! },
        ]);
      }
      const metricsUrl = on.metricsUrl;
      scraper = setInterval(() => {
        void fetch(metricsUrl).then((response) => response.text()).then(() => scrapes++, () => {});
      }, 1000);
    }
    const bytes = new Map<string, number>();
    for (const variant of pairs.flat()) {
      const answer = await probe(variant.server.url, variant.scenario.request);
      if (answer.status < 200 || answer.status > 299) throw new Error(`${variant.name}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
      bytes.set(variant.name, answer.bytes);
      // As `npm run bench` does: the rotation asked once before any round (a unit's first ask reads its
      // project's pages; a project's, its nearby facilities).
      if (compare === 'drivers' && variant.scenario.rotation) {
        const first = await runLoad(variant.server.url, variant.scenario.request, { connections, durationS: 0, amount: variant.scenario.rotation });
        const failed = first.non2xx + first.errors;
        log(`${variant.name}: first pass over ${variant.scenario.rotation} ids: ${Math.round(first.rps)} req/s${failed ? `; ${failed} non-2xx or failed ${JSON.stringify(first.statusCodes)}` : ''}`);
        await waitUntilIdle(variant.server.url, variant.server.pid);
      }
    }
    log(`servers ready; ${rounds} rounds of ${durationS} s per variant at c=${connections}, after 1 s warm-up each`);

    const rps = new Map<string, number[]>();
    // The server's own CPU per response: much less sensitive than req/s to what other processes take
    // from a shared machine (it still counts the in-flight requests a duration run abandons).
    const cpu = new Map<string, { seconds: number; responses: number }>();
    const logs = new Map<string, { bytes: number; responses: number }>();
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      loads.push(machineInfo().loadAverage[0]);
      for (const pair of pairs) {
        for (const variant of inRoundOrder(pair, round)) {
          await runLoad(variant.server.url, variant.scenario.request, { connections, durationS: 1 });
          await waitUntilIdle(variant.server.url, variant.server.pid);
          const bytesBefore = variant.server.logBytes();
          const cpuBefore = cpuSeconds(variant.server.pid);
          const stats = await runLoad(variant.server.url, variant.scenario.request, { connections, durationS });
          const cpuUsed = cpuSeconds(variant.server.pid) - cpuBefore;
          const spent = cpu.get(variant.name) ?? { seconds: 0, responses: 0 };
          cpu.set(variant.name, { seconds: spent.seconds + cpuUsed, responses: spent.responses + stats.responses });
          await waitUntilIdle(variant.server.url, variant.server.pid);
          const failed = stats.non2xx + stats.errors;
          if (failed) log(`warning: ${variant.name}: ${failed} non-2xx or failed responses ${JSON.stringify(stats.statusCodes)}`);
          rps.set(variant.name, [...(rps.get(variant.name) ?? []), stats.rps]);
          const logged = logs.get(variant.name) ?? { bytes: 0, responses: 0 };
          // waitUntilIdle's /health requests are logged too (a line each); counted with the responses.
          logs.set(variant.name, { bytes: logged.bytes + variant.server.logBytes() - bytesBefore, responses: logged.responses + stats.responses });
          log(`round ${round + 1} ${variant.name}: ${Math.round(stats.rps)} req/s`);
        }
      }
    }
    loads.push(machineInfo().loadAverage[0]);

    console.log(`\n${compare}: ${drivers.join(' / ')}, ${options.projects} projects, ${rounds} rounds x ${durationS} s, c=${connections}, commit ${git.short}${git.dirty ? ' (dirty)' : ''}, ${new Date().toISOString()}`);
    console.log(`load average (1 min) at each round: ${loads.map((value) => value.toFixed(2)).join(' ')}`);
    for (const [a, b] of pairs) {
      const ra = rps.get(a.name)!;
      const rb = rps.get(b.name)!;
      const ratios = ra.map((value, index) => rb[index] / value);
      console.log(`${a.name} (${bytes.get(a.name)} B): ${ra.map(Math.round).join(' ')} req/s (median ${Math.round(median(ra))})`);
      console.log(`${b.name} (${bytes.get(b.name)} B): ${rb.map(Math.round).join(' ')} req/s (median ${Math.round(median(rb))})`);
      const perResponse = (name: string) => (cpu.get(name)!.seconds / cpu.get(name)!.responses) * 1e6;
      console.log(
        `  server CPU per response: A ${perResponse(a.name).toFixed(0)} µs, B ${perResponse(b.name).toFixed(0)} µs; ` +
          `capacity ratio B/A ${((perResponse(a.name) / perResponse(b.name)) * 100).toFixed(1)} %`,
      );
      console.log(
        `  ratio B/A per round: ${ratios.map((ratio) => `${(ratio * 100).toFixed(1)} %`).join(' ')}; median ${(median(ratios) * 100).toFixed(1)} %, ` +
          `totals ${((rb.reduce((x, y) => x + y, 0) / ra.reduce((x, y) => x + y, 0)) * 100).toFixed(1)} %`,
      );
    }
    if (compare === 'metrics') {
      for (const [name, { bytes, responses }] of logs) console.log(`log at info, ${name}: ${(bytes / responses).toFixed(0)} bytes per request (${bytes} B / ${responses})`);
      console.log(`metrics scrapes during the run: ${scrapes}`);
    }
  } finally {
    if (scraper) clearInterval(scraper);
    for (const server of servers) await server.stop();
    // Each database's keys apart: one that cannot be reached leaves the other's revoked.
    for (const [name, { fixtures }] of prepared) {
      try {
        const database = await openTarget(targetFor(name, options));
        await revokeBenchKeys(database.db, fixtures.keys).finally(() => database.close());
      } catch (error) {
        log(`warning: the bench keys of ${name} were not revoked: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error && error.message === USAGE ? USAGE : error);
  process.exit(1);
});
