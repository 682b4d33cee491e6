/*
 * An import of the whole catalogue while the service is under search load (`npm run import-under-load`):
 * how long after the import's change signal the in-memory search snapshot is swapped, and whether any
 * request failed meanwhile. Target (in-memory search issue): swap within 5 s of the signal, zero failed
 * requests.
 *
 * Runs on the bench's catalogues (load them first with `npm run bench`): PostgreSQL `catalogue_bench`
 * (BENCH_DATABASE_URL) and/or PGlite bench/.data/pglite (BENCH_PGLITE_DIR). For each: the compiled
 * service is started; 32 connections ask for the typical search with a +1.1 % key; `catalogue
 * seed-demo --projects N` re-imports the same catalogue through the CLI (on PGlite it passes through
 * the running service's management socket, as an operator's would); `/health` is polled every 25 ms for
 * the signalled `catalogue_version` and the snapshot's `search.catalogue_version`. Load continues 10 s
 * past the swap.
 *
 *   npx tsx scripts/import-under-load.ts [--drivers postgres,pglite]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { countProjects, LINK_RADIUS_M, openTarget, seedCatalogue, targetEnv, type Target } from '../bench/catalogue.js';
import { createBenchKeys, revokeBenchKeys, type BenchKeys } from '../bench/fixtures.js';
import { runLoad, type LoadStats } from '../bench/load.js';
import { TYPICAL_QUERY } from '../bench/scenarios.js';
import { buildService, serviceArgs, startChildServer } from '../bench/server-process.js';

const { values } = parseArgs({ options: { drivers: { type: 'string', default: 'postgres,pglite' } } });
const cwd = process.cwd();
const targets: Record<string, Target> = {
  postgres: { driver: 'postgres', databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/catalogue_bench' },
  pglite: { driver: 'pglite', dataDir: resolve(process.env.BENCH_PGLITE_DIR ?? 'bench/.data/pglite') },
};

interface HealthSample {
  at: number;
  signalled: number;
  served: number;
}

async function withDatabase<T>(target: Target, work: (db: Awaited<ReturnType<typeof openTarget>>) => Promise<T>): Promise<T> {
  const database = await openTarget(target);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

async function measure(name: string, target: Target): Promise<void> {
  const runId = `import-under-load ${new Date().toISOString()}`;
  const { projects, keys } = await withDatabase(target, async (database) => ({
    projects: await countProjects(database),
    keys: await createBenchKeys(database.db, runId),
  }));
  if (projects === 0) throw new Error(`${name}: no catalogue; run npm run bench first`);
  const serverErrors: string[] = [];
  const server = await startChildServer({
    args: serviceArgs(['serve']),
    // The catalogue's link radius: on PGlite the import passes through this process and runs with its
    // configuration (at the default 10 km, L would get ~55 M links).
    env: targetEnv(target, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', FACILITY_LINK_RADIUS_M: LINK_RADIUS_M }),
    cwd,
    label: name,
    onLine: (line) => {
      if (/"level":(50|60)/.test(line)) serverErrors.push(line);
    },
  });
  try {
    const samples: HealthSample[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        try {
          const body = (await (await fetch(`${server.url}/health`)).json()) as { data: { catalogue_version: number; search: { catalogue_version: number } } };
          samples.push({ at: performance.now(), signalled: body.data.catalogue_version, served: body.data.search.catalogue_version });
        } catch {
          // a missed sample only coarsens the measure
        }
        await new Promise((done) => setTimeout(done, 25));
      }
    })();
    const first = await waitForSample(samples);
    const runs: LoadStats[] = [];
    let importDone = false;
    let swappedAt: number | undefined;
    const load = (async () => {
      // 5-second runs until 10 s past the swap (an import's length is not known in advance).
      while (!importDone || swappedAt === undefined || performance.now() - swappedAt < 10_000) {
        runs.push(
          await runLoad(server.url, { method: 'GET', path: `/projects?${TYPICAL_QUERY}`, headers: { 'x-api-key': keys.markup.secret } }, { connections: 32, durationS: 5 }),
        );
        swappedAt ??= swapOf(samples, first)?.swappedAt;
      }
    })();
    await new Promise((done) => setTimeout(done, 5_000));
    const importStarted = performance.now();
    try {
      await seedCatalogue(target, projects, cwd);
    } catch (error) {
      // The load loop must end for the process to.
      swappedAt ??= performance.now() - 10_000;
      throw error;
    } finally {
      importDone = true;
    }
    const importS = (performance.now() - importStarted) / 1000;
    await load;
    polling = false;
    await poller;

    const swap = swapOf(samples, first);
    const responses = runs.reduce((sum, run) => sum + run.responses, 0);
    const failed = runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
    const worstP99 = Math.max(...runs.map((run) => run.latency?.p99 ?? 0));
    const worstMax = Math.max(...runs.map((run) => run.latency?.max ?? 0));
    console.log(
      `${name}: import ${importS.toFixed(1)} s under load; ` +
        (swap
          ? `catalogue version ${first.signalled} -> ${swap.version}: signal seen at +${((swap.signalledAt - importStarted) / 1000).toFixed(1)} s, ` +
            `snapshot swapped ${(swap.swappedAt - swap.signalledAt).toFixed(0)} ms after the signal (health polled every 25 ms); `
          : 'no signal seen; ') +
        `${responses} responses in ${runs.length} runs of 5 s (${(responses / (runs.length * 5)).toFixed(0)} req/s), ${failed} failed ` +
        `(non-2xx, errors, timeouts); worst run p99 ${worstP99} ms, max ${worstMax} ms; server error lines ${serverErrors.length}`,
    );
  } finally {
    await server.stop();
    await withDatabase(target, (database) => revokeBenchKeys(database.db, keys as BenchKeys));
  }
}

async function waitForSample(samples: HealthSample[]): Promise<HealthSample> {
  while (samples.length === 0) await new Promise((done) => setTimeout(done, 25));
  return samples[0];
}

/** The first sample that showed a newer signalled version, and the first whose snapshot had caught up with the last version. */
function swapOf(samples: HealthSample[], first: HealthSample): { version: number; signalledAt: number; swappedAt: number } | undefined {
  const signalled = samples.find((sample) => sample.signalled > first.signalled);
  if (!signalled) return undefined;
  const version = samples[samples.length - 1].signalled;
  const swapped = samples.find((sample) => sample.served >= version && sample.signalled >= version);
  if (!swapped) return undefined;
  const lastSignal = samples.find((sample) => sample.signalled >= version)!;
  return { version, signalledAt: lastSignal.at, swappedAt: swapped.at };
}

console.log(`build: ${buildService(cwd).toFixed(1)} s`);
for (const name of values.drivers!.split(',')) {
  const target = targets[name];
  if (!target) throw new Error(`unknown driver ${name}`);
  await measure(name, target);
}
