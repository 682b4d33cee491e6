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
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // close() stops accepting, waits for in-flight requests, then we release the database.
      await app.close();
      await database.close();
    })());
  return { app, database, url: `http://${host}:${port}`, stop };
}

/** SIGTERM/SIGINT: finish what is in flight, close the database, exit. */
export function stopOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
