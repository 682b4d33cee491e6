import { execSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { linkBuilder } from '../src/contract/links.js';
import { SearchModel } from '../src/search/search-model.js';
import { buildApp } from '../src/http/app.js';
import { BROTLI_QUALITY, GZIP_LEVEL } from '../src/bodies/compression.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { updateKey } from '../src/queries/api-keys.js';
import { DEFAULT_POSTGRES_URL } from './options.js';

/*
 * What compression costs and saves on the loaded catalogue (bench/README.md, "Compression").
 *
 * 1. Codec table: the identity bodies of /projects (first page, no filter), /projects/{id} (the
 *    median-sized detail of a sample) and /projects/list, compressed with gzip and Brotli at several
 *    levels: bytes and CPU milliseconds per compression (median of --runs, on this thread).
 * 2. Served: the same three requests through the app (Fastify inject, no socket) without and with
 *    Accept-Encoding, N times each: process CPU per request (all threads: zlib streams run in the
 *    libuv pool) and the bytes sent, so the overhead of compression per request is measured in place.
 *
 * Usage: npx tsx bench/compression.ts [--runs 15]   (BENCH_DATABASE_URL, default the bench database)
 */
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;

const database = await openDatabase({ databaseUrl, dataDir: '' });
const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
const search = await SearchModel.create(database.db, { links: linkBuilder(config.staticBaseUrl) });
const app = await buildApp({ database, config, search, logger: false });
await app.ready();
const { key, secret } = await createApiKey(database.db, { companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, name: 'compression bench' });

try {
  const get = (url: string, acceptEncoding?: string) =>
    app.inject({ method: 'GET', url, headers: { 'x-api-key': secret, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) } });

  // The median-sized detail among 25 visible projects spread over the catalogue.
  const sample = (await get('/projects/list')).json().data.items as Array<{ id: number }>;
  const ids = sample.filter((_, i) => i % Math.ceil(sample.length / 25) === 0).map((item) => item.id);
  const sizes = await Promise.all(ids.map(async (id) => ({ id, size: (await get(`/projects/${id}`)).rawPayload.length })));
  sizes.sort((a, b) => a.size - b.size);
  const detailId = sizes[Math.floor(sizes.length / 2)]!.id;

  const targets = [
    { name: '/projects', url: '/projects' },
    { name: `/projects/{id} (id ${detailId})`, url: `/projects/${detailId}` },
    { name: '/projects/list', url: '/projects/list' },
  ];
  const codecs = [
    ...[1, 4, 6, 9].map((level) => ({ name: `gzip ${level}`, run: (body: Buffer) => gzipSync(body, { level }) })),
    ...[1, 3, 4, 5, 6, 9, 11].map((quality) => ({
      name: `br ${quality}`,
      run: (body: Buffer) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    })),
  ];

  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const cpuMs = (fn: () => void) => {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };

  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  console.log(`${new Date().toISOString()} commit ${commit}, ${cpus()[0]?.model} x${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(1)} GB, Node ${process.version}`);
  const catalogue = await sql<{ projects: string; units: string }>`select (select count(*) from projects) as projects, (select count(*) from units) as units`.execute(database.db);
  console.log(`catalogue: ${catalogue.rows[0]?.projects} projects, ${catalogue.rows[0]?.units} units; ${runs} runs per figure\n`);

  console.log('## Codecs (bytes; CPU ms per compression, median)\n');
  console.log(`| codec | ${targets.map((target) => target.name).join(' | ')} |`);
  console.log(`|---|${targets.map(() => '---:').join('|')}|`);
  const bodies = await Promise.all(targets.map(async (target) => (await get(target.url)).rawPayload));
  console.log(`| identity | ${bodies.map((body) => `${body.length.toLocaleString('en')} B`).join(' | ')} |`);
  for (const codec of codecs) {
    const cells = bodies.map((body) => {
      const size = codec.run(body).length;
      const ms = median(Array.from({ length: runs }, () => cpuMs(() => codec.run(body))));
      return `${size.toLocaleString('en')} B (${((100 * size) / body.length).toFixed(1)} %), ${ms.toFixed(2)} ms`;
    });
    console.log(`| ${codec.name} | ${cells.join(' | ')} |`);
  }

  console.log(`\n## Served (gzip ${GZIP_LEVEL}, br ${BROTLI_QUALITY}): bytes sent, process CPU ms per request (mean of ${runs}, all threads)\n`);
  console.log('| request | identity | gzip | br |');
  console.log('|---|---:|---:|---:|');
  for (const target of targets) {
    const cells: string[] = [];
    for (const acceptEncoding of [undefined, 'gzip', 'br']) {
      let bytes = 0;
      await get(target.url, acceptEncoding); // warm
      const start = process.cpuUsage();
      for (let i = 0; i < runs; i++) bytes = (await get(target.url, acceptEncoding)).rawPayload.length;
      const used = process.cpuUsage(start);
      cells.push(`${bytes.toLocaleString('en')} B, ${((used.user + used.system) / 1000 / runs).toFixed(1)} ms`);
    }
    console.log(`| ${target.name} | ${cells.join(' | ')} |`);
  }
} finally {
  await updateKey(database.db, key.id, { status: 1 }); // revoked: it was shown only to this process
  await app.close();
  await database.close();
}
