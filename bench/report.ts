import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { LoadStats } from './load.js';
import type { BenchOptions, DriverName } from './options.js';

/*
 * The outcome of a run: one table on stdout, the issue's targets as PASS/FAIL lines, and the whole
 * record (machine, options, every figure) as JSON in bench/results/.
 */
export interface ScenarioResult {
  scenario: string;
  label: string;
  driver: DriverName;
  method: 'GET' | 'POST';
  /** Path of the first probe (for rotating ids: one of them). */
  path: string;
  /** Body size of the typical response (median of the probes for rotating ids), decoded. */
  bytes: number;
  /** The same as sent: smaller for a compressed answer; the ceiling is taken at this size. */
  wireBytes: number;
  probeStatus: number;
  /** Why the scenario did not run or what looks wrong with its answers. */
  problems: string[];
  /** One pass over the rotation's ids before the warm-up (scenarios with a `rotation`): what first visits cost. */
  firstPass?: LoadStats;
  warmup?: LoadStats;
  load?: LoadStats;
  /** The latency pass at concurrency 1. */
  latency?: LoadStats;
  /** 201s answered to the probes (write scenarios only). */
  probeCreated?: number;
  rssPeakMb: number;
  ceiling?: LoadStats;
  /** load.rps / ceiling.rps. */
  ratio?: number;
}

export interface WriteCheck {
  created201: number;
  clients: number;
  opportunities: number;
  offers: number;
}

export interface DriverResult {
  driver: DriverName;
  target: string;
  databaseVersion: string;
  catalogue: { projects: number; units: number; facilities: number; visibleProjects: number; visibleUnits: number };
  /** Seconds spent loading the catalogue; absent when an existing one was reused. */
  loadSeconds?: number;
  serverStartSeconds: number;
  rssPeakMb: number;
  /** Rows the application scenario added, against the 201s it received. */
  writes?: WriteCheck;
  scenarios: ScenarioResult[];
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  freeMemoryGb: number;
  loadAverage: number[];
  node: string;
  platform: string;
}

export interface Check {
  driver: DriverName;
  name: string;
  expected: string;
  actual: string;
  /** Undefined: not measured in this run. */
  pass: boolean | undefined;
}

export function machineInfo(): MachineInfo {
  const cpu = cpus();
  const gb = (bytes: number) => Math.round((bytes / 1024 ** 3) * 10) / 10;
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGb: gb(totalmem()),
    freeMemoryGb: gb(freemem()),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
    node: process.version,
    platform: `${process.platform} ${release()}`,
  };
}

export function gitCommit(cwd: string): { commit: string; short: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim() !== '';
    return { commit, short: commit.slice(0, 7), dirty };
  } catch {
    return { commit: 'unknown', short: 'nogit', dirty: false };
  }
}

// ---------------------------------------------------------------------------------------------------
// Targets of the Performance issue
// ---------------------------------------------------------------------------------------------------

const find = (driver: DriverResult, name: string) => driver.scenarios.find((s) => s.scenario === name && s.load);
const errorsOf = (s: ScenarioResult) =>
  [s.firstPass, s.warmup, s.load, s.latency].reduce((sum, run) => sum + (run ? run.non2xx + run.errors : 0), 0) + (s.probeStatus >= 200 && s.probeStatus < 300 ? 0 : 1);
const rps = (value: number) => `${Math.round(value)} req/s`;
const ms = (value: number) => `${value} ms`;
/** p99 of the loaded run; Infinity (a failure) when no 2xx response arrived at all. */
const p99 = (s: ScenarioResult) => s.load!.latency?.p99 ?? Infinity;

export function evaluateTargets(drivers: DriverResult[]): Check[] {
  const checks: Check[] = [];
  for (const result of drivers) {
    const { driver } = result;
    const check = (name: string, expected: string, scenario: ScenarioResult | undefined, measure: (s: ScenarioResult) => { actual: string; pass: boolean }) => {
      if (!scenario) return checks.push({ driver, name, expected, actual: 'not run', pass: undefined });
      const { actual, pass } = measure(scenario);
      checks.push({ driver, name, expected, actual, pass });
    };
    const typical = find(result, 'projects-typical');
    const units = find(result, 'unit-detail');

    if (driver === 'postgres') {
      check('/projects typical req/s', '>= 600 req/s', typical, (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 600 }));
      check('/projects typical p99', '<= 50 ms', typical, (s) => ({ actual: ms(p99(s)), pass: p99(s) <= 50 }));
      check('/projects worst case p99', '<= 150 ms', find(result, 'projects-worst'), (s) => ({ actual: ms(p99(s)), pass: p99(s) <= 150 }));
      const firstPage = find(result, 'projects');
      check('deep paging latency', '<= 2x page 1 (p50 at c=1)', firstPage && find(result, 'projects-deep'), (deep) => {
        // Latency without queueing (c=1) when measured; otherwise the loaded p50.
        const pick = (s: ScenarioResult) => (s.latency ?? s.load)!.latency?.p50 ?? Infinity;
        const deepMs = pick(deep);
        const firstMs = pick(firstPage!);
        return { actual: `${deepMs} ms vs ${firstMs} ms (x${(deepMs / firstMs).toFixed(2)})`, pass: deepMs <= 2 * firstMs };
      });
      check('/units/{id} req/s', '>= 4000 req/s', units, (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 4000 }));
      check('/units/{id} p99', '<= 15 ms', units, (s) => ({ actual: ms(p99(s)), pass: p99(s) <= 15 }));
      check('/projects/{id} req/s', '>= 1500 req/s', find(result, 'project-detail'), (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 1500 }));
      check('applications req/s', '>= 300 req/s', find(result, 'applications'), (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 300 }));
    } else {
      check('/projects typical req/s', '>= 250 req/s', typical, (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 250 }));
      check('/units/{id} req/s', '>= 1000 req/s', units, (s) => ({ actual: rps(s.load!.rps), pass: s.load!.rps >= 1000 }));
    }

    const applications = find(result, 'applications');
    check('applications errors', '0', applications, (s) => ({ actual: String(errorsOf(s)), pass: errorsOf(s) === 0 }));
    if (applications && result.writes) {
      const w = result.writes;
      checks.push({
        driver,
        name: 'applications: rows created = 201s',
        expected: `${w.created201} clients, opportunities, offers`,
        actual: `${w.clients} clients, ${w.opportunities} opportunities, ${w.offers} offers`,
        pass: w.clients === w.created201 && w.opportunities === w.created201 && w.offers === w.created201,
      });
    }
    checks.push({ driver, name: 'server max RSS', expected: '< 400 MB', actual: `${Math.round(result.rssPeakMb)} MB`, pass: result.rssPeakMb < 400 });
    checks.push(...searchTargets(result));
  }
  checks.push(...driverParity(drivers));
  return checks;
}

// Targets of the in-memory search issue (both drivers).
const SEARCH_SCENARIOS = ['projects', 'projects-typical', 'projects-typical-match', 'projects-geo', 'projects-unit-tags', 'projects-worst', 'projects-deep', 'projects-sort', 'projects-facets', 'projects-typical-usd'];
/** The heaviest searches again, each request one the result cache has not seen (the full pass). */
const UNCACHED_SCENARIOS = ['projects-unit-tags-uncached', 'projects-worst-uncached', 'projects-facets-uncached'];

function searchTargets(result: DriverResult): Check[] {
  const { driver } = result;
  const checks: Check[] = [];
  const push = pushTo(checks, driver);
  const searches = SEARCH_SCENARIOS.map((name) => find(result, name)).filter((s): s is ScenarioResult => s !== undefined);
  const slowest = searches.reduce<ScenarioResult | undefined>((low, s) => (!low || s.load!.rps < low.load!.rps ? s : low), undefined);
  push('every /projects scenario req/s', '>= 1000 req/s', slowest && { actual: `${rps(slowest.load!.rps)} (${slowest.scenario})`, pass: slowest.load!.rps >= 1000 });
  const worstP99 = searches.reduce<ScenarioResult | undefined>((high, s) => (!high || p99(s) > p99(high) ? s : high), undefined);
  push('every /projects scenario p99', '<= 30 ms', worstP99 && { actual: `${ms(p99(worstP99))} (${worstP99.scenario})`, pass: p99(worstP99) <= 30 });
  const c1 = (s: ScenarioResult) => s.latency?.latency?.p50 ?? Infinity;
  const worstC1 = searches.reduce<ScenarioResult | undefined>((high, s) => (!high || c1(s) > c1(high) ? s : high), undefined);
  push('every /projects scenario c=1 p50', '<= 1 ms', worstC1 && { actual: `${ms(c1(worstC1))} (${worstC1.scenario})`, pass: c1(worstC1) <= 1 });
  const typical = find(result, 'projects-typical');
  push('/projects typical req/s (search)', '>= 2500 req/s', typical && { actual: rps(typical.load!.rps), pass: typical.load!.rps >= 2500 });
  const whoami = find(result, 'whoami');
  const share = typical && whoami ? typical.load!.rps / whoami.load!.rps : undefined;
  push('/projects typical / whoIAm', '>= 15 %', share === undefined ? undefined : { actual: `${(share * 100).toFixed(1)} %`, pass: share >= 0.15 });
  // The same targets for searches the result cache has not seen (each request a new search).
  const uncached = UNCACHED_SCENARIOS.map((name) => find(result, name)).filter((s): s is ScenarioResult => s !== undefined);
  const slowestUncached = uncached.reduce<ScenarioResult | undefined>((low, s) => (!low || s.load!.rps < low.load!.rps ? s : low), undefined);
  push('never-cached searches req/s', '>= 1000 req/s', slowestUncached && {
    actual: `${rps(slowestUncached.load!.rps)} (${slowestUncached.scenario})`,
    pass: slowestUncached.load!.rps >= 1000,
  });
  const worstUncached = uncached.reduce<ScenarioResult | undefined>((high, s) => (!high || p99(s) > p99(high) ? s : high), undefined);
  push('never-cached searches p99', '<= 30 ms', worstUncached && { actual: `${ms(p99(worstUncached))} (${worstUncached.scenario})`, pass: p99(worstUncached) <= 30 });
  const mcp = find(result, 'mcp-search-typical');
  const mcpShare = mcp && typical ? mcp.load!.rps / typical.load!.rps : undefined;
  push('MCP search_projects / GET /projects typical', '>= 50 %', mcpShare === undefined ? undefined : { actual: `${(mcpShare * 100).toFixed(1)} %`, pass: mcpShare >= 0.5 });
  // Issue 22: a currency=USD search within 10 % of the same search without it.
  const usd = find(result, 'projects-typical-usd');
  const usdShare = usd && typical ? usd.load!.rps / typical.load!.rps : undefined;
  push('/projects typical currency=USD / without', '>= 90 %', usdShare === undefined ? undefined : { actual: `${(usdShare * 100).toFixed(1)} %`, pass: usdShare >= 0.9 });
  // Issue 24: match=true on the typical search within 10 % of the same search without it.
  const matched = find(result, 'projects-typical-match');
  const matchShare = matched && typical ? matched.load!.rps / typical.load!.rps : undefined;
  push('/projects typical match=true / without', '>= 90 %', matchShare === undefined ? undefined : { actual: `${(matchShare * 100).toFixed(1)} %`, pass: matchShare >= 0.9 });
  const list = find(result, 'projects-list');
  push('/projects/list req/s', '>= 1000 req/s', list && { actual: rps(list.load!.rps), pass: list.load!.rps >= 1000 });
  checks.push(...mapTargets(result));
  checks.push(...detailTargets(result));
  return checks;
}

/** A check of `driver` pushed onto `checks`; 'not run' when nothing was measured. */
const pushTo = (checks: Check[], driver: DriverName) => (name: string, expected: string, measured: { actual: string; pass: boolean } | undefined) =>
  checks.push({ driver, name, expected, actual: measured?.actual ?? 'not run', pass: measured?.pass });

/** Issue 25: details at memory speed, a lean page, compressed once, and the memory it may take. */
function detailTargets(result: DriverResult): Check[] {
  const { driver } = result;
  const checks: Check[] = [];
  const push = pushTo(checks, driver);
  const ratio = (s: ScenarioResult) => (s.ratio === undefined ? 'no ceiling' : `${(s.ratio * 100).toFixed(1)} % of the ceiling`);
  const units = find(result, 'unit-detail');
  push('/units/{id} req/s (issue 25)', '>= 15000 req/s', units && { actual: rps(units.load!.rps), pass: units.load!.rps >= 15_000 });
  push('/units/{id} / ceiling', '>= 25 %', units && { actual: ratio(units), pass: (units.ratio ?? 0) >= 0.25 });
  const full = find(result, 'project-detail');
  push('/projects/{id} full / ceiling', '>= 50 %', full && { actual: ratio(full), pass: (full.ratio ?? 0) >= 0.5 });
  const br = find(result, 'project-detail-br');
  push('/projects/{id} Accept-Encoding: br req/s', '>= 1500 req/s', br && { actual: rps(br.load!.rps), pass: br.load!.rps >= 1500 });
  const lean = find(result, 'project-detail-lean');
  push('lean project page req/s, size', '>= 8000 req/s, <= 30 KB', lean && {
    actual: `${rps(lean.load!.rps)}, ${lean.bytes} B`,
    pass: lean.load!.rps >= 8000 && lean.bytes <= 30 * 1024,
  });
  const rssLimit = driver === 'postgres' ? 350 : 500;
  checks.push({ driver, name: 'server max RSS (issue 25)', expected: `<= ${rssLimit} MB`, actual: `${Math.round(result.rssPeakMb)} MB`, pass: result.rssPeakMb <= rssLimit });
  return checks;
}

/** Issue 24: clusters of all of Dubai at zoom 10, and viewport and polygon searches never cached. */
function mapTargets(result: DriverResult): Check[] {
  const { driver } = result;
  const checks: Check[] = [];
  const push = pushTo(checks, driver);
  const atLeast = (scenario: ScenarioResult | undefined, minimum: number) =>
    scenario && { actual: `${rps(scenario.load!.rps)}, p99 ${ms(p99(scenario))}`, pass: scenario.load!.rps >= minimum && p99(scenario) <= 30 };
  const clusters = find(result, 'clusters-dubai');
  push('clusters zoom 10 (cached) req/s, p99', '>= 5000 req/s, <= 30 ms', atLeast(clusters, 5000));
  push('clusters zoom 10 (never cached) req/s, p99', '>= 2000 req/s, <= 30 ms', atLeast(find(result, 'clusters-dubai-uncached'), 2000));
  push('clusters answer size', '<= 20 KB', clusters && { actual: `${clusters.bytes} B`, pass: clusters.bytes <= 20_000 });
  push('bbox search (never cached) req/s, p99', '>= 2000 req/s, <= 30 ms', atLeast(find(result, 'projects-bbox-uncached'), 2000));
  push('50-vertex polygon search (never cached) req/s, p99', '>= 2000 req/s, <= 30 ms', atLeast(find(result, 'projects-polygon-uncached'), 2000));
  return checks;
}

/** PGlite within 20 % of PostgreSQL on every search scenario (the database is off the search path). */
function driverParity(drivers: DriverResult[]): Check[] {
  const postgres = drivers.find((d) => d.driver === 'postgres');
  const pglite = drivers.find((d) => d.driver === 'pglite');
  if (!postgres || !pglite) return [];
  // The scenario where PGlite is furthest behind PostgreSQL.
  const worstOf = (names: readonly string[]) => {
    let worst: { name: string; ratio: number } | undefined;
    for (const name of names) {
      const [a, b] = [find(postgres, name), find(pglite, name)];
      if (!a || !b) continue;
      const ratio = b.load!.rps / a.load!.rps;
      if (!worst || ratio < worst.ratio) worst = { name, ratio };
    }
    return worst;
  };
  const checks: Check[] = [];
  const parity = (label: string, worst: { name: string; ratio: number } | undefined) => {
    if (worst) checks.push({ driver: 'pglite', name: label, expected: '>= 80 %', actual: `${(worst.ratio * 100).toFixed(0)} % (${worst.name})`, pass: worst.ratio >= 0.8 });
  };
  parity('search req/s vs PostgreSQL', worstOf([...SEARCH_SCENARIOS, ...UNCACHED_SCENARIOS, 'projects-list']));
  // Issue 25: every detail scenario too.
  parity('detail req/s vs PostgreSQL', worstOf(DETAIL_SCENARIOS));
  return checks;
}

const DETAIL_SCENARIOS = ['project-detail', 'project-detail-br', 'project-detail-lean', 'project-contacts', 'unit-detail'];

// ---------------------------------------------------------------------------------------------------
// Text output
// ---------------------------------------------------------------------------------------------------

function table(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '-' : value.toFixed(digits));

export function resultsTable(drivers: DriverResult[], connections: number): string {
  const header = ['scenario', 'driver', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ceiling req/s', 'ratio', 'c=1 p50', 'c=1 p99', 'bytes'];
  const rows: string[][] = [];
  const order = drivers[0]?.scenarios.map((s) => s.scenario) ?? [];
  for (const name of order) {
    for (const driver of drivers) {
      const s = driver.scenarios.find((candidate) => candidate.scenario === name);
      if (!s) continue;
      rows.push([
        s.scenario,
        s.driver,
        fixed(s.load?.rps),
        fixed(s.load?.latency?.p50, 1),
        fixed(s.load?.latency?.p99, 1),
        String(errorsOf(s)),
        fixed(s.ceiling?.rps),
        s.ratio === undefined ? '-' : s.ratio.toFixed(3),
        fixed(s.latency?.latency?.p50, 2),
        fixed(s.latency?.latency?.p99, 2),
        String(s.bytes),
      ]);
    }
  }
  return `Results (req/s, p50, p99 at c=${connections}; latencies in ms over 2xx responses; ratio = req/s / ceiling req/s)\n${table(header, rows, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]))}`;
}

export function checksText(checks: Check[], indicative: string | undefined): string {
  const mark = (pass: boolean | undefined) => (pass === undefined ? 'SKIP' : pass ? 'PASS' : 'FAIL');
  const rows = checks.map((c) => [mark(c.pass), c.driver, c.name, c.expected, c.actual]);
  const failed = checks.filter((c) => c.pass === false).length;
  const passed = checks.filter((c) => c.pass === true).length;
  return [
    `Targets${indicative ? ` (indicative only: ${indicative})` : ''}`,
    table(['', 'driver', 'target', 'expected', 'measured'], rows, new Set()),
    `${passed} passed, ${failed} failed`,
  ].join('\n');
}

export function problemsText(drivers: DriverResult[]): string | undefined {
  const lines = drivers.flatMap((d) => d.scenarios.flatMap((s) => s.problems.map((problem) => `  ${s.driver} ${s.scenario}: ${problem}`)));
  return lines.length ? `Problems:\n${lines.join('\n')}` : undefined;
}

// ---------------------------------------------------------------------------------------------------
// JSON record
// ---------------------------------------------------------------------------------------------------

export interface BenchRecord {
  date: string;
  git: { commit: string; dirty: boolean };
  machine: MachineInfo;
  options: Omit<BenchOptions, 'postgresUrl'>;
  /** Settings inherited by the service that change its answers. */
  serverEnv: Record<string, string>;
  elapsedSeconds: number;
  drivers: DriverResult[];
  checks: Check[];
}

/** bench/results/<YYYY-MM-DD-HHMMSS>-<commit>.json (UTC; the time keeps runs of one day apart). */
export async function writeRecord(directory: string, record: BenchRecord, shortCommit: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const stamp = record.date.replace(/\.\d+Z$/, '').replace('T', '-').replace(/:/g, '');
  const file = join(directory, `${stamp}-${shortCommit}${record.git.dirty ? '-dirty' : ''}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}
