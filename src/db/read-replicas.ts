import {
  Kysely,
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { KyselyReplicationDialect, type ReplicaStrategy } from 'kysely-replication';
import type pg from 'pg';
import { isUnavailable } from './errors.js';
import type { DB } from './schema.js';
import { currentWalLsn, hasReplayed, lsnToBigInt, replayedLsn, type Lsn } from './wal-position.js';

/*
 * Reads on streaming replicas (DATABASE_READ_URL), writes on the primary (DATABASE_URL).
 *
 * Which statement goes where is decided by kysely-replication: every transaction and every
 * INSERT/UPDATE/DELETE/DDL or raw `sql` statement runs on the primary; a SELECT outside a
 * transaction runs on a replica. Code that must see a write committed a moment ago (the API key
 * lookup, whose cache is invalidated when a key changes; an Idempotency-Key replay, which runs inside
 * the application transaction) uses `Database.primary` or a transaction.
 *
 * What this module adds is the part the package leaves to its user: which replica may serve a read.
 * A monitor polls every replica each second for its replay position and compares it with the
 * primary's; a replica that does not answer, or whose data is older than the configured bound, takes
 * no reads, and the reads it would have served go to the primary (bounded staleness, never an error).
 * A read that fails on a replica because the replica went away (or the standby cancelled it to apply
 * WAL) between two polls is run again on the primary at once.
 */

export type ReplicaState = 'up' | 'lagging' | 'down';

export interface ReplicaStatus {
  /** host:port/database, no credentials. */
  name: string;
  /** up: serves reads; lagging: reachable but older than the bound, reads go to the primary; down: unreachable. */
  state: ReplicaState;
  /** WAL bytes the primary has written that this replica has not replayed; null when either is unreachable. */
  lag_bytes: number | null;
  /**
   * How long ago the primary was where this replica is now (0 when caught up): how stale its answers
   * can be, measured on this process's clock at each poll. Null when the primary cannot be asked.
   */
  lag_seconds: number | null;
}

export interface Reader {
  /** Run reads here (a REPEATABLE READ transaction on it gives one consistent snapshot). */
  db: Kysely<DB>;
  /** The replica's name, or 'primary'. */
  source: string;
}

export interface ReadReplicas {
  /** The state of each replica at the last poll, in DATABASE_READ_URL order. */
  status(): ReplicaStatus[];
  /**
   * A server whose data includes everything committed up to `lsn` (see wal-position.ts): the first
   * replica in service that has replayed that far (waiting up to `waitMs` for one), else the primary.
   */
  readerAfter(lsn: Lsn, options?: { waitMs?: number }): Promise<Reader>;
  /** A replica in service (in turn), for a read in one transaction; undefined when none is. */
  replicaInService(): Reader | undefined;
  /** Whether the primary answered the last poll. */
  primaryAnswers(): boolean;
  /** Polls now (tests, start-up) instead of waiting for the next tick. */
  check(): Promise<void>;
}

/** How often the replicas' positions are polled. */
export const REPLICA_POLL_MS = 1_000;
/** Primary positions kept to date a replica's position (at one per poll, 10 minutes). */
const SAMPLES_KEPT = 600;

interface Replica {
  name: string;
  pool: pg.Pool;
  db: Kysely<DB>;
  reachable: boolean;
  lagBytes: number | null;
  lagSeconds: number | null;
}

export interface ReplicatedDatabase {
  /** Reads on replicas, the rest on the primary. */
  db: Kysely<DB>;
  replicas: ReadReplicas;
  /** Stops polling and releases the Kysely instances (the pools are the caller's to end). */
  close(): Promise<void>;
}

/**
 * Wires the routing over pools the caller owns. `primary` is a Kysely instance on the primary pool
 * alone; `dialectFor` makes a PostgreSQL dialect over a pool that must not end it.
 */
export async function replicate(options: {
  primary: Kysely<DB>;
  primaryPool: pg.Pool;
  replicaPools: { name: string; pool: pg.Pool }[];
  dialectFor: (pool: pg.Pool) => Dialect;
  maxLagS: number;
}): Promise<ReplicatedDatabase> {
  const { primary, primaryPool, dialectFor, maxLagS } = options;
  const replicas: Replica[] = options.replicaPools.map(({ name, pool }) => ({
    name,
    pool,
    db: new Kysely<DB>({ dialect: dialectFor(pool) }),
    // Until the first poll says otherwise (it runs before this returns).
    reachable: true,
    lagBytes: null,
    lagSeconds: null,
  }));
  const inService = (replica: Replica) => replica.reachable && (replica.lagSeconds === null || replica.lagSeconds <= maxLagS);
  const markDown = (replica: Replica) => {
    replica.reachable = false;
  };

  const [firstReplica, ...otherReplicas] = replicas.map(
    (replica) => new FallbackDialect(dialectFor(replica.pool), dialectFor(primaryPool), () => inService(replica), () => markDown(replica)),
  );
  if (!firstReplica) throw new Error('replicate: no replica');
  const db = new Kysely<DB>({
    dialect: new KyselyReplicationDialect({
      primaryDialect: dialectFor(primaryPool),
      replicaDialects: [firstReplica, ...otherReplicas],
      replicaStrategy: new InServiceRoundRobin((index) => inService(replicas[index])),
    }),
  });

  // (time, primary position) pairs, newest last: a replica at position P shows everything the primary
  // had written at the newest sample not past P, so its data is at most that old.
  const samples: { at: number; lsn: bigint }[] = [];
  let checking: Promise<void> | undefined;
  let primaryAnswers = true;
  const poll = async () => {
    const now = Date.now();
    const primaryLsn = await currentWalLsn(primary).then(lsnToBigInt, () => undefined);
    primaryAnswers = primaryLsn !== undefined;
    if (primaryLsn !== undefined) {
      samples.push({ at: now, lsn: primaryLsn });
      if (samples.length > SAMPLES_KEPT) samples.shift();
    }
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          // A server not in recovery (the primary itself given as a read URL) is as current as it gets.
          const lsn = await replayedLsn(replica.db);
          replica.reachable = true;
          const replayed = lsn === null ? undefined : lsnToBigInt(lsn);
          if (primaryLsn === undefined || replayed === undefined) {
            replica.lagBytes = replica.lagSeconds = null;
            return;
          }
          replica.lagBytes = primaryLsn > replayed ? Number(primaryLsn - replayed) : 0;
          if (replica.lagBytes === 0) replica.lagSeconds = 0;
          else {
            let dated = samples[0];
            for (let i = samples.length - 1; i >= 0; i--) {
              if (samples[i].lsn <= replayed) {
                dated = samples[i];
                break;
              }
            }
            replica.lagSeconds = Math.round(now - dated.at) / 1000;
          }
        } catch {
          markDown(replica);
          replica.lagBytes = replica.lagSeconds = null;
        }
      }),
    );
  };
  const check = () => (checking ??= poll().finally(() => (checking = undefined)));
  await check();
  // A poll still running (an unreachable host waits for the connect timeout) is not started twice.
  const timer = setInterval(() => void check(), REPLICA_POLL_MS);
  timer.unref();

  const status = (): ReplicaStatus[] =>
    replicas.map((replica) => ({
      name: replica.name,
      state: !replica.reachable ? 'down' : inService(replica) ? 'up' : 'lagging',
      lag_bytes: replica.lagBytes,
      lag_seconds: replica.lagSeconds,
    }));

  const readerAfter = async (lsn: Lsn, { waitMs = 0 } = {}): Promise<Reader> => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      for (const replica of replicas) {
        if (!inService(replica)) continue;
        const replayed = await hasReplayed(replica.db, lsn).catch(() => false);
        if (replayed) return { db: replica.db, source: replica.name };
      }
      if (Date.now() >= deadline) return { db: primary, source: 'primary' };
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(1, deadline - Date.now()))));
    }
  };

  let turn = 0;
  const replicaInService = (): Reader | undefined => {
    for (let k = 0; k < replicas.length; k++) {
      const replica = replicas[(turn + k) % replicas.length];
      if (!inService(replica)) continue;
      turn = (turn + k + 1) % replicas.length;
      return { db: replica.db, source: replica.name };
    }
    return undefined;
  };

  return {
    db,
    replicas: { status, readerAfter, replicaInService, check, primaryAnswers: () => primaryAnswers },
    async close() {
      clearInterval(timer);
      await checking;
      await Promise.all([db.destroy(), ...replicas.map((replica) => replica.db.destroy())]);
    },
  };
}

/** Round robin over the replicas in service; when none is, any (its FallbackDialect reads from the primary). */
class InServiceRoundRobin implements ReplicaStrategy {
  readonly onTransaction = 'error' as const;
  #last = -1;

  constructor(private readonly inService: (index: number) => boolean) {}

  async next(count: number): Promise<number> {
    for (let step = 1; step <= count; step++) {
      const index = (this.#last + step) % count;
      if (this.inService(index)) return (this.#last = index);
    }
    return (this.#last = (this.#last + 1) % count);
  }
}

/**
 * A replica's dialect that reads from the primary instead when the replica is out of service, or
 * when a read on it fails because the replica cannot serve it: unreachable or gone mid-query, or
 * 40001 (a hot standby cancels a query that conflicts with the WAL it must apply). Only reads come
 * here (kysely-replication sends transactions and writes to the primary), so running one again is safe.
 */
class FallbackDialect implements Dialect {
  constructor(
    private readonly replica: Dialect,
    private readonly primary: Dialect,
    private readonly inService: () => boolean,
    private readonly markDown: () => void,
  ) {}

  createDriver(): Driver {
    return new FallbackDriver(this.replica.createDriver(), this.primary.createDriver(), this.inService, this.markDown);
  }
  createAdapter() {
    return this.replica.createAdapter();
  }
  createQueryCompiler() {
    return this.replica.createQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return this.replica.createIntrospector(db);
  }
}

class FallbackDriver implements Driver {
  constructor(
    private readonly replica: Driver,
    readonly primary: Driver,
    private readonly inService: () => boolean,
    private readonly markDown: () => void,
  ) {}

  async init(): Promise<void> {
    await Promise.all([this.replica.init(), this.primary.init()]);
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new FallbackConnection(this);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as FallbackConnection).release();
  }
  async beginTransaction(): Promise<void> {
    throw new Error('read replicas take no transactions');
  }
  async commitTransaction(): Promise<void> {
    throw new Error('read replicas take no transactions');
  }
  async rollbackTransaction(): Promise<void> {
    throw new Error('read replicas take no transactions');
  }
  async destroy(): Promise<void> {
    await Promise.all([this.replica.destroy(), this.primary.destroy()]);
  }

  /** A connection to the replica when it is in service and reachable, else to the primary. */
  async connect(useReplica: boolean): Promise<{ driver: Driver; connection: DatabaseConnection }> {
    if (useReplica && this.inService()) {
      try {
        return { driver: this.replica, connection: await this.replica.acquireConnection() };
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        this.markDown();
      }
    }
    return { driver: this.primary, connection: await this.primary.acquireConnection() };
  }

  /** Whether a failed read may be run again on the primary (see FallbackDialect). */
  retryOnPrimary(error: unknown): boolean {
    if (isUnavailable(error)) {
      this.markDown();
      return true;
    }
    return (error as { code?: unknown } | null)?.code === '40001';
  }
}

class FallbackConnection implements DatabaseConnection {
  #held: { driver: Driver; connection: DatabaseConnection } | undefined;

  constructor(private readonly fallback: FallbackDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.#held ??= await this.fallback.connect(true);
    const { driver, connection } = this.#held;
    try {
      return await connection.executeQuery<R>(query);
    } catch (error) {
      if (driver === this.fallback.primary || !this.fallback.retryOnPrimary(error)) throw error;
      await this.release();
      this.#held = await this.fallback.connect(false);
      return this.#held.connection.executeQuery<R>(query);
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    this.#held ??= await this.fallback.connect(true);
    yield* this.#held.connection.streamQuery<R>(query, chunkSize);
  }

  async release(): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    if (held) await held.driver.releaseConnection(held.connection);
  }
}
