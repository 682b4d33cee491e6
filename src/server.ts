import type { ServerResponse } from 'node:http';
import { openChangeSignal, type ChangeSignal } from './changes/change-signal.js';
import type { Config } from './config.js';
import { openDatabase, readerAfterLatestCommit, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { buildApp, type App } from './http/app.js';
import { listenForCommands, type CommandRunner } from './management/socket.js';
import { linkBuilder } from './contract/links.js';
import { SearchModel } from './search/search-model.js';

export interface RunningServer {
  app: App;
  database: Database;
  changes: ChangeSignal;
  search: SearchModel;
  url: string;
  stop(): Promise<void>;
}

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

export interface StartOptions {
  /** Runs after migrating, before listening (`npm start` loads the demo catalogue here). */
  beforeListen?: (database: Database) => Promise<void>;
  /**
   * On an embedded data directory: how to run a CLI command passed through the directory's management
   * socket (src/management/socket.ts), since no other process may open the directory meanwhile.
   */
  runCommand?: (database: Database) => CommandRunner;
  /** Tests lengthen it, so that only a change signal can explain a change being seen at once. */
  keyCacheTtlMs?: number;
}

/** Opens the database, migrates, and listens. `npm start` and `catalogue serve` both come through here. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const engineLog: { log?: App['log'] } = {};
  const database = await openDatabase({
    // The embedded engine failing (e.g. a full disk) and being reopened: one line each, cause named.
    onEngineEvent: ({ level, message }) => engineLog.log?.[level](message),
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    readUrls: config.databaseReadUrls,
    readMaxLagS: config.databaseReadMaxLagS,
  });
  try {
    const server = await serveDatabase(config, database, options);
    engineLog.log = server.app.log;
    return server;
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

async function serveDatabase(config: Config, database: Database, options: StartOptions): Promise<RunningServer> {
  await migrateToLatest(database.primary);
  if (options.beforeListen) await options.beforeListen(database);
  let log: App['log'] | undefined;
  const changes = await openChangeSignal(database, { onError: (error, context) => log?.warn({ err: error }, context) });
  // Built before listening, so the first request is already served from memory; it rebuilds on every
  // catalogue signal (src/search/search-model.ts).
  const search = await SearchModel.create(database.db, {
    links: linkBuilder(config.staticBaseUrl),
    changes,
    readFrom: async () => (await readerAfterLatestCommit(database)).db,
    onError: (error) => log?.error({ err: error }, 'search model refresh failed; the previous snapshot stays in service'),
  });
  // Keys are dropped on every change signal, and on PostgreSQL cached 1 s at most (src/http/key-cache.ts).
  const app = await buildApp({ database, config, search, keyCacheTtlMs: options.keyCacheTtlMs ?? (database.driver === 'pglite' ? PGLITE_KEY_CACHE_TTL_MS : KEY_CACHE_TTL_MS), changes });
  log = app.log;
  await app.listen({ port: config.port, host: config.host });
  const management =
    database.driver === 'pglite' && options.runCommand && config.dataDir !== 'memory://'
      ? await listenForCommands(config.dataDir, options.runCommand(database)).catch((error: unknown) => {
          app.log.warn({ err: error }, 'CLI commands cannot be passed to this process while it serves; stop it to run them');
          return undefined;
        })
      : undefined;
  const inFlight = trackResponses(app);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // close() stops accepting, closes idle keep-alive connections and waits for the requests in
      // flight; only then is the database released, so those requests still complete.
      const closing = app.close();
      closeAfterResponse(app, inFlight);
      await closing;
      await management?.close();
      await changes.close();
      await database.close();
    })());
  return { app, database, changes, search, url: `http://${host}:${port}`, stop };
}

/** The responses not finished yet. */
function trackResponses(app: App): Set<ServerResponse> {
  const open = new Set<ServerResponse>();
  app.server.on('request', (_request, response: ServerResponse) => {
    open.add(response);
    response.once('close', () => open.delete(response));
  });
  return open;
}

/*
 * Node closes the keep-alive connections that are idle when the server closes, but not those busy
 * with a request: once answered, a keep-alive client would hold them (and the shutdown) open until
 * the keep-alive timeout, more than a typical termination grace period. So the responses in flight
 * say `Connection: close`, and connections whose headers were already sent are closed once idle.
 */
function closeAfterResponse(app: App, inFlight: Set<ServerResponse>): void {
  for (const response of inFlight) {
    if (!response.headersSent) response.setHeader('connection', 'close');
    else response.once('finish', () => setImmediate(() => app.server.closeIdleConnections()));
  }
}

/** SIGTERM/SIGINT: finish what is in flight, close the database, exit. */
export function stopOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    server.stop().then(
      () => {
        server.app.log.info('stopped: requests in flight answered, database closed');
        process.exit(0);
      },
      (error) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
