import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildService, type ChildServer } from '../bench/server-process.js';
import { addEndpoint, createRig, drained, loadAverage, percentile, produce, startBenchReceiver, startService } from '../bench/webhooks-rig.js';
import { leaseMs } from '../src/webhooks/worker.js';

/*
 * Webhook soak on PostgreSQL (issue 26's second target):
 *
 *   npm run soak:webhooks -- [--duration 300] [--rate 50] [--fail 0.2] [--kill-at 0.4] [--projects 100]
 *     [--database-url postgres://…/postgres] [--json out.json]
 *
 * The compiled service (one process) delivers unit.changed events of price changes imported at
 * --rate events/s for --duration seconds to a receiver on 127.0.0.1 that answers 500 to a random
 * --fail share of requests and 200 to the rest. At --kill-at of the duration the service gets
 * SIGKILL (kill -9) and is started again at once, while the imports go on. Then the queue is left to
 * drain. Counted: events queued (every message in the database, against what the imports should have
 * queued), messages the receiver accepted (200) at least once, lost ones (never accepted), duplicates
 * (a message accepted more than once) and anything accepted that was never queued.
 * Targets: 0 lost, duplicates <= 0.1 %. Exit code 1 when missed.
 */
const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    rate: { type: 'string', default: '50' },
    batch: { type: 'string', default: '20' },
    fail: { type: 'string', default: '0.2' },
    'kill-at': { type: 'string', default: '0.4' },
    projects: { type: 'string', default: '100' },
    'retry-base-ms': { type: 'string', default: '1000' },
    'database-url': { type: 'string' },
    json: { type: 'string' },
  },
});
const durationS = Number(options.duration);
const failShare = Number(options.fail);
const killAtS = Number(options['kill-at']) * durationS;
const serverUrl = options['database-url'] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The service's attempt timeout (its default, 10 s) and so its lease. */
const TIMEOUT_MS = 10_000;
const env = { WEBHOOK_RETRY_BASE_MS: String(options['retry-base-ms']), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) };

const rig = await createRig(serverUrl, Number(options.projects), 'whsoak');
const receiver = await startBenchReceiver(() => (Math.random() < failShare ? 500 : 200));
let exitCode = 0;
try {
  const endpointId = await addEndpoint(rig, receiver.url);
  console.error('building the service (npm run build)…');
  buildService(process.cwd());
  let service: ChildServer = await startService(rig, env);
  let restarted: Promise<ChildServer> | undefined;
  let kill: { at_s: number; leased: number; accepted_before: number; restart_s?: number } | undefined;
  const loadBefore = loadAverage();

  const production = await produce(rig, {
    rate: Number(options.rate),
    batch: Number(options.batch),
    durationS,
    async onTick(elapsedS) {
      if (kill || elapsedS < killAtS) return;
      // Killed mid-delivery: once the worker holds claimed (leased) deliveries not yet written back
      // (or after 1 s without any).
      const leased = async () => {
        const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries
          WHERE state = 'pending' AND next_attempt_at - last_attempt_at = ${leaseMs(TIMEOUT_MS)}::int * interval '1 millisecond'`.execute(rig.database.primary);
        return Number(rows[0].n);
      };
      const until = performance.now() + 1_000;
      let held = await leased();
      while (held === 0 && performance.now() < until) held = await leased();
      process.kill(service.pid, 'SIGKILL');
      kill = { at_s: Math.round(elapsedS), leased: held, accepted_before: receiver.receipts.filter((r) => r.status === 200).length };
      console.error(`kill -9 of the service at ${kill.at_s} s (${kill.leased} deliveries leased)`);
      const killed = service;
      const started = performance.now();
      // The imports go on while the service comes back.
      restarted = killed.stop().then(() => startService(rig, env)).then((next) => {
        kill!.restart_s = Math.round((performance.now() - started) / 100) / 10;
        return next;
      });
    },
  });
  if (restarted) service = await restarted;
  const left = await drained(rig, 300_000);
  await service.stop();

  const messages = (await sql<{ id: string }>`SELECT id FROM webhook_messages WHERE endpoint_id = ${endpointId}`.execute(rig.database.primary)).rows.map((row) => row.id);
  const queued = new Set(messages);
  const accepted = receiver.receipts.filter((r) => r.status === 200);
  const acceptedIds = new Set(accepted.map((r) => r.id));
  const lost = messages.filter((id) => !acceptedIds.has(id));
  const invented = [...acceptedIds].filter((id) => !queued.has(id));
  const duplicates = accepted.length - acceptedIds.size;
  const firstAccepted = new Map<string, number>();
  for (const r of accepted) if (!firstAccepted.has(r.id)) firstAccepted.set(r.id, r.at - production.committedAt.get(r.version)!);
  const latencies = [...firstAccepted.values()];
  const { rows: states } = await sql<{ state: string; n: string }>`SELECT state, count(*) AS n FROM webhook_deliveries GROUP BY state`.execute(rig.database.primary);

  const result = {
    date: new Date().toISOString(),
    duration_s: durationS,
    rate: Number(options.rate),
    fail_share: failShare,
    retry_base_ms: Number(options['retry-base-ms']),
    events_expected: production.events,
    events_queued: messages.length,
    events_per_s: Math.round((production.events / production.elapsedS) * 10) / 10,
    late_imports: production.late,
    requests: receiver.receipts.length,
    answered_500: receiver.receipts.filter((r) => r.status !== 200).length,
    accepted_distinct: acceptedIds.size,
    lost: lost.length,
    invented: invented.length,
    duplicates,
    duplicate_share_pct: Math.round((duplicates / Math.max(1, acceptedIds.size)) * 100_000) / 1000,
    pending_left: left,
    delivery_states: Object.fromEntries(states.map((row) => [row.state, Number(row.n)])),
    kill,
    commit_to_first_2xx_ms: { p50: Math.round(percentile(latencies, 50)), p95: Math.round(percentile(latencies, 95)), p99: Math.round(percentile(latencies, 99)), max: Math.round(percentile(latencies, 100)) },
    load_average: { before: loadBefore, after: loadAverage() },
  };
  const text = JSON.stringify(result, null, 2);
  console.log(text);
  if (options.json) writeFileSync(options.json, text);
  const missed = [
    result.events_queued !== result.events_expected && `${result.events_queued} events queued, ${result.events_expected} expected`,
    result.lost > 0 && `${result.lost} lost`,
    result.invented > 0 && `${result.invented} accepted that were never queued`,
    result.duplicate_share_pct > 0.1 && `duplicates ${result.duplicate_share_pct} % > 0.1 %`,
    !kill && 'the service was never killed',
  ].filter(Boolean);
  if (missed.length > 0) {
    console.error(`soak:webhooks FAILED: ${missed.join('; ')}`);
    exitCode = 1;
  }
} finally {
  await receiver.close();
  await rig.drop();
}
process.exit(exitCode);
