/*
 * Run by test/collect-before-listen.test.ts in a process of its own (the heap is the process's): starts
 * the service on an empty embedded database whose start-up (beforeListen, where `npm start` loads the
 * demo) leaves ~200 MB of garbage, as building a large catalogue's snapshot does, and prints the heap in
 * use (live and not yet collected) once the service listens, in MB.
 */
import v8 from 'node:v8';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/service/server.js';

// V8's own growth factor (large with the test's 4 GB limit): V8 alone would not collect the garbage before listening.
const config = loadConfig({ DATA_DIR: 'memory://', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', HEAP_GROWTH_PERCENT: '0' });
const server = await startServer(config, {
  beforeListen: async () => {
    // Old-generation garbage: rows that lived through a read, then dropped.
    const rows: { id: number; text: string }[][] = [];
    for (let chunk = 0; chunk < 40; chunk++) {
      rows.push(Array.from({ length: 25_000 }, (_, i) => ({ id: i, text: `row ${chunk} ${i} `.repeat(12) })));
      await new Promise((resolve) => setImmediate(resolve));
    }
    rows.length = 0;
  },
});
try {
  // No \`gc\` left behind in the service's scope (full-collection.ts takes it from a context of its own).
  if (typeof (globalThis as { gc?: unknown }).gc !== 'undefined') throw new Error('gc leaked into the global scope');
  process.stdout.write(`${Math.round(v8.getHeapStatistics().used_heap_size / 2 ** 20)}\n`);
} finally {
  await server.stop({ graceMs: 0 });
}
