/*
 * How long a change made with the CLI takes to reach running instances (`npm run propagation`).
 *
 * On PostgreSQL (BENCH_DATABASE_URL's server, default the local one; a database of its own, dropped at
 * the end): two compiled service processes serve one database; the compiled CLI makes a change
 * (`keys …` or `import`), and from the moment the CLI has exited both instances are polled until each
 * answers with the change. Twenty changes of each kind; median and max per kind, in milliseconds.
 * Instances run as in production (key records cached for at most 1 s, dropped on every change signal).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onServer } from './pg-admin.js';
import { buildService, serviceArgs, startChildServer, type ChildServer } from '../bench/server-process.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, generateDemoBundle } from '../src/demo/demo-bundle.js';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.PROPAGATION_ROUNDS ?? 20);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const cwd = process.cwd();

type Record_ = Record<string, unknown>;


async function main(): Promise<void> {
  const name = `catalogue_propagation_${process.pid}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const env = { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0' };
  const dir = await mkdtemp(join(tmpdir(), 'catalogue-propagation-'));
  const servers: ChildServer[] = [];
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  try {
    console.log(`build: ${buildService(cwd).toFixed(1)} s`);
    const cli = async (...args: string[]) => {
      const { stdout } = await exec(process.execPath, serviceArgs(args), { cwd, env, timeout: 120_000 });
      return stdout;
    };
    await cli('seed-demo', '--no-key');
    for (const label of ['a', 'b']) servers.push(await startChildServer({ args: serviceArgs(['serve']), env, cwd, label }));

    const bundle: Record<string, unknown> = generateDemoBundle({});
    const pick = <T extends Record_>(section: string, where: (record: T) => boolean): T => {
      const found = (bundle[section] as T[]).find(where);
      if (!found) throw new Error(`no ${section} record`);
      return structuredClone(found);
    };
    const agency = pick('companies', (c) => c.id === DEMO_AGENCY_ID);
    const contract = pick('contracts', (c) => c.agency_id === DEMO_AGENCY_ID && c.status === 'approved');
    const project = pick('projects', (p) => p.company_id === contract.developer_id && !p.is_draft && !p.deleted);
    const unit = pick('units', (u) => u.project_id === project.id && !u.deleted);
    const developer = pick('companies', (c) => c.id === contract.developer_id);
    const author = pick('users', (u) => u.id === DEMO_AUTHOR_ID);

    const newKey = async (...extra: string[]) => {
      const out = await cli('keys', 'create', '--company', String(DEMO_AGENCY_ID), '--author', String(DEMO_AUTHOR_ID), '--name', 'propagation', ...extra);
      return { id: Number(out.split('\t')[0]), secret: out.trim().split('\n').at(-1)! };
    };
    const key = await newKey();
    const call = async (server: ChildServer, path: string, secret = key.secret) => {
      const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': secret } });
      return { status: response.status, body: (await response.json()) as { data?: { price?: number } } };
    };
    const apply = async (server: ChildServer) =>
      (await fetch(`${server.url}/units/${unit.id}/applications`, { method: 'POST', headers: { 'x-api-key': key.secret, 'content-type': 'application/json' }, body: '{}' })).status;
    const importing = async (records: Record<string, Record_[]>) => {
      const file = join(dir, 'change.json');
      await writeFile(file, JSON.stringify(records));
      await cli('import', file);
    };

    /**
     * Runs `change`; per instance, the ms from the CLI's exit until the first request that sees the
     * change has its answer (`done`), and how long that one request took (`latency`: on a loaded
     * machine most of `done` can be the request itself rather than the propagation).
     */
    const measure = async (change: () => Promise<void>, seen: (server: ChildServer) => Promise<boolean>) => {
      await change();
      const exitedAt = performance.now();
      return Promise.all(
        servers.map(async (server) => {
          for (;;) {
            const sentAt = performance.now();
            if (await seen(server)) return { done: performance.now() - exitedAt, latency: performance.now() - sentAt };
            if (performance.now() - exitedAt > 10_000) throw new Error('change not seen within 10 s');
          }
        }),
      );
    };

    type Seen = { done: number; latency: number };
    const kinds: Record<string, (round: number) => Promise<Seen[]>> = {
      'keys create': async () => {
        let created: { secret: string } | undefined;
        return measure(
          async () => void (created = await newKey()),
          async (server) => (await call(server, '/whoIAm', created!.secret)).status === 200,
        );
      },
      'keys revoke': async () => {
        const victim = await newKey();
        for (const server of servers) await call(server, '/whoIAm', victim.secret); // cached on both
        return measure(
          async () => void (await cli('keys', 'revoke', String(victim.id))),
          async (server) => (await call(server, '/whoIAm', victim.secret)).status === 401,
        );
      },
      'keys update --price-vector': async (round) => {
        const before = (await call(servers[0]!, `/units/${unit.id}`)).body.data?.price;
        return measure(
          async () => void (await cli('keys', 'update', String(key.id), '--price-vector', round % 2 ? '10' : '-10')),
          async (server) => (await call(server, `/units/${unit.id}`)).body.data?.price !== before,
        );
      },
      'keys update --domains': async (round) => {
        const restricted = round % 2 === 0;
        return measure(
          async () => void (await cli('keys', 'update', String(key.id), '--domains', restricted ? 'agency.example' : '')),
          async (server) => (await call(server, '/whoIAm')).status === (restricted ? 403 : 200),
        );
      },
      'import: licence': async (round) => {
        const approved = round % 2 === 1;
        return measure(
          () => importing({ companies: [{ ...agency, licence_status: approved ? 'approved' : 'pending' }] }),
          async (server) => (await call(server, '/whoIAm')).status === (approved ? 200 : 403),
        );
      },
      'import: contract ended': async (round) => {
        const ended = round % 2 === 0;
        return measure(
          () => importing({ contracts: [{ ...contract, status: ended ? 'rejected' : 'approved' }] }),
          async (server) => (await call(server, `/units/${unit.id}`)).status === (ended ? 404 : 200),
        );
      },
      'import: project draft': async (round) => {
        const draft = round % 2 === 0;
        return measure(
          () => importing({ projects: [{ ...project, is_draft: draft }] }),
          async (server) => (await call(server, `/projects/${project.id}`)).status === (draft ? 404 : 200),
        );
      },
      'import: developer removed': async (round) => {
        const removed = round % 2 === 0;
        return measure(
          () => importing({ companies: [{ ...developer, deleted: removed }] }),
          async (server) => (await call(server, `/projects/${project.id}`)).status === (removed ? 404 : 200),
        );
      },
      // The specification refuses such a key on the application only (401 before the body is read;
      // an empty body is otherwise a 400), so nothing is written.
      'import: key author removed': async (round) => {
        const removed = round % 2 === 0;
        return measure(
          () => importing({ users: [{ ...author, deleted: removed }] }),
          async (server) => (await apply(server)) === (removed ? 401 : 400),
        );
      },
      'import: price': async (round) => {
        const price = Number(unit.price) + 1_000 * (round + 1);
        return measure(
          () => importing({ units: [{ ...unit, price }] }),
          async (server) => (await call(server, `/units/${unit.id}`)).body.data?.price === price,
        );
      },
    };

    // Licence and domain changes must end where they started for the next kind to measure its own.
    await cli('keys', 'update', String(key.id), '--price-vector', '0');
    console.log(`\n${ROUNDS} changes of each kind, ms from the CLI's exit until each of 2 instances answers with the change\n`);
    console.log('| change | median | max | seeing request: median | max |');
    console.log('|---|---:|---:|---:|---:|');
    const median = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
    };
    // PROPAGATION_KINDS=name,name runs only those kinds (names as in the table).
    const only = process.env.PROPAGATION_KINDS?.split(',');
    for (const [kind, run] of Object.entries(kinds)) {
      if (only && !only.includes(kind)) continue;
      const seen: Seen[] = [];
      for (let round = 0; round < ROUNDS; round++) seen.push(...(await run(round)));
      if (kind === 'keys update --price-vector') await cli('keys', 'update', String(key.id), '--price-vector', '0');
      const done = seen.map((s) => s.done);
      const latency = seen.map((s) => s.latency);
      const cells = [median(done), Math.max(...done), median(latency), Math.max(...latency)].map((ms) => ms.toFixed(1));
      console.log(`| ${kind} | ${cells.join(' | ')} |`);
    }
  } finally {
    for (const server of servers) await server.stop();
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
