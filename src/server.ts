import type { ServerResponse } from 'node:http';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { buildApp, type App } from './http/app.js';

export interface RunningServer {
  app: App;
  database: Database;
  url: string;
  stop(): Promise<void>;
}

/** Opens the database, migrates, and listens. `npm start` and `catalogue serve` both come through here. */
export async function startServer(config: Config, beforeListen?: (database: Database) => Promise<void>): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database.db);
  if (beforeListen) await beforeListen(database);
  // Key changes (revocation, price vector, contracts) reach every instance within 5 seconds.
  const app = await buildApp({ database, config, keyCacheTtlMs: 5_000 });
  await app.listen({ port: config.port, host: config.host });
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
      await database.close();
    })());
  return { app, database, url: `http://${host}:${port}`, stop };
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
