import type { ServerResponse } from 'node:http';
import type { ChangeSignal } from '../changes/change-signal.js';
import type { Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { collectGarbage } from './full-collection.js';
import { limitHeapGrowth } from './heap-growth.js';
import { stopAllocationSitePretenuring } from './pretenuring.js';
import type { App } from '../http/app.js';
import { listenForCommands, type CommandRunner } from '../management/socket.js';
import type { Lifecycle } from '../http/lifecycle.js';
import { listenForMetrics } from '../metrics/listener.js';
import { serviceGauges } from './service-gauges.js';
import type { DetailCaches } from '../details/detail-caches.js';
import type { SearchModel } from '../search/search-model.js';
import { composeService } from './compose.js';
import { startDeliveryWorker, type DeliveryWorker } from '../webhooks/worker.js';

export interface RunningServer {
  app: App;
  database: Database;
  changes: ChangeSignal;
  search: SearchModel;
  /** What the detail routes keep per snapshot (catalogue_detail_cache_bytes reads it). */
  details: DetailCaches;
  /** Delivers webhooks from the shared queue; undefined with WEBHOOK_WORKER=off. */
  webhooks: DeliveryWorker | undefined;
  url: string;
  /** The Prometheus endpoint (METRICS_PORT); undefined when off. */
  metricsUrl: string | undefined;
  lifecycle: Lifecycle;
  /**
   * Stops now: no new connections, requests in flight finish within `graceMs` (default
   * SHUTDOWN_GRACE_S; then their connections are cut), then the database is released.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /** SIGTERM's sequence: readiness 503 for `drainMs` while still serving (default SHUTDOWN_DRAIN_S), then stop(). */
  shutdown(options?: { drainMs?: number; graceMs?: number }): Promise<void>;
}

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
  limitHeapGrowth(config.heapGrowthPercent);
  stopAllocationSitePretenuring();
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

/**
 * startServer on a database already open (tests hand in a migrated copy); the server closes it when it
 * stops. The service itself is made by composeService (compose.ts); this adds what serving needs.
 */
export async function serveDatabase(config: Config, database: Database, options: StartOptions = {}): Promise<RunningServer> {
  await migrateToLatest(database.primary);
  if (options.beforeListen) await options.beforeListen(database);
  const { app, changes, search, details, lifecycle } = await composeService(config, database, { keyCacheTtlMs: options.keyCacheTtlMs });
  // What building the first snapshot left behind, collected before a request or a scrape can wait for it (full-collection.ts).
  collectGarbage();
  // Before the API's port: a load balancer may send traffic as soon as that opens, and the first
  // requests should already be measured.
  const metrics = config.metrics
    ? await listenForMetrics({ ...config.metrics, service: serviceGauges({ database, search, changes, details, shuttingDown: () => lifecycle.draining }) })
    : undefined;
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await metrics?.close();
    throw error;
  }
  const management =
    database.driver === 'pglite' && options.runCommand && config.dataDir !== 'memory://'
      ? await listenForCommands(config.dataDir, options.runCommand(database)).catch((error: unknown) => {
          app.log.warn({ err: error }, 'CLI commands cannot be passed to this process while it serves; stop it to run them');
          return undefined;
        })
      : undefined;
  const { webhooks: hooks } = config;
  const webhooks = hooks.worker
    ? await startDeliveryWorker(database, {
        timeoutMs: hooks.timeoutMs,
        allowPrivate: hooks.allowPrivateTargets,
        retry: { baseMs: hooks.retryBaseMs, retryForMs: hooks.retryForMs },
        onError: (error, context) => app.log.warn({ err: error }, context),
      })
    : undefined;
  const inFlight = trackResponses(app);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  let stopping: Promise<void> | undefined;
  const stop = ({ graceMs = config.shutdownGraceS * 1000 } = {}) =>
    (stopping ??= (async () => {
      lifecycle.draining = true;
      const deadline = Date.now() + graceMs;
      // Past the grace period, requests still in flight (a stalled body, a slow client) lose their
      // connection: the process must end within what the orchestrator allows before SIGKILL.
      const cut = setTimeout(() => {
        app.log.warn({ inFlight: inFlight.size }, 'shutdown grace period over: closing the connections of requests still in flight');
        app.server.closeAllConnections();
      }, graceMs);
      try {
        // close() stops accepting, closes idle keep-alive connections and waits for the requests in
        // flight; only then is the database released, so those requests still complete.
        const closing = app.close();
        closeAfterResponse(app, inFlight);
        await closing;
        // A CLI command running here (an import) may finish within the grace period; those queued
        // behind it are handed back to their CLI, which says to run them again (nothing was written).
        await management?.close({ waitMs: Math.max(0, deadline - Date.now()) });
      } finally {
        clearTimeout(cut);
      }
      await webhooks?.close();
      await metrics?.close();
      await changes.close();
      await database.close();
    })());
  const shutdown = async ({ drainMs = config.shutdownDrainS * 1000, graceMs = config.shutdownGraceS * 1000 } = {}) => {
    lifecycle.draining = true;
    if (drainMs > 0) {
      app.log.info({ drainS: drainMs / 1000 }, 'draining: readiness answers 503, requests are still served');
      await new Promise((resolve) => setTimeout(resolve, drainMs));
    }
    await stop({ graceMs });
  };
  return { app, database, changes, search, details, webhooks, url: `http://${host}:${port}`, metricsUrl: metrics?.url, lifecycle, stop, shutdown };
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

/**
 * SIGTERM (an orchestrator, a deploy): drain, then stop, then exit 0. SIGINT (Ctrl-C at a terminal):
 * the same without the drain, since no load balancer is waiting to be told. A second signal while
 * shutting down is ignored; the grace period bounds the wait.
 */
export function stopOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, signal === 'SIGTERM' ? 'shutting down: draining, then finishing requests in flight' : 'shutting down: no new connections, finishing requests in flight');
    (signal === 'SIGTERM' ? server.shutdown() : server.stop()).then(
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
