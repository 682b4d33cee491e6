import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { runLoad } from './load.js';
import { buildScenarios, type Scenario } from './scenarios.js';
import { buildService } from './server-process.js';
import { addEndpoint, cpuSeconds, createRig, drained, loadAverage, percentile, produce, startBenchReceiver, startService, type Rig } from './webhooks-rig.js';

/*
 * Webhook targets of issue 26, on PostgreSQL, one API process (the compiled service):
 *
 *   npm run bench:webhooks -- [--rate 200] [--batch 20] [--duration 60] [--projects 200]
 *     [--backlog 10000] [--rounds 3] [--round-s 10] [--connections 8] [--skip latency|backlog]
 *     [--database-url postgres://…/postgres] [--json out.json]
 *
 * 1. Latency: price changes imported at --rate events/s (--batch units per import), one unit.changed
 *    event each, to a receiver on 127.0.0.1 answering 200 at once. Measured per event: from the
 *    return of the import's commit to the receiver's answer. Target: p95 <= 1 s at 200 events/s.
 * 2. Backlog: the read scenarios (projects-typical, project-detail, unit-detail) with and without
 *    --backlog pending deliveries of an endpoint that is down (connection refused: the worker keeps
 *    attempting those that fall due and backing them off; their first attempts spread over 10
 *    minutes). The two conditions alternate, in turn first, for --rounds rounds; the figure is the
 *    ratio of throughputs within each round (the machine is shared). Target: <= 5 % slower.
 */
const { values: options } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    batch: { type: 'string', default: '20' },
    duration: { type: 'string', default: '60' },
    projects: { type: 'string', default: '200' },
    backlog: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    'round-s': { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    skip: { type: 'string', default: '' },
    'database-url': { type: 'string' },
    json: { type: 'string' },
    /** A directory: the service runs with --cpu-prof and writes its profile there on exit. */
    profile: { type: 'string' },
  },
});
const number = (name: keyof typeof options) => {
  const value = Number(options[name]);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
};
const serverUrl = options['database-url'] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const skip = new Set(String(options.skip).split(',').filter(Boolean));
const READ_SCENARIOS = ['projects-typical', 'project-detail', 'unit-detail'];
const DOWN_URL = 'http://127.0.0.1:9/hooks';

async function latency(rig: Rig) {
  const receiver = await startBenchReceiver();
  await addEndpoint(rig, receiver.url);
  const service = await startService(rig, skip.has('worker') ? { WEBHOOK_WORKER: 'off' } : {}, options.profile ? ['--cpu-prof', `--cpu-prof-dir=${options.profile}`] : []);
  try {
    const cpuBefore = await cpuSeconds(service.pid);
    const loadBefore = loadAverage();
    const production = await produce(rig, { rate: number('rate'), batch: number('batch'), durationS: number('duration') });
    const left = skip.has('worker') ? NaN : await drained(rig, 60_000);
    const cpu = (await cpuSeconds(service.pid)) - cpuBefore;
    const first = new Map<string, number>();
    for (const receipt of receiver.receipts) if (!first.has(receipt.id)) first.set(receipt.id, receipt.at - production.committedAt.get(receipt.version)!);
    const latencies = [...first.values()];
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_messages`.execute(rig.database.primary);
    return {
      events_expected: production.events,
      messages_queued: Number(rows[0].n),
      delivered_distinct: first.size,
      duplicates: receiver.receipts.length - first.size,
      pending_left: left,
      events_per_s: Math.round((production.events / production.elapsedS) * 10) / 10,
      imports: production.imports,
      events_per_import: production.eventsPerImport,
      late_imports: production.late,
      commit_to_2xx_ms: { p50: Math.round(percentile(latencies, 50)), p95: Math.round(percentile(latencies, 95)), p99: Math.round(percentile(latencies, 99)), max: Math.round(percentile(latencies, 100)) },
      service_cpu_s_per_1000_events: Math.round((cpu / production.events) * 1000 * 100) / 100,
      load_average: { before: loadBefore, after: loadAverage() },
    };
  } finally {
    await service.stop();
    await receiver.close();
  }
}

async function backlog(rig: Rig) {
  const size = number('backlog');
  const endpointId = await addEndpoint(rig, DOWN_URL);
  const db = rig.database.primary;
  const body = JSON.stringify({ type: 'unit.changed', timestamp: new Date().toISOString(), data: { id: 1, project_id: 1, changes: ['price'], price: 1_000_000, previous_price: 990_000, catalogue_version: 1, cursor: 'x'.repeat(120) } });
  let batch = 0;
  const fill = async () => {
    batch += 1;
    await sql`
      WITH m AS (
        INSERT INTO webhook_messages (id, endpoint_id, event_type, body)
        SELECT 'msg_backlog_' || ${batch}::int || '_' || g, ${endpointId}::int, 'unit.changed', ${body} FROM generate_series(1, ${size}::int) g
        RETURNING id, endpoint_id
      )
      INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at)
      SELECT id, endpoint_id, now() + random() * interval '10 minutes' FROM m`.execute(db);
  };
  const empty = async () => {
    await sql`DELETE FROM webhook_deliveries WHERE endpoint_id = ${endpointId}`.execute(db);
    await sql`DELETE FROM webhook_messages WHERE endpoint_id = ${endpointId}`.execute(db);
  };
  const scenarios = buildScenarios(rig.fixtures, 'webhooks').filter((scenario) => READ_SCENARIOS.includes(scenario.name));
  const service = await startService(rig);
  const runs: { round: number; condition: 'with' | 'without'; scenario: string; rps: number; p50: number; p99: number; non2xx: number; pending: number }[] = [];
  const idle: { round: number; condition: 'with' | 'without'; service_cpu_per_s: number }[] = [];
  const loadBefore = loadAverage();
  try {
    const measure = async (round: number, condition: 'with' | 'without', scenario: Scenario) => {
      const stats = await runLoad(service.url, scenario.request, { connections: number('connections'), durationS: number('round-s') });
      const health = (await (await fetch(`${service.url}/health`)).json()) as { data: { webhooks?: { pending?: number } } };
      runs.push({ round, condition, scenario: scenario.name, rps: stats.rps, p50: stats.latency?.p50 ?? NaN, p99: stats.latency?.p99 ?? NaN, non2xx: stats.non2xx + stats.errors, pending: health.data.webhooks?.pending ?? -1 });
      console.error(`round ${round} ${condition.padEnd(7)} ${scenario.name.padEnd(17)} ${stats.rps.toFixed(0)} req/s p50 ${stats.latency?.p50} ms p99 ${stats.latency?.p99} ms (pending ${runs.at(-1)!.pending})`);
    };
    // A warm-up of each scenario first (caches, JIT), not counted.
    for (const scenario of scenarios) await runLoad(service.url, scenario.request, { connections: number('connections'), durationS: 3 });
    for (let round = 1; round <= number('rounds'); round += 1) {
      const order: ('with' | 'without')[] = round % 2 === 1 ? ['with', 'without'] : ['without', 'with'];
      for (const condition of order) {
        if (condition === 'with') await fill();
        // The service's own CPU with no reads: what the worker spends on the backlog, whatever the machine's load.
        const cpuBefore = await cpuSeconds(service.pid);
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        idle.push({ round, condition, service_cpu_per_s: Math.round(((await cpuSeconds(service.pid)) - cpuBefore) / 5 * 1000) / 1000 });
        for (const scenario of scenarios) await measure(round, condition, scenario);
        if (condition === 'with') await empty();
      }
    }
  } finally {
    await service.stop();
  }
  const ratios = scenarios.map((scenario) => {
    const perRound = [...new Set(runs.map((run) => run.round))].map((round) => {
      const at = (condition: string) => runs.find((run) => run.round === round && run.condition === condition && run.scenario === scenario.name)!;
      return { rps: at('with').rps / at('without').rps, p50: at('with').p50 / at('without').p50 };
    });
    const median = (values: number[]) => percentile(values, 50);
    return { scenario: scenario.name, rps_with_over_without: perRound.map((r) => Math.round(r.rps * 1000) / 1000), median_rps_ratio: Math.round(median(perRound.map((r) => r.rps)) * 1000) / 1000, median_p50_ratio: Math.round(median(perRound.map((r) => r.p50)) * 1000) / 1000 };
  });
  return { backlog: size, ratios, idle, runs, load_average: { before: loadBefore, after: loadAverage() } };
}

const rig = await createRig(serverUrl, number('projects'), 'whbench');
const result: Record<string, unknown> = { date: new Date().toISOString(), rate: number('rate'), batch: number('batch'), duration_s: number('duration'), projects: number('projects'), visible_units: rig.fixtures.catalogue.visibleUnits };
try {
  console.error('building the service (npm run build)…');
  buildService(process.cwd());
  if (!skip.has('latency')) {
    result.latency = await latency(rig);
    console.error(JSON.stringify(result.latency, null, 2));
  }
  if (!skip.has('backlog')) {
    await sql`DELETE FROM webhook_deliveries`.execute(rig.database.primary);
    await sql`DELETE FROM webhook_endpoints`.execute(rig.database.primary);
    result.backlog = await backlog(rig);
  }
} finally {
  await rig.drop();
}
const text = JSON.stringify(result, null, 2);
console.log(text);
if (options.json) writeFileSync(options.json, text);
