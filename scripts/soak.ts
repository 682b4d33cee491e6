import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { onServer } from './pg-admin.js';
import { targetEnv } from '../bench/catalogue.js';
import { buildService, readRss, serviceArgs, startChildServer, type ChildServer } from '../bench/server-process.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createDemoKey, seedDemo } from '../src/demo/seed-demo.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { findActiveKeyByHash } from '../src/queries/api-keys.js';
import { projectIsVisible } from '../src/queries/visibility.js';

/*
 * Soak test on PostgreSQL: `npm run soak -- [--duration 300] [--connections 64] [--apply-share 0.1]
 *   [--database-url postgres://…/postgres] [--json out.json]`
 *
 * Creates a database of its own (cat_soak_<random>) on the server of --database-url (default:
 * SOAK_DATABASE_URL, TEST_DATABASE_URL, or postgres://postgres@127.0.0.1:5432/postgres), loads the demo
 * catalogue and a demo key, starts the service as a child process (`catalogue serve`, as deployed), and
 * holds a mix of reads and applications at a fixed concurrency for the duration. Every application
 * uses a new client email, and every 201 is recorded. Meanwhile the server's RSS is sampled every 5 s
 * from /proc/<pid>/status.
 *
 * At the end: requests per status class and per route, latency, the RSS curve; every 201 application
 * is looked up in the database (client, opportunity, offer, link: exactly one each); the server gets
 * SIGTERM and must exit 0; the database is dropped. Exit code 1 on any 5xx, connection error or
 * timeout, lost or duplicated application, or unclean shutdown.
 */

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    connections: { type: 'string', default: '64' },
    'apply-share': { type: 'string', default: '0.1' },
    'database-url': { type: 'string' },
    json: { type: 'string' },
  },
});

const durationS = positive('duration', Number(options.duration));
const connections = positive('connections', Number(options.connections));
const applyShare = Number(options['apply-share']);
if (!(applyShare >= 0 && applyShare <= 1)) fail('--apply-share must be between 0 and 1');
const serverUrl = options['database-url'] ?? process.env.SOAK_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RSS_EVERY_MS = 5_000;
/** Longer than any bound of the service (30 s request and query timeouts): a timeout here is a hang. */
const CLIENT_TIMEOUT_S = 40;

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive integer`);
  return value;
}

function fail(message: string): never {
  console.error(`soak: ${message}`);
  process.exit(2);
}

const runId = randomBytes(4).toString('hex');
const databaseName = `cat_soak_${runId}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();


// ---------------------------------------------------------------------------------------------------
// Catalogue and key
// ---------------------------------------------------------------------------------------------------

interface Catalogue {
  key: string;
  projectIds: number[];
  unitIds: number[];
}

async function prepareCatalogue(): Promise<Catalogue> {
  const database = await openDatabase({ databaseUrl });
  try {
    await migrateToLatest(database.db);
    const started = Date.now();
    const summary = await seedDemo(database.db, { facilityLinkRadiusM: 10_000 });
    console.log(`  demo catalogue loaded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary.projects} projects, ${summary.units} units`);
    const key = await createDemoKey(database.db);
    const record = await findActiveKeyByHash(database.db, hashApiKey(key));
    if (!record) throw new Error('the demo key was not found after creating it');
    // Only what the key may see, so reads answer 200 and applications 201 (not 404).
    const projects = await database.db.selectFrom('projects as p').where(projectIsVisible(record)).select('p.id').orderBy('p.id').execute();
    const units = await database.db
      .selectFrom('units as u')
      .innerJoin('projects as p', 'p.id', 'u.project_id')
      .where('u.deleted_at', 'is', null)
      .where(projectIsVisible(record))
      .select('u.id')
      .orderBy('u.id')
      .execute();
    return { key, projectIds: projects.map((p) => p.id), unitIds: units.map((u) => u.id) };
  } finally {
    await database.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// The server, as a child process
// ---------------------------------------------------------------------------------------------------

interface Server extends ChildServer {
  logLines: string[];
}

async function startServer(): Promise<Server> {
  const logLines: string[] = [];
  const env = targetEnv({ driver: 'postgres', databaseUrl }, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  buildService(process.cwd());
  const server = await startChildServer({ args: serviceArgs(['serve']), env, cwd: process.cwd(), label: 'server', startTimeoutMs: 60_000, stopGraceMs: 30_000, onLine: (line) => logLines.push(line) });
  return { ...server, logLines };
}

// ---------------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------------

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];

const PROJECT_FILTERS = [
  'limit=20',
  'limit=20&offset=20',
  'bedrooms=2&price_max=3000000&limit=5',
  'bedrooms=1,2,3&statuses=3,4',
  'unit_types=1,2&development_status=3',
  'price_min=1000000&price_max=5000000&limit=50',
  'size_min=60&size_max=200',
  'search=marina',
  'is_branded=true',
  'near_transport=true&limit=10',
  'lat=25.08&lng=55.14&radius_km=10',
  'payment_max_pre_handover=60',
  'handover_from=2026-01-01&handover_to=2028-12-31',
] as const;

type Route = 'GET /projects' | 'GET /projects/{id}' | 'GET /units/{id}' | 'GET /projects/list' | 'GET /whoIAm' | 'POST /units/{id}/applications';

interface Planned {
  route: Route;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  email?: string;
}

/** The read mix (weights); applications are added on top with probability --apply-share. */
const READ_MIX: [number, (c: Catalogue) => Planned][] = [
  [30, () => ({ route: 'GET /projects', method: 'GET', path: `/projects?${pick(PROJECT_FILTERS)}` })],
  [25, (c) => ({ route: 'GET /projects/{id}', method: 'GET', path: `/projects/${pick(c.projectIds)}` })],
  [25, (c) => ({ route: 'GET /units/{id}', method: 'GET', path: `/units/${pick(c.unitIds)}` })],
  [10, () => ({ route: 'GET /projects/list', method: 'GET', path: '/projects/list' })],
  [10, () => ({ route: 'GET /whoIAm', method: 'GET', path: '/whoIAm' })],
];
const READ_TOTAL = READ_MIX.reduce((sum, [weight]) => sum + weight, 0);

let sequence = 0;
function plan(catalogue: Catalogue): Planned {
  if (Math.random() < applyShare) {
    const email = `soak-${runId}-${++sequence}@example.com`;
    const body = {
      client: { first_name: 'Soak', last_name: `Client ${sequence}`, email, mobile_number: `+971 50 ${String(sequence).padStart(7, '0')}` },
      preferences: { based_on_unit: sequence % 2 === 0 },
      message: 'soak test',
    };
    return { route: 'POST /units/{id}/applications', method: 'POST', path: `/units/${pick(catalogue.unitIds)}/applications`, body: JSON.stringify(body), email };
  }
  let roll = Math.random() * READ_TOTAL;
  for (const [weight, make] of READ_MIX) {
    if ((roll -= weight) < 0) return make(catalogue);
  }
  return READ_MIX[0][1](catalogue);
}

type StatusClass = '2xx' | '3xx' | '4xx' | '5xx';
const classOf = (status: number): StatusClass => `${Math.min(5, Math.max(2, Math.floor(status / 100)))}xx` as StatusClass;

interface Tally {
  byClass: Record<StatusClass, number>;
  byRoute: Map<Route, Record<StatusClass, number>>;
  /** Applications sent, and those answered 201 (email -> ids from the response). */
  sent: Set<string>;
  created: Map<string, { client: number; opportunity: number; offer: number }>;
  answeredOther: Set<string>;
  samples5xx: string[];
  mismatched: string[];
}

/** Every read filter once, before the load: a 4xx here means the mix itself is wrong. */
async function preflight(url: string, catalogue: Catalogue): Promise<void> {
  const paths = [...PROJECT_FILTERS.map((filter) => `/projects?${filter}`), `/projects/${catalogue.projectIds[0]}`, `/units/${catalogue.unitIds[0]}`, '/projects/list', '/whoIAm'];
  for (const path of paths) {
    const res = await fetch(`${url}${path}`, { headers: { 'x-api-key': catalogue.key } });
    if (res.status !== 200) throw new Error(`preflight: GET ${path} answered ${res.status}: ${await res.text()}`);
  }
}

let stopLoad: (() => void) | undefined;

async function runLoad(url: string, catalogue: Catalogue, tally: Tally) {
  const zero = (): Record<StatusClass, number> => ({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 });
  let done!: (error: unknown, result: autocannon.Result) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = (error, result) => (error ? reject(error) : resolve(result));
  });
  const settings: autocannon.Options = {
    url,
    connections,
    duration: durationS,
    timeout: CLIENT_TIMEOUT_S,
    requests: [
      {
        setupRequest: (request, context) => {
          const planned = plan(catalogue);
          (context as { planned?: Planned }).planned = planned;
          if (planned.email) tally.sent.add(planned.email);
          return {
            ...request,
            method: planned.method,
            path: planned.path,
            headers: { 'x-api-key': catalogue.key, ...(planned.body ? { 'content-type': 'application/json' } : {}) },
            body: planned.body,
          };
        },
        onResponse: (status, body, context) => {
          const planned = (context as { planned: Planned }).planned;
          const statusClass = classOf(status);
          tally.byClass[statusClass]++;
          const route = tally.byRoute.get(planned.route) ?? zero();
          route[statusClass]++;
          tally.byRoute.set(planned.route, route);
          if (statusClass === '5xx' && tally.samples5xx.length < 10) tally.samples5xx.push(`${planned.method} ${planned.path} -> ${status} ${body.slice(0, 200)}`);
          if (!planned.email) return;
          if (status !== 201) {
            tally.answeredOther.add(planned.email);
            return;
          }
          const data = JSON.parse(body).data;
          if (data.client.email !== planned.email) tally.mismatched.push(`${planned.email} answered with client ${data.client.email}`);
          tally.created.set(planned.email, { client: data.client.id, opportunity: data.opportunity.id, offer: data.offer.id });
        },
      },
    ],
  };
  const instance = autocannon(settings, (error, result) => done(error, result));
  stopLoad = () => instance.stop();
  let lastTick = Date.now();
  instance.on('tick', () => {
    if (Date.now() - lastTick < 10_000) return;
    lastTick = Date.now();
    process.stdout.write(`  … ${tally.byClass['2xx'] + tally.byClass['4xx'] + tally.byClass['5xx']} responses, ${tally.created.size} applications\n`);
  });
  return finished;
}

// ---------------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------------

interface Verification {
  createdChecked: number;
  lost: string[];
  duplicated: string[];
  wrongIds: string[];
  /** Committed although their request got no answer (cut off by the end of the run, or a client timeout). */
  committedUnanswered: number;
  /** Committed although the answer was not 201: never acceptable. */
  committedRefused: string[];
  positions: { stage: number; opportunities: number; distinct: number; min: number; max: number }[];
}

async function verify(tally: Tally): Promise<Verification> {
  const database = await openDatabase({ databaseUrl });
  try {
    const { rows } = await sql<{ email: string; clients: number; client_id: number; opportunities: number; opportunity_id: number; offers: number; offer_id: number; links: number }>`
      SELECT c.email,
             count(DISTINCT c.id)::int AS clients, min(c.id) AS client_id,
             count(DISTINCT o.id)::int AS opportunities, min(o.id) AS opportunity_id,
             count(DISTINCT f.id)::int AS offers, min(f.id) AS offer_id,
             count(l.offer_id)::int AS links
      FROM clients c
      LEFT JOIN opportunities o ON o.client_id = c.id
      LEFT JOIN offer_opportunities l ON l.opportunity_id = o.id
      LEFT JOIN offers f ON f.id = l.offer_id
      WHERE c.email LIKE ${`soak-${runId}-%`}
      GROUP BY c.email`.execute(database.db);
    const stored = new Map(rows.map((row) => [row.email, row]));

    const result: Verification = { createdChecked: 0, lost: [], duplicated: [], wrongIds: [], committedUnanswered: 0, committedRefused: [], positions: [] };
    for (const [email, ids] of tally.created) {
      result.createdChecked++;
      const row = stored.get(email);
      if (!row || row.opportunities === 0 || row.offers === 0) result.lost.push(email);
      else if (row.clients !== 1 || row.opportunities !== 1 || row.offers !== 1 || row.links !== 1) result.duplicated.push(`${email}: ${JSON.stringify(row)}`);
      else if (row.client_id !== ids.client || row.opportunity_id !== ids.opportunity || row.offer_id !== ids.offer) result.wrongIds.push(email);
    }
    for (const email of stored.keys()) {
      if (tally.created.has(email)) continue;
      if (tally.answeredOther.has(email)) result.committedRefused.push(email);
      else result.committedUnanswered++;
    }

    // Applications queue on the first stage of the agency's board: their positions must stay distinct.
    const { rows: stages } = await sql<{ stage: number; opportunities: number; distinct: number; min: number; max: number }>`
      SELECT stage_id AS stage, count(*)::int AS opportunities, count(DISTINCT position)::int AS distinct,
             min(position)::int AS min, max(position)::int AS max
      FROM opportunities GROUP BY stage_id ORDER BY stage_id`.execute(database.db);
    result.positions = stages;
    return result;
  } finally {
    await database.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------

const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : '-');

async function main(): Promise<number> {
  console.log(`soak ${runId}: ${durationS} s at ${connections} connections, applications ${percent(applyShare, 1)} of requests, database ${databaseName}`);
  await onServer(serverUrl, `CREATE DATABASE "${databaseName}"`);
  let server: Server | undefined;
  try {
    const catalogue = await prepareCatalogue();
    console.log(`  ${catalogue.projectIds.length} visible projects, ${catalogue.unitIds.length} visible units`);
    server = await startServer();
    const pid = server.pid;
    console.log(`  server pid ${pid} at ${server.url}`);
    await preflight(server.url, catalogue).catch(async (error) => {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the log line may trail the response
      throw new Error(`${(error as Error).message}\nserver log:\n${server!.logLines.slice(-20).join('\n')}`);
    });

    const rss: { atS: number; mib: number }[] = [];
    const started = Date.now();
    const sample = () => {
      const reading = readRss(pid);
      if (reading) rss.push({ atS: Math.round((Date.now() - started) / 1000), mib: reading.rssKb / 1024 });
    };
    sample();
    const sampler = setInterval(sample, RSS_EVERY_MS);

    const tally: Tally = {
      byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 },
      byRoute: new Map(),
      sent: new Set(),
      created: new Map(),
      answeredOther: new Set(),
      samples5xx: [],
      mismatched: [],
    };
    const result = await runLoad(server.url, catalogue, tally);
    sample();
    clearInterval(sampler);

    // Let requests cut off by the end of the run finish on the server before counting rows.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const verification = await verify(tally);

    // SIGTERM; a server still running 30 s later is killed and reports no exit code.
    const stopping = Date.now();
    const exitCode = await server.stop();
    console.log(`  server stopped in ${Date.now() - stopping} ms`);
    const errorLines = server.logLines.filter((line) => /"level":(50|60)/.test(line));
    const warnLines = server.logLines.filter((line) => /"level":40/.test(line));

    // ---- report ----
    const answered = tally.byClass['2xx'] + tally.byClass['3xx'] + tally.byClass['4xx'] + tally.byClass['5xx'];
    const lines: string[] = [];
    lines.push('', `Requests: ${answered} answered in ${result.duration.toFixed(0)} s (${(answered / result.duration).toFixed(0)} req/s), ${result.errors} connection errors, ${result.timeouts} timeouts`);
    for (const statusClass of ['2xx', '3xx', '4xx', '5xx'] as const) lines.push(`  ${statusClass}: ${tally.byClass[statusClass]} (${percent(tally.byClass[statusClass], answered)})`);
    lines.push('By route:');
    for (const [route, counts] of [...tally.byRoute].sort()) {
      lines.push(`  ${route.padEnd(31)} ${Object.entries(counts).filter(([, n]) => n).map(([c, n]) => `${c} ${n}`).join(', ')}`);
    }
    lines.push(`Latency (ms): p50 ${result.latency.p50}, p90 ${result.latency.p90}, p99 ${result.latency.p99}, max ${result.latency.max}`);
    const mibs = rss.map((s) => s.mib);
    lines.push(
      `Server RSS (MiB, every ${RSS_EVERY_MS / 1000} s, ${rss.length} samples): first ${mibs[0]?.toFixed(0)}, min ${Math.min(...mibs).toFixed(0)}, max ${Math.max(...mibs).toFixed(0)}, last ${mibs.at(-1)?.toFixed(0)}`,
      `  curve: ${rss.map((s) => `${s.atS}s=${s.mib.toFixed(0)}`).join(' ')}`,
    );
    lines.push(
      `Applications: ${tally.sent.size} sent, ${tally.created.size} answered 201, ${tally.answeredOther.size} answered otherwise; ` +
        `${verification.createdChecked - verification.lost.length - verification.duplicated.length - verification.wrongIds.length}/${verification.createdChecked} found exactly once with the ids answered`,
      `  lost ${verification.lost.length}, duplicated ${verification.duplicated.length}, other ids ${verification.wrongIds.length}, committed although refused ${verification.committedRefused.length}, ` +
        `committed without an answer (cut off at the end) ${verification.committedUnanswered}`,
    );
    for (const stage of verification.positions) {
      lines.push(`  stage ${stage.stage}: ${stage.opportunities} opportunities, ${stage.distinct} distinct positions (${stage.min}..${stage.max})`);
    }
    lines.push(`Server: exit code ${exitCode} after SIGTERM; ${errorLines.length} error log lines, ${warnLines.length} warnings`);
    for (const line of errorLines.slice(0, 5)) lines.push(`  ${line.slice(0, 300)}`);
    for (const line of tally.samples5xx) lines.push(`  5xx: ${line}`);

    const problems = [
      tally.byClass['5xx'] && `${tally.byClass['5xx']} responses 5xx`,
      result.errors && `${result.errors} connection errors/timeouts`,
      verification.lost.length && `${verification.lost.length} applications answered 201 but not stored`,
      verification.duplicated.length && `${verification.duplicated.length} applications stored more than once`,
      verification.wrongIds.length && `${verification.wrongIds.length} applications stored under other ids than answered`,
      verification.committedRefused.length && `${verification.committedRefused.length} applications stored although refused`,
      tally.mismatched.length && `${tally.mismatched.length} responses about another client`,
      verification.positions.some((s) => s.distinct !== s.opportunities) && 'opportunity positions collide',
      exitCode !== 0 && `server exit code ${exitCode} after SIGTERM`,
    ].filter(Boolean) as string[];
    lines.push('', problems.length ? `FAIL: ${problems.join('; ')}` : 'PASS: no 5xx, no errors, every 201 application stored exactly once, clean shutdown');
    console.log(lines.join('\n'));

    if (options.json) {
      writeFileSync(
        options.json,
        `${JSON.stringify(
          {
            runId,
            durationS: result.duration,
            connections,
            applyShare,
            requests: { answered, byClass: tally.byClass, byRoute: Object.fromEntries(tally.byRoute), errors: result.errors, timeouts: result.timeouts },
            latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
            rssMiB: { first: mibs[0], min: Math.min(...mibs), max: Math.max(...mibs), last: mibs.at(-1), curve: rss },
            applications: { sent: tally.sent.size, created: tally.created.size, ...verification, lost: verification.lost.length, duplicated: verification.duplicated.length },
            serverExitCode: exitCode,
            problems,
          },
          null,
          2,
        )}\n`,
      );
    }
    return problems.length ? 1 : 0;
  } finally {
    await server?.stop();
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`).catch((error) => console.error(`could not drop ${databaseName}: ${error}`));
    console.log(`  database ${databaseName} dropped`);
  }
}

// Ctrl-C ends the load early; the report, the checks and the clean-up still run. A second one kills.
process.once('SIGINT', () => {
  console.error('\ninterrupted: stopping the load, then checking and cleaning up…');
  stopLoad?.();
});

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
