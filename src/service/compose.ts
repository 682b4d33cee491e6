import { openChangeSignal, type ChangeSignal } from '../changes/change-signal.js';
import type { Config } from '../config/config.js';
import { linkBuilder } from '../contract/links.js';
import { readerAfterLatestCommit, type Database } from '../db/database.js';
import { detailCacheBounds } from '../details/detail-cache-budget.js';
import { detailCaches, type DetailCaches } from '../details/detail-caches.js';
import { buildApp, type App, type BuildAppOptions } from '../http/app.js';
import type { Lifecycle } from '../http/lifecycle.js';
import { SearchModel } from '../search/search-model.js';

/*
 * The one composition root: what a database and a configuration make into the service. The server
 * (src/service/server.ts, behind `npm start` and `catalogue serve`) and the tests'
 * app (test/helpers/app.ts) both come through here, so a test runs the wiring production runs (key
 * cache included), and a dependency is wired in one place. What serving adds (listening, the metrics
 * port, the management socket, the webhook worker, the shutdown) stays in server.ts.
 */

/** A key's record is reused for at most this long; change signals drop it sooner. */
export const KEY_CACHE_TTL_MS = 1_000;

/*
 * On the embedded database the signals alone keep the cache exact: the directory lock lets no other
 * process write (src/db/data-dir-lock.ts), every change made here notifies in-process before the
 * writing statement returns, and nothing of a key record depends on the clock. A cached record is
 * therefore the committed state, not an older one, and needs no time limit (the 1 s limit is
 * PostgreSQL's safety net against a notification lost with its connection). Without it, every
 * second each key's lookup would queue behind an import's transaction (the engine runs one at a
 * time) and searches, which need no database otherwise, would stall for the whole import.
 */
export const PGLITE_KEY_CACHE_TTL_MS = Number.POSITIVE_INFINITY;

/** What a caller (a test, a tool) may set instead of the production default. */
export interface ComposeOverrides extends Pick<BuildAppOptions, 'logger' | 'logStream' | 'keyLookup' | 'requestTimeoutMs'> {
  /** Default: KEY_CACHE_TTL_MS on PostgreSQL, PGLITE_KEY_CACHE_TTL_MS on the embedded database; 0 looks every key up. */
  keyCacheTtlMs?: number;
}

export interface ComposedService {
  app: App;
  database: Database;
  changes: ChangeSignal;
  search: SearchModel;
  /** What the detail routes keep per snapshot (catalogue_detail_cache_bytes reads it). */
  details: DetailCaches;
  /** The process's shutdown state: readiness answers 503 while it drains. */
  lifecycle: Lifecycle;
  /** Closes the app and the change signal; the database stays open (its owner closes it). */
  close(): Promise<void>;
}

/** The service on an open, migrated database: change signal, search snapshot, detail caches, key cache and the app. */
export async function composeService(config: Config, database: Database, overrides: ComposeOverrides = {}): Promise<ComposedService> {
  let log: App['log'] | undefined;
  const changes = await openChangeSignal(database, { onError: (error, context) => log?.warn({ err: error }, context) });
  try {
    const links = linkBuilder(config.staticBaseUrl);
    // Built before the app, so the first request is already served from memory; it rebuilds on every
    // catalogue signal (src/search/search-model.ts).
    const search = await SearchModel.create(database.db, {
      links,
      nearbyInMemory: config.nearbyInMemory,
      concurrentReads: database.driver === 'postgres',
      onConcurrentReadFailed: (error) => log?.warn({ err: error }, 'search snapshot: the units could not be read on a second connection; read in turn'),
      changes,
      readFrom: async () => (await readerAfterLatestCommit(database)).db,
      onError: (error) => log?.error({ err: error }, 'search model refresh failed; the previous snapshot stays in service'),
    });
    const lifecycle: Lifecycle = { draining: false };
    // Made here rather than in buildApp, so that the metrics' gauges read what the routes keep.
    const details = detailCaches(database, links, detailCacheBounds(config.detailCacheMb));
    // Keys are dropped on every change signal, and on PostgreSQL cached 1 s at most (src/http/key-cache.ts).
    const keyCacheTtlMs = overrides.keyCacheTtlMs ?? (database.driver === 'pglite' ? PGLITE_KEY_CACHE_TTL_MS : KEY_CACHE_TTL_MS);
    const app = await buildApp({
      ...overrides,
      database,
      config,
      search,
      details,
      keyCacheTtlMs,
      changes,
      lifecycle,
      requestMetrics: config.metrics && { perKey: config.metrics.perKey },
    });
    log = app.log;
    return {
      app,
      database,
      changes,
      search,
      details,
      lifecycle,
      async close() {
        await app.close();
        await changes.close();
      },
    };
  } catch (error) {
    await changes.close();
    throw error;
  }
}
