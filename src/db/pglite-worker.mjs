// The embedded database in a worker thread (see pglite-client.ts): PGlite runs PostgreSQL compiled to
// WebAssembly, single-threaded; in the API's own thread every query would stop HTTP handling until it
// finished. Plain JavaScript so that the worker loads without a TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { textParsers } from './type-parsers.mjs';

const { dataDir, loadDataDir } = workerData;

/** An error as plain data: message, name and the PostgreSQL fields (code, detail, constraint, …). */
function plainError(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function' || (typeof value === 'object' && value !== null)) continue;
    fields[key] = value;
  }
  // The stack is not enumerable; kept under its own name so that the main thread's error keeps its own.
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return { ...fields, name: error.name, message: error.message, workerStack: error.stack, ...(cause ? { causeMessage: cause } : {}) };
}

// PostgreSQL's default shared_buffers (128MB) lives here in WebAssembly memory, which grows as it is
// touched and is never given back (docs/performance.md, "PGlite's shared buffers"). The data files are
// in the OS's page cache either way, so a page not in the buffers costs a read from memory, not from
// the disk.
const SHARED_BUFFERS = '32MB';

let pglite;
try {
  pglite = new PGlite({
    dataDir,
    loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined,
    parsers: textParsers,
    relaxedDurability: false,
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  });
  await pglite.waitReady;
  await pglite.exec(`SET TIME ZONE 'UTC'`);
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'init-error', error: plainError(error) });
}

parentPort.on('message', async (message) => {
  if (message.type === 'query') {
    try {
      const result = await pglite.query(message.sql, message.params);
      parentPort.postMessage({ id: message.id, rows: result.rows, affectedRows: result.affectedRows });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: plainError(error) });
    }
  } else if (message.type === 'listen') {
    // Notifications of this database's own transactions (PGlite has one session): delivered to the
    // main thread before the reply of the query that committed them, so the change is known there by
    // the time the writer's await returns.
    try {
      await pglite.listen(message.channel, (payload) => parentPort.postMessage({ type: 'notification', channel: message.channel, payload }));
      parentPort.postMessage({ id: message.id, rows: [] });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: plainError(error) });
    }
  } else if (message.type === 'close') {
    try {
      await pglite.close();
      parentPort.postMessage({ id: message.id, rows: [] });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: plainError(error) });
    }
  }
});
