/*
 * Run by test/pretenuring.test.ts in a process of its own (the flag is process-wide): starts the
 * service on an empty embedded database, then plays what made the request path's objects tenured on
 * PGlite: a large set kept alive (the detail caches), objects of one allocation site that first live
 * through several young collections (requests queued behind the database), then the same site's
 * objects dying at once (requests answered from memory). Prints the full collections of that last
 * phase. argv[2] 'v8' turns V8's pretenuring back on after the service started (the comparison).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/service/server.js';

const dir = await mkdtemp(join(tmpdir(), 'pretenuring-'));
const config = loadConfig({ DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
const server = await startServer(config);
if (process.argv[2] === 'v8') v8.setFlagsFromString('--allocation-site-pretenuring');
const tick = () => new Promise((resolve) => setImmediate(resolve));
try {
  const kept: { i: number; s: string }[] = [];
  for (let i = 0; i < 600_000; i++) kept.push({ i, s: 'c'.repeat(64) + i });
  const make = (i: number) => ({ id: i, name: `n${i}`, values: [i, i + 1, i + 2] });
  let held: ReturnType<typeof make>[] = [];
  // Held to the end of the phase (not dropped as it goes): a full collection meanwhile finds the old
  // generation mostly alive, as the service's is, so V8 keeps its decision.
  for (let round = 0; round < 30; round++) {
    for (let i = 0; i < 10_000; i++) held.push(make(i));
    await tick();
  }
  held = [];
  const profiler = new v8.GCProfiler();
  profiler.start();
  let sink = 0;
  for (let round = 0; round < 400; round++) {
    for (let i = 0; i < 20_000; i++) sink += make(i).values.length;
    await tick();
  }
  const full = profiler.stop().statistics.filter((gc) => gc.gcType === 'MarkSweepCompact').length;
  process.stdout.write(`${full} ${kept.length + held.length} ${sink > 0}\n`);
} finally {
  await server.stop({ graceMs: 0 });
  await rm(dir, { recursive: true, force: true });
}
