import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LINK_RADIUS_M } from './catalogue.js';
import { ceilingKey, runCeilings, type CeilingJob } from './ceiling.js';
import { benchDriver } from './driver.js';
import { BenchError, OptionsError, parseOptions, USAGE, type BenchOptions, type DriverName } from './options.js';
import {
  checksText,
  evaluateTargets,
  gitCommit,
  machineInfo,
  problemsText,
  resultsTable,
  writeRecord,
  type DriverResult,
} from './report.js';
import { SCENARIO_NAMES } from './scenarios.js';
import { buildService } from './server-process.js';

/*
 * `npm run bench`: every driver in turn (catalogue, keys, service, scenarios), then the bare-Fastify
 * ceiling for each response size, then the table, the targets and the JSON record. Progress goes to
 * stderr; the report to stdout.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FULL_SIZE = 5000;
const FULL_DURATION_S = 10;

const inheritedServerEnv = () => ({
  ...Object.fromEntries(['AMENITIEST_RADIUS', 'STATIC_BASE_URL'].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : []))),
  FACILITY_LINK_RADIUS_M: LINK_RADIUS_M,
});

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const parsed = parseOptions(process.argv.slice(2), process.env, join(ROOT, 'bench', '.data', 'pglite'));
  if (parsed === 'help') {
    console.log(USAGE);
    return;
  }
  const options: BenchOptions = parsed;
  const unknown = options.scenarios?.filter((name) => !(SCENARIO_NAMES as readonly string[]).includes(name)) ?? [];
  if (unknown.length) throw new OptionsError(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIO_NAMES.join(', ')}`);

  const date = new Date().toISOString();
  const runId = `${date.slice(0, 10).replace(/-/g, '')}${randomBytes(4).toString('hex')}`;
  const machine = machineInfo();
  const git = gitCommit(ROOT);
  log(`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGb} GB, node ${machine.node}, load average ${machine.loadAverage.join(' ')}`);
  log(
    `commit ${git.short}${git.dirty ? ' (dirty)' : ''}; ${options.projects} projects, ${options.duration} s per scenario at c=${options.connections} ` +
      `after ${options.warmup} s warm-up, ${options.latencyDuration} s at c=1; drivers ${options.drivers.join(', ')}`,
  );
  const scenarioCount = options.scenarios?.length ?? SCENARIO_NAMES.length;
  const perScenarioS = options.warmup + options.duration + options.latencyDuration + 1;
  const estimateS = scenarioCount * (options.drivers.length * perScenarioS + (options.ceiling ? options.warmup + options.duration : 0));
  log(`about ${Math.ceil(estimateS / 60)} min of load, plus loading the catalogue where needed and starting the servers`);
  if (machine.loadAverage[0] > machine.cores / 2) log(`warning: the machine is busy (load average ${machine.loadAverage[0]}): figures will be low`);

  log(`built the service (npm run build) in ${buildService(ROOT).toFixed(1)} s`);

  const drivers: DriverResult[] = [];
  const ceilingJobs: { driver: DriverName; scenario: string; job: CeilingJob }[] = [];
  for (const driver of options.drivers) {
    const run = await benchDriver(driver, { options, root: ROOT, runId, log });
    drivers.push(run.result);
    ceilingJobs.push(...[...run.ceilingJobs].map(([scenario, job]) => ({ driver, scenario, job })));
  }

  // Both drivers answer the same catalogue: sizes a few bytes apart (ids, emails) share one ceiling run.
  const firstJob = new Map<string, CeilingJob>();
  for (const entry of ceilingJobs) {
    const first = firstJob.get(entry.scenario);
    if (!first) firstJob.set(entry.scenario, entry.job);
    else if (first.method === entry.job.method && Math.abs(first.bytes - entry.job.bytes) <= first.bytes * 0.05) entry.job = first;
  }

  if (options.ceiling && ceilingJobs.length) {
    log('bare Fastify ceiling…');
    const ceilings = await runCeilings(
      ceilingJobs.map((entry) => entry.job),
      { connections: options.connections, durationS: options.duration, warmupS: options.warmup },
      ROOT,
      log,
    );
    for (const { driver, scenario, job } of ceilingJobs) {
      const result = drivers.find((d) => d.driver === driver)!.scenarios.find((s) => s.scenario === scenario)!;
      result.ceiling = ceilings.get(ceilingKey(job));
      if (result.ceiling && result.load && result.ceiling.rps > 0) result.ratio = result.load.rps / result.ceiling.rps;
    }
  }

  const checks = evaluateTargets(drivers);
  const shortRun = [
    options.projects < FULL_SIZE && `catalogue of ${options.projects} projects, not ${FULL_SIZE}`,
    options.duration < FULL_DURATION_S && `${options.duration} s per scenario`,
    options.connections !== 32 && `c=${options.connections}`,
  ].filter(Boolean);
  const elapsedSeconds = Math.round((Date.now() - started) / 100) / 10;

  // The URL may hold a password; each driver's record has it redacted.
  const { postgresUrl: _url, ...recordedOptions } = options;
  const record = {
    date,
    git: { commit: git.commit, dirty: git.dirty },
    machine,
    options: recordedOptions,
    serverEnv: inheritedServerEnv(),
    elapsedSeconds,
    drivers,
    checks,
  };
  const file = await writeRecord(join(ROOT, 'bench', 'results'), record, git.short);

  console.log('');
  console.log(resultsTable(drivers, options.connections));
  console.log('');
  for (const d of drivers) {
    console.log(
      `${d.driver}: ${d.target} (${d.databaseVersion.split(' on ')[0]}); ${d.catalogue.projects} projects, ${d.catalogue.units} units, ` +
        `${d.catalogue.facilities} facilities; ${d.loadSeconds === undefined ? 'catalogue reused' : `loaded in ${d.loadSeconds.toFixed(1)} s`}; ` +
        `max RSS ${Math.round(d.rssPeakMb)} MB`,
    );
  }
  const problems = problemsText(drivers);
  if (problems) console.log(`\n${problems}`);
  console.log('');
  console.log(checksText(checks, shortRun.length ? shortRun.join(', ') : undefined));
  console.log(`\nrecord: ${file}\nelapsed: ${elapsedSeconds} s`);
}

main().catch((error: unknown) => {
  if (error instanceof OptionsError) {
    console.error(`error: ${error.message}\n\n${USAGE}`);
  } else if (error instanceof BenchError) {
    console.error(`error: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
