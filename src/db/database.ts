import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.js';
import { SupervisedPGlite, type EngineEvent } from './pglite-engine.js';
import { isUnavailable } from './errors.js';
import { listenOnPostgres, type ListenHandlers, type Listener } from './postgres-listener.js';
import { namePreparedStatements, StatementNames } from './prepared-statements.js';
import { noteServedBy, type ServerRole } from './served-by.js';
import { replicate, type ReadReplicas, type Reader } from './read-replicas.js';
import type { DB } from './schema.js';
import { currentWalLsn } from './wal-position.js';
import { textParsers } from './type-parsers.mjs';

export type Driver = 'pglite' | 'postgres';

export interface Database {
  /** Where queries go: with read replicas, reads outside a transaction on a replica, the rest on the primary. */
  db: Kysely<DB>;
  /**
   * The primary alone, for reads that must see a write committed a moment ago (a replica may not have
   * replayed it yet). The same instance as `db` without read replicas.
   */
  primary: Kysely<DB>;
  /** DATABASE_READ_URL's replicas; undefined without. */
  replicas?: ReadReplicas;
  driver: Driver;
  /** Connections that can be in use at once (1 for PGlite, which has a single one). */
  poolSize: number;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /** Each connection pool's use right now (metrics: src/service/service-gauges.ts). */
  pools(): PoolUse[];
  /**
   * Notifications on `channel` (src/changes/change-signal.ts). PostgreSQL: a connection of its own,
   * re-established when lost (`down`, then `up` again); PGlite: the process's own database, always up.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Listener>;
  close(): Promise<void>;
}

export interface PoolUse {
  /** `primary`, a replica's host:port/database, or `embedded`. */
  pool: string;
  /** Connections the pool may open. */
  size: number;
  /** Connections checked out by a query or transaction. */
  inUse: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** PGlite data directory; `memory://` keeps everything in memory. */
  dataDir?: string;
  /** PGlite only: start from a tarball made by `dumpDataDir` (tests clone a migrated template this way). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PostgreSQL streaming replicas of `databaseUrl` that serve reads (see read-replicas.ts). */
  readUrls?: string[];
  /** Seconds of lag past which a replica takes no reads (they go to the primary). */
  readMaxLagS?: number;
  /** PGlite only: the engine failed, cannot be reopened yet, or is reopened (for the log). */
  onEngineEvent?: (event: EngineEvent) => void;
  /**
   * PostgreSQL only: how long a query may go unanswered before the client gives up (default
   * QUERY_TIMEOUT_MS, for the service's requests); null: no limit, for the CLI's imports, whose
   * facility-link rebuild of a large catalogue takes longer (20,000 projects: over 30 s).
   */
  queryTimeoutMs?: number | null;
}

/** A query of the service unanswered for this long fails (503) rather than holding its request. */
export const QUERY_TIMEOUT_MS = 30_000;

/** How long a request may wait for a PostgreSQL connection (new or from the pool). */
export const CONNECT_TIMEOUT_MS = 3_000;
/** The healthcheck reports the database down when SELECT 1 takes longer than this. */
export const PING_TIMEOUT_MS = 2_000;
/** application_name of the probes' connection (pg_stat_activity tells it from the request pool's). */
export const PROBE_APPLICATION_NAME = 'catalogue-probe';

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const queryTimeoutMs = options.queryTimeoutMs === undefined ? QUERY_TIMEOUT_MS : (options.queryTimeoutMs ?? undefined);
    return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.readUrls ?? [], options.readMaxLagS ?? DEFAULT_READ_MAX_LAG_S, queryTimeoutMs);
  }
  return openPglite(options.dataDir ?? './data', options.loadDataDir, options.onEngineEvent);
}

/** Default bound of a replica's lag (DATABASE_READ_MAX_LAG_S). */
export const DEFAULT_READ_MAX_LAG_S = 5;

async function openPostgres(connectionString: string, max: number, readUrls: string[], readMaxLagS: number, queryTimeoutMs: number | undefined): Promise<Database> {
  const pool = createPool(connectionString, max, 'primary', queryTimeoutMs);
  const primary = new Kysely<DB>({ dialect: dialectFor(pool) });
  /*
   * The probes' own connection to the primary, outside the request pool: under load the pool's
   * connections are all busy and requests queue for them (up to CONNECT_TIMEOUT_MS), and a SELECT 1
   * queued behind them measured the queue, not the database. The readiness probe then failed on a
   * busy but healthy instance (a load balancer took it out with its peer shutting down: both out),
   * which the rolling-restart test saw as 503s before any SIGTERM. One connection, opened on first
   * use and kept; a probe waiting for it waits only behind another probe.
   */
  const probePool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: PING_TIMEOUT_MS, keepAlive: true, application_name: PROBE_APPLICATION_NAME });
  probePool.on('error', () => {});
  probePool.on('connect', (client) => client.on('error', () => {}));
  const probe = new Kysely<DB>({ dialect: new PostgresDialect({ pool: probePool }) });
  // Each replica gets a pool of the same size: a replica takes the reads a primary would otherwise serve.
  const replicaPools = readUrls.map((url) => ({ name: serverName(url), pool: createPool(url, max, 'replica', queryTimeoutMs) }));
  const base = {
    primary,
    driver: 'postgres' as const,
    poolSize: max,
    ping: () => ping(probe),
    pools: () => [poolUse('primary', pool, max), ...replicaPools.map((replica) => poolUse(replica.name, replica.pool, max))],
    // On the primary: a standby takes no LISTEN, and the notifications are sent at commit there.
    listen: async (channel: string, handlers: ListenHandlers) => listenOnPostgres(connectionString, channel, handlers),
  };
  if (readUrls.length === 0) return { ...base, db: primary, close: () => primary.destroy().finally(() => Promise.all([pool.end(), probe.destroy()])).then(() => {}) };
  const pools = [pool, ...replicaPools.map((replica) => replica.pool)];
  const endPools = () => Promise.all(pools.map((p) => p.end())).then(() => {});
  try {
    const replicated = await replicate({ primary, primaryPool: pool, replicaPools, dialectFor, maxLagS: readMaxLagS });
    return {
      ...base,
      db: replicated.db,
      replicas: replicated.replicas,
      close: () => replicated.close().then(() => primary.destroy()).finally(() => Promise.all([endPools(), probe.destroy()])).then(() => {}),
    };
  } catch (error) {
    await primary.destroy().finally(() => Promise.all([endPools(), probe.destroy()]));
    throw error;
  }
}

function poolUse(name: string, pool: pg.Pool, size: number): PoolUse {
  return { pool: name, size, inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount };
}

/*
 * Kysely over a pool it does not own: several Kysely instances share one pool (the primary's serves
 * the routed instance and `primary`), so none may end it; the Database ends its pools itself.
 */
function dialectFor(pool: pg.Pool): PostgresDialect {
  const role = poolRoles.get(pool);
  return new PostgresDialect({
    pool: {
      connect: () => {
        if (role) noteServedBy(role);
        return pool.connect();
      },
      end: async () => {},
    },
  });
}

/** Which server each pool connects to, for the request log (served-by.ts). */
const poolRoles = new WeakMap<pg.Pool, ServerRole>();

/** host:port/database of a connection string, without credentials (for health and logs). */
function serverName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

function createPool(connectionString: string, max: number, role: ServerRole, queryTimeoutMs: number | undefined): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Bounds both opening a connection and waiting for a free one in the pool: with the server gone
    // (or the pool exhausted for this long) a request fails within this time and is answered 503.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Fail fast rather than queue forever when the server stops answering on an open connection.
    query_timeout: queryTimeoutMs,
    // Detects a dead peer on idle pooled connections without waiting for the next query.
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  poolRoles.set(pool, role);
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const statementNames = new StatementNames();
  pool.on('connect', (client) => {
    // pg-pool listens for errors only while a client is idle. A client checked out by a request also
    // emits 'error' when its socket dies (besides failing the query in progress, which is how the
    // request learns of it): without a listener that event would be an uncaught exception and take
    // the whole process down. The broken client is dropped from the pool when it is released.
    client.on('error', () => {});
    // No parallel workers: with many requests at once they only add start-up cost per query.
    // No JIT: a plan whose estimated cost passes jit_above_cost is compiled first, which costs far more
    // than these queries run (docs/performance.md, "No parallel query, no JIT").
    client.query(`SET TIME ZONE 'UTC'; SET max_parallel_workers_per_gather = 0; SET jit = off`).catch(() => {});
    namePreparedStatements(client, statementNames);
  });
  return pool;
}

async function openPglite(dataDir: string, loadDataDir?: Blob, onEvent?: (event: EngineEvent) => void): Promise<Database> {
  const inMemory = dataDir === 'memory://';
  // One process per directory (data-dir-lock.ts); refused with DataDirInUseError before anything is read.
  const lock = inMemory ? undefined : lockDataDir(dataDir);
  let client: SupervisedPGlite;
  try {
    // In a worker thread (pglite-client.ts), so that a query does not stop HTTP handling; reopened
    // when a PANIC leaves it unusable (pglite-engine.ts).
    client = await SupervisedPGlite.open({ dataDir: inMemory ? undefined : dataDir, loadDataDir, onEvent });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client as unknown as ConstructorParameters<typeof PGliteDialect>[0]) });
  return {
    db,
    primary: db,
    driver: 'pglite',
    poolSize: 1,
    // Not SELECT 1: the embedded engine runs one transaction at a time, so during an import (a minute
    // on L) SELECT 1 would wait for it and the health check would call a busy database down, and a
    // load balancer take the instance out. Down is an engine that is gone (closed, crashed, or
    // broken by a PANIC and not reopened yet).
    ping: async () => client.usable,
    // One connection; queries beyond the one running wait in the worker's queue.
    pools: () => [{ pool: 'embedded', size: 1, inUse: Math.min(1, client.pendingQueries), waiting: Math.max(0, client.pendingQueries - 1) }],
    async listen(channel, handlers) {
      const stop = await client.listen(channel, handlers);
      handlers.up();
      return { close: async () => stop() };
    },
    async close() {
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}

/**
 * A read that must see writes committed a moment ago: on the primary. When the primary cannot be
 * reached and replicas serve reads, on them instead: nothing can be committed while the primary is
 * down, so a replica in service (at most DATABASE_READ_MAX_LAG_S behind) is the freshest answer there
 * is, and better than none (reads keep working through a primary outage).
 */
export async function readPrimaryFirst<T>(database: Database, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const { replicas } = database;
  // Known down at the last poll (each second): straight to the replicas, rather than each read waiting
  // for the connect timeout (3 s) of a primary that vanished without refusing connections.
  if (replicas && !replicas.primaryAnswers()) return read(database.db);
  try {
    return await read(database.primary);
  } catch (error) {
    if (!replicas || !isUnavailable(error)) throw error;
    return read(database.db);
  }
}

/**
 * A read of the catalogue in one REPEATABLE READ transaction (one consistent picture, no writes), on a
 * replica in service, else the primary; a replica that fails it (gone between two polls) hands it to
 * the primary. The routed `db` sends every transaction to the primary (kysely-replication), which
 * would take such reads (GET /projects/{id}'s detail at its snapshot's version) off the replicas.
 */
export async function readConsistently<T>(database: Database, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const replica = database.replicas?.replicaInService();
  if (!replica) return read(database.primary);
  try {
    return await read(replica.db);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    return read(database.primary);
  }
}

/**
 * Where to rebuild what a process derives from the catalogue after a change signal (a read model): a
 * server showing every commit made before this call. That is a replica once it has replayed the
 * primary's current WAL position (waiting up to `waitMs` for one), else the primary; never a replica
 * that would still show the catalogue from before the change. Read in one REPEATABLE READ
 * transaction on it, so that the rebuild sees one snapshot.
 */
export async function readerAfterLatestCommit(database: Database, { waitMs = 1_000 } = {}): Promise<Reader> {
  if (!database.replicas) return { db: database.primary, source: 'primary' };
  return database.replicas.readerAfter(await currentWalLsn(database.primary), { waitMs });
}

async function ping(db: Kysely<DB>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  // A half-open connection would only fail at query_timeout; a healthcheck must answer sooner.
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  const query = sql`SELECT 1`.execute(db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
