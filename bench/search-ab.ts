import { parseArgs } from 'node:util';
import { median } from './median.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/*
 * The in-memory search of two checkouts compared in one process, per call: each side's own code
 * (imported from its root) builds its snapshot from its own database, and findProjects runs without
 * the result cache (every call the full pass a first visitor pays), in batches that alternate A, B,
 * B, A, ... On a machine loaded by other work, HTTP figures taken seconds apart differed by factors of
 * two to four (2026-11-26, load average 16-25); the CPU time of a batch of calls in one process is far
 * steadier (CPU time is counted, not the wait for a core), and the ratio of neighbouring batches
 * steadier still.
 *
 *   npx tsx bench/search-ab.ts --side 'main=/tmp/main@postgres://postgres@127.0.0.1:5432/db_main@ck_...' \
 *     --side 'branch=.@postgres://postgres@127.0.0.1:5432/db_branch@ck_...' \
 *     --query 'typical=bedrooms=2&price_max=3000000&near_transport=true' --rounds 10 --calls 100
 *
 * A side is `name=ROOT@DATABASE_URL@API_KEY` (the key of the agency whose scope is searched). A query
 * `name=QUERYSTRING` runs on every side; a query whose string has `currency=` runs only on sides whose
 * code knows it (src/domain/currency.ts). Each round runs a batch of `calls` of every (query, side),
 * forward then backward. Printed: per query and side the median microseconds per call, for the first
 * two sides the median of the per-round speed ratios; for a query named `X-usd` beside `X`, its speed
 * ratio to `X` on the same side.
 */

interface Side {
  name: string;
  root: string;
  databaseUrl: string;
  key: string;
}

function parseSide(text: string): Side {
  const match = /^([\w.-]+)=([^@]+)@(postgres:\/\/[^@]+@[^@]+)@(\S+)$/.exec(text);
  if (!match) throw new Error(`--side must be name=ROOT@DATABASE_URL@KEY, got ${text}`);
  return { name: match[1], root: resolve(match[2]), databaseUrl: match[3], key: match[4] };
}

// Each side's modules, typed loosely: the two checkouts' types are not the same declarations.
type Loaded = {
  side: Side;
  run: (query: string) => () => unknown;
  knowsCurrency: boolean;
  close: () => Promise<void>;
};

async function load(side: Side): Promise<Loaded> {
  const from = (path: string) => import(pathToFileURL(`${side.root}/src/${path}`).href);
  const [database, searchModel, links, apiKeys, apiKey, domainFilters, schemas, find, value] = await Promise.all([
    from('db/database.ts'),
    from('search/search-model.ts'),
    from('contract/links.ts'),
    from('queries/api-keys.ts'),
    from('domain/api-key.ts'),
    from('domain/project-filters.ts'),
    from('contract/schemas/projects.ts'),
    from('search/find-projects.ts'),
    import('@sinclair/typebox/value'),
  ]);
  // parseProjectsQuery moved from the domain's rules to the contract (issue 21): either checkout's.
  const filters = await from('contract/projects-query.ts').catch(() => domainFilters);
  let currency: { displayCurrency: (code: string) => unknown } | undefined;
  try {
    currency = await from('domain/currency.ts');
  } catch {
    currency = undefined;
  }
  const db = await database.openDatabase({ databaseUrl: side.databaseUrl, poolSize: 2 });
  const model = await searchModel.SearchModel.create(db.db, { links: links.linkBuilder('') });
  const record = await apiKeys.findActiveKeyByHash(db.db, apiKey.hashApiKey(side.key));
  if (!record) throw new Error(`${side.name}: no active key`);
  const { Value } = value;
  return {
    side,
    knowsCurrency: currency !== undefined,
    close: () => db.close(),
    run: (query: string) => {
      const params = Object.fromEntries(new URLSearchParams(query));
      const page = filters.parseProjectsQuery(Value.Convert(schemas.ProjectsQuery, Value.Default(schemas.ProjectsQuery, { ...params })));
      const scope = params.currency ? { ...record, display: currency!.displayCurrency(params.currency) } : record;
      const snapshot = model.current();
      return () => find.findProjects(snapshot, scope, page, { amenitiesRadiusM: undefined }, { cache: false });
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      side: { type: 'string', multiple: true },
      query: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '10' },
      calls: { type: 'string', default: '100' },
    },
    strict: true,
  });
  const sides = await Promise.all((values.side ?? []).map(parseSide).map(load));
  const queries = (values.query ?? []).map((text) => {
    const at = text.indexOf('=');
    return { name: text.slice(0, at), query: text.slice(at + 1) };
  });
  const rounds = Number(values.rounds);
  const calls = Number(values.calls);
  // microseconds per call: query -> side -> per round. Every (query, side) pair runs in every round,
  // forward then backward, so any two of them are compared within the same rounds.
  const timing = new Map<string, Map<string, number[]>>();
  const runners: { query: string; side: string; call: () => unknown }[] = [];
  for (const { name, query } of queries) {
    timing.set(name, new Map());
    for (const side of sides.filter((s) => s.knowsCurrency || !query.includes('currency='))) {
      timing.get(name)!.set(side.side.name, []);
      runners.push({ query: name, side: side.side.name, call: side.run(query) });
    }
  }
  for (const { call } of runners) for (let k = 0; k < Math.max(10, calls / 5); k++) call(); // warm-up (JIT)
  for (let round = 0; round < rounds; round++) {
    for (const { query, side, call } of round % 2 === 0 ? runners : [...runners].reverse()) {
      // CPU time of the process, not wall time: waiting for a core another process holds is not counted.
      const started = process.cpuUsage();
      for (let k = 0; k < calls; k++) call();
      const used = process.cpuUsage(started);
      timing.get(query)!.get(side)!.push((used.user + used.system) / calls);
    }
  }

  const [a, b] = sides.map((side) => side.side.name);
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  for (const { name, query } of queries) {
    const perSide = timing.get(name)!;
    const cells = [...perSide].map(([side, us]) => `${side} ${median(us).toFixed(1)} µs`);
    let line = `${name}: ${cells.join(', ')}`;
    if (perSide.has(a) && perSide.has(b)) {
      // Speed ratio b/a per round (time a / time b): above 100 % b is faster.
      const ratios = perSide.get(a)!.map((us, k) => us / perSide.get(b)![k]);
      line += `; ${b} speed / ${a}: median ${percent(median(ratios))} (min ${percent(Math.min(...ratios))}, max ${percent(Math.max(...ratios))})`;
    }
    console.log(`${line}   [${query}]`);
    const base = name.endsWith('-usd') ? timing.get(name.slice(0, -4)) : undefined;
    if (base) {
      for (const [side, us] of perSide) {
        const without = base.get(side);
        if (!without) continue;
        const ratios = us.map((value, k) => without[k] / value);
        console.log(`  ${side}: ${name} speed / ${name.slice(0, -4)}: median ${percent(median(ratios))}`);
      }
    }
  }
  await Promise.all(sides.map((side) => side.close()));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
