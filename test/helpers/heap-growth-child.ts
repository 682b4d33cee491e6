/*
 * Run by test/heap-growth.test.ts in a process of its own (the flag is process-wide): starts the
 * service on an empty embedded database with HEAP_GROWTH_PERCENT from argv, then keeps ~100 MB live
 * while allocating objects that live long enough to reach the old generation, and prints the largest
 * heap V8 took meanwhile, in MB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/service/server.js';

const dir = await mkdtemp(join(tmpdir(), 'heap-growth-'));
const config = loadConfig({ DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', HEAP_GROWTH_PERCENT: process.argv[2] });
const server = await startServer(config);
try {
  const live: { a: number; s: string }[] = [];
  for (let i = 0; i < 400_000; i++) live.push({ a: i, s: 'x'.repeat(100) + i });
  const ring: unknown[] = new Array(200_000);
  let max = 0;
  for (let i = 0; i < 3_000_000; i++) {
    ring[i % ring.length] = { s: `y${i}`, values: [i, i + 1, i + 2, i + 3] };
    if (i % 50_000 === 0) max = Math.max(max, v8.getHeapStatistics().total_heap_size);
  }
  process.stdout.write(`${Math.round(max / 2 ** 20)} ${live.length}\n`);
} finally {
  await server.stop({ graceMs: 0 });
  await rm(dir, { recursive: true, force: true });
}
