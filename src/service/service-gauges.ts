import { Gauge, Registry } from 'prom-client';
import type { ChangeSignal } from '../changes/change-signal.js';
import type { Database } from '../db/database.js';
import type { SearchModel } from '../search/search-model.js';
import type { Snapshot } from '../search/snapshot.js';
import type { QueueStats } from '../queries/webhook-deliveries.js';
import { createQueueProbe } from '../webhooks/queue-probe.js';

/** The detail caches as the gauges read them (src/details/detail-caches.ts: DetailCaches; http sits above metrics). */
export interface DetailCacheSizes {
  /** Each cache's bound in bytes, by cache name. */
  bounds: Readonly<Record<string, number>>;
  /** Bytes each cache keeps for a snapshot, by the same names. */
  keptBytes(snapshot: Snapshot): Readonly<Record<string, number>>;
}

/** A detail cache's label value, in the metrics' snake case: nearbyFull -> nearby_full. */
export const detailCacheLabel = (cache: string): string => cache.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** What the gauges read, at each scrape, from one running server. */
export interface ServiceState {
  database: Database;
  search: SearchModel;
  changes?: ChangeSignal;
  /** What the detail routes keep per snapshot (within DETAIL_CACHE_MB). */
  details?: DetailCacheSizes;
  /** True from SIGTERM on (the drain: /health/ready answers 503). */
  shuttingDown(): boolean;
}

/*
 * Gauges of one running server's state, read when Prometheus scrapes (collect callbacks), so nothing
 * is updated on the request path. They live in a registry of their own, merged with the process's
 * instruments (./instruments.ts) by the metrics listener; a test process that runs several servers
 * therefore gets each one's gauges from its own listener.
 */
export function serviceGauges(state: ServiceState): Registry {
  const registry = new Registry();
  const registers = [registry];
  const { database, search, changes, details } = state;

  new Gauge({
    name: 'catalogue_search_snapshot_generation',
    help: 'Search snapshots built by this process so far (1 after start-up); grows by one with every rebuild.',
    registers,
    collect() {
      this.set(search.current().generation);
    },
  });
  new Gauge({
    name: 'catalogue_search_snapshot_catalogue_version',
    help: 'The catalogue version held by the search snapshot in service.',
    registers,
    collect() {
      this.set(search.current().catalogueVersion);
    },
  });
  new Gauge({
    name: 'catalogue_catalogue_version',
    help: 'The newest catalogue version this process has been signalled; ahead of the snapshot\'s while a rebuild runs.',
    registers,
    collect() {
      this.set(changes?.catalogueVersion ?? search.current().catalogueVersion);
    },
  });
  new Gauge({
    name: 'catalogue_search_snapshot_age_seconds',
    help: 'Seconds since the search snapshot in service was built (it is rebuilt on catalogue changes only, so a quiet catalogue makes it old; alert on it only together with a version behind).',
    registers,
    collect() {
      this.set((Date.now() - search.current().builtAt.getTime()) / 1000);
    },
  });
  new Gauge({
    name: 'catalogue_search_snapshot_last_build_duration_seconds',
    help: 'How long building the search snapshot in service took.',
    registers,
    collect() {
      this.set(search.current().buildMs / 1000);
    },
  });

  const pools = () => database.pools();
  new Gauge({
    name: 'catalogue_db_pool_connections',
    help: 'Connections each database pool may open (pool: primary, a replica, or embedded).',
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset();
      for (const use of pools()) this.set({ pool: use.pool }, use.size);
    },
  });
  new Gauge({
    name: 'catalogue_db_pool_connections_in_use',
    help: 'Connections of each pool checked out by a query or transaction.',
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset();
      for (const use of pools()) this.set({ pool: use.pool }, use.inUse);
    },
  });
  new Gauge({
    name: 'catalogue_db_pool_waiting_requests',
    help: 'Queries waiting for a connection of each pool (the embedded engine: queued behind the one running).',
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset();
      for (const use of pools()) this.set({ pool: use.pool }, use.waiting);
    },
  });

  if (database.replicas) {
    const replicas = database.replicas;
    new Gauge({
      name: 'catalogue_db_primary_up',
      help: '1 when the primary answered the last replica poll (each second), else 0 (reads go to the replicas, writes answer 503).',
      registers,
      collect() {
        this.set(replicas.primaryAnswers() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'catalogue_db_replica_state',
      help: 'Each read replica\'s state as of the last poll: 1 for its current state (up, lagging, down), 0 for the others.',
      labelNames: ['replica', 'state'],
      registers,
      collect() {
        for (const replica of replicas.status()) {
          for (const state of ['up', 'lagging', 'down'] as const) this.set({ replica: replica.name, state }, replica.state === state ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'catalogue_db_replica_lag_seconds',
      help: 'How long ago the primary was at the position each replica has replayed (0: caught up). Absent while unknown (primary or replica not answering).',
      labelNames: ['replica'],
      registers,
      collect() {
        this.reset();
        for (const replica of replicas.status()) if (replica.lag_seconds !== null) this.set({ replica: replica.name }, replica.lag_seconds);
      },
    });
    new Gauge({
      name: 'catalogue_db_replica_lag_bytes',
      help: 'WAL bytes written on the primary and not yet replayed by each replica. Absent while unknown.',
      labelNames: ['replica'],
      registers,
      collect() {
        this.reset();
        for (const replica of replicas.status()) if (replica.lag_bytes !== null) this.set({ replica: replica.name }, replica.lag_bytes);
      },
    });
  }

  if (details) {
    const caches = Object.keys(details.bounds);
    const label = detailCacheLabel;
    new Gauge({
      name: 'catalogue_detail_cache_bytes',
      help: 'Bytes each detail cache keeps for the search snapshot in service, as counted against its share of DETAIL_CACHE_MB (catalogue_detail_cache_limit_bytes); a new snapshot starts at 0.',
      labelNames: ['cache'],
      registers,
      collect() {
        const kept = details.keptBytes(search.current());
        for (const cache of caches) this.set({ cache: label(cache) }, kept[cache]);
      },
    });
    new Gauge({
      name: 'catalogue_detail_cache_limit_bytes',
      help: 'Each detail cache\'s bound: its share of DETAIL_CACHE_MB.',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const cache of caches) this.set({ cache: label(cache) }, details.bounds[cache]);
      },
    });
  }

  if (changes) {
    new Gauge({
      name: 'catalogue_change_signal_listening',
      help: '1 while committed changes reach this process at once; 0 while the listening connection is being re-established (key lookups then bypass the cache).',
      registers,
      collect() {
        this.set(changes.listening ? 1 : 0);
      },
    });
  }

  // The webhook queue, shared by every process of the deployment (each one's endpoint shows it): read
  // as /health reads it, one indexed count, the last figures when the database is busy.
  const webhookQueue = createQueueProbe(database.primary);
  const webhookGauges: [name: string, help: string, read: (stats: QueueStats) => number][] = [
    ['catalogue_webhook_deliveries_pending', 'Webhook deliveries waiting for an enabled endpoint: due now, being attempted, or waiting for a retry.', (stats) => stats.pending],
    ['catalogue_webhook_deliveries_held', 'Webhook deliveries kept for disabled endpoints (sent once the endpoint is enabled again).', (stats) => stats.held],
    [
      'catalogue_webhook_oldest_pending_age_seconds',
      'Seconds since the oldest pending webhook delivery was queued (0: none). Growing steadily: an endpoint is failing, or no process delivers (WEBHOOK_WORKER).',
      (stats) => stats.oldest_pending_age_s ?? 0,
    ],
  ];
  for (const [name, help, read] of webhookGauges) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const stats = await webhookQueue();
        if (stats) this.set(read(stats));
      },
    });
  }

  new Gauge({
    name: 'catalogue_shutting_down',
    help: '1 from SIGTERM on: the process drains (readiness 503) and then stops.',
    registers,
    collect() {
      this.set(state.shuttingDown() ? 1 : 0);
    },
  });
  return registry;
}
