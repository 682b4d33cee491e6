import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase, readerAfterLatestCommit, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { currentWalLsn, hasReplayed } from '../../src/db/wal-position.js';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/queries/api-key-admin.js';
import { startServer, type RunningServer } from '../../src/service/server.js';
import { crmCounts } from '../helpers/crm-counts.js';
import type { Change } from '../../src/changes/change-kinds.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from '../helpers/fixtures.js';
import { replicaClusterUnavailable, startReplicaCluster, type ReplicaCluster } from '../helpers/replica-cluster.js';

/*
 * The service on a real primary and a real streaming replica (test/helpers/replica-cluster.ts), as
 * two API processes' worth of servers listening on their own ports, sharing Redis.
 *
 * How reads are proven to come from the replica: the replica's replay is paused
 * (pg_wal_replay_pause), a row is changed on the primary, and the API answers with the old value,
 * which only the replica still has. Every test leaves replay running.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROJECT = 100;
const UNIT = 1000;
const RATE_LIMIT = 20;
const unavailable = replicaClusterUnavailable();

function catalogue() {
  return withRecords(baseBundle(), {
    projects: [{ id: PROJECT, company_id: DEV, name: 'Marina Heights', area_id: 1, type: 3, currency: 'AED' }],
    units: [{ id: UNIT, project_id: PROJECT, unit_number: 'A-101', price: 1_000_000 }],
  });
}

describe.skipIf(unavailable)(`read replicas, several API processes${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let cluster: ReplicaCluster;
  /** The primary alone, for setting up and checking what was written. */
  let admin: Database;
  /** A session on the replica, to pause and resume its replay. */
  let replica: pg.Client;
  /** Two API processes: `a` tolerates a minute of lag, `b` one second. */
  let a: RunningServer;
  let b: RunningServer;
  const keyPrefix = `catalogue-test:${randomUUID()}:`;

  const createKey = () => createApiKey(admin.primary, { companyId: AGENCY, authorId: OWNER, name: 'scale-out' });
  const newKey = async () => (await createKey()).secret;

  /** Until the replica shows everything committed on the primary so far. */
  async function replicaCaughtUp(): Promise<void> {
    const lsn = await currentWalLsn(admin.primary);
    const onReplica = await openDatabase({ databaseUrl: cluster.replicaUrl, poolSize: 1 });
    try {
      for (let attempt = 0; attempt < 200; attempt++) {
        if (await hasReplayed(onReplica.primary, lsn)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the replica did not replay up to ${lsn} within 10 s`);
    } finally {
      await onReplica.close();
    }
  }

  async function replicaSession(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: cluster.replicaUrl });
    // The session ends when a test stops the replica; that must not be an uncaught error.
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  /** Until the replica has stopped replaying (the pause is only requested at first). */
  const pauseReplay = async () => {
    await replica.query('SELECT pg_wal_replay_pause()');
    await until('replay paused', async () => {
      const { rows } = await replica.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state');
      return rows[0].state === 'paused' ? true : undefined;
    });
  };
  const resumeReplay = async () => {
    await replica.query('SELECT pg_wal_replay_resume()');
    await replicaCaughtUp();
  };
  const renameProject = (name: string) => sql`UPDATE projects SET name = ${name} WHERE id = ${PROJECT}`.execute(admin.primary);

  const get = (server: RunningServer, path: string, key?: string) => fetch(`${server.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
  const projectName = async (server: RunningServer, key: string) => {
    const res = await get(server, `/projects/${PROJECT}`, key);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { name: string } }).data.name;
  };
  const apply = (server: RunningServer, key: string, body: unknown, idempotencyKey?: string) =>
    fetch(`${server.url}/units/${UNIT}/applications`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...(idempotencyKey && { 'idempotency-key': idempotencyKey }) },
      body: JSON.stringify(body),
    });
  type Health = { data: { database: string; catalogue_version: number; change_signal: string; replicas: { name: string; state: string; lag_bytes: number | null; lag_seconds: number | null }[] } };
  const health = async (server: RunningServer) => {
    const res = await get(server, '/health');
    return { status: res.status, body: (await res.json()) as Health };
  };
  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // Keys are remembered 10 minutes: only a change signal can explain a change seen at once.
  const serve = (maxLagS: string) =>
    startServer(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATABASE_URL: cluster.primaryUrl,
        DATABASE_READ_URL: cluster.replicaUrl,
        DATABASE_READ_MAX_LAG_S: maxLagS,
        RATE_LIMIT: String(RATE_LIMIT),
        REDIS_URL,
        REDIS_KEY_PREFIX: keyPrefix,
        METRICS_PORT: '0',
      }),
      { keyCacheTtlMs: 600_000 },
    );

  beforeAll(async () => {
    cluster = await startReplicaCluster();
    admin = await openDatabase({ databaseUrl: cluster.primaryUrl, poolSize: 2 });
    await migrateToLatest(admin.primary);
    await importBundle(admin.primary, catalogue(), { facilityLinkRadiusM: 10_000 });
    replica = await replicaSession();
    await replicaCaughtUp();
    a = await serve('60');
    b = await serve('1');
  });

  afterAll(async () => {
    await replica?.query('SELECT pg_wal_replay_resume()').catch(() => {});
    await Promise.allSettled([a?.stop(), b?.stop(), replica?.end(), admin?.close()]);
    await cluster?.destroy();
  });

  it('serves catalogue reads from the replica', async () => {
    const key = await newKey();
    await replicaCaughtUp();
    expect(await projectName(a, key)).toBe('Marina Heights');
    await pauseReplay();
    try {
      await renameProject('Marina Heights II');
      // Only the replica still has the old name.
      expect(await projectName(a, key)).toBe('Marina Heights');
    } finally {
      await resumeReplay();
    }
    expect(await projectName(a, key)).toBe('Marina Heights II');
  });

  it('looks keys up on the primary: a key created a moment ago works before the replica has it', async () => {
    await pauseReplay();
    try {
      const key = await newKey();
      const res = await get(a, '/whoIAm', key);
      expect(res.status).toBe(200);
    } finally {
      await resumeReplay();
    }
  });

  it('commits applications on the primary, and replays an Idempotency-Key from it', async () => {
    const key = await newKey();
    await replicaCaughtUp();
    await pauseReplay();
    try {
      const before = await crmCounts(admin.primary);
      const body = { client: { first_name: 'Lina', email: `lina.${randomUUID()}@example.com` } };
      const idempotencyKey = randomUUID();
      const first = await apply(a, key, body, idempotencyKey);
      expect(first.status).toBe(201);
      const created = (await first.json()) as { data: { opportunity: { id: number }; offer: { id: number } } };
      const after = await crmCounts(admin.primary);
      expect(after.opportunities).toBe(before.opportunities + 1);
      expect(after.offers).toBe(before.offers + 1);
      // The replica has not seen it (replay is paused), yet the other process replays the stored response.
      const { rows } = await replica.query('SELECT count(*)::int AS n FROM opportunities WHERE id = $1', [created.data.opportunity.id]);
      expect(rows[0].n).toBe(0);
      const replayed = await apply(b, key, body, idempotencyKey);
      expect(replayed.status).toBe(201);
      expect(((await replayed.json()) as typeof created).data.offer.id).toBe(created.data.offer.id);
      expect(await crmCounts(admin.primary)).toEqual(after);
    } finally {
      await resumeReplay();
    }
  });

  it('sends reads of a lagging replica to the primary and reports the lag in health', async () => {
    const key = await newKey();
    await replicaCaughtUp();
    // As of the monitor's next poll (each second): an earlier test's pause may still show until then.
    const healthy = await until('the replica caught up in health', async () => {
      const { status, body } = await health(b);
      return status === 200 && body.data.replicas[0].lag_bytes === 0 ? body : undefined;
    });
    expect(healthy.data.database).toBe('up');
    expect(healthy.data.replicas).toEqual([expect.objectContaining({ state: 'up', lag_bytes: 0, lag_seconds: 0 })]);
    await pauseReplay();
    try {
      await renameProject('Marina Heights III');
      // b's bound is 1 s: once the replica is that far behind, its reads come from the primary.
      const lagging = await until('the replica reported lagging', async () => {
        const { status, body } = await health(b);
        expect(status).toBe(200);
        return body.data.replicas[0].state === 'lagging' ? body.data.replicas[0] : undefined;
      });
      expect(lagging.lag_bytes).toBeGreaterThan(0);
      expect(lagging.lag_seconds).toBeGreaterThan(1);
      // The metrics say the same as health (both read the monitor's last poll).
      const exposition = await (await fetch(b.metricsUrl!)).text();
      const sample = (name: string, labels: string) => Number(new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\S+)$`, 'm').exec(exposition)?.[1]);
      expect(sample('catalogue_db_replica_state', 'state="lagging"')).toBe(1);
      expect(sample('catalogue_db_replica_state', 'state="up"')).toBe(0);
      expect(sample('catalogue_db_replica_lag_seconds', 'replica=')).toBeGreaterThan(1);
      expect(sample('catalogue_db_replica_lag_bytes', 'replica=')).toBeGreaterThan(0);
      expect(exposition).toMatch(/^catalogue_db_primary_up 1$/m);
      expect(await projectName(b, key)).toBe('Marina Heights III');
      // a tolerates a minute: still the replica, still the old name, never an error.
      expect((await health(a)).body.data.replicas[0].state).toBe('up');
      expect(await projectName(a, key)).toBe('Marina Heights II');
    } finally {
      await resumeReplay();
    }
    await until('the replica back in service', async () => ((await health(b)).body.data.replicas[0].state === 'up' ? true : undefined));
    expect(await projectName(a, key)).toBe('Marina Heights III');
  });

  it('names a replica for reads after a commit only once it has replayed that commit, else the primary', async () => {
    await replicaCaughtUp();
    await pauseReplay();
    let lsn: string;
    try {
      await renameProject('Marina Heights III');
      lsn = await currentWalLsn(admin.primary);
      expect((await a.database.replicas!.readerAfter(lsn, { waitMs: 300 })).source).toBe('primary');
    } finally {
      await replica.query('SELECT pg_wal_replay_resume()');
    }
    const reader = await a.database.replicas!.readerAfter(lsn, { waitMs: 10_000 });
    expect(reader.source).toBe(a.database.replicas!.status()[0].name);
    // One consistent snapshot on the replica, as a read-model rebuild takes it.
    const name = await reader.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => trx.selectFrom('projects').select('name').where('id', '=', PROJECT).executeTakeFirstOrThrow());
    expect(name.name).toBe('Marina Heights III');
  });

  it('keeps reads answering when the replica stops, from the primary', async () => {
    const key = await newKey();
    await cluster.stopReplica();
    try {
      // Before and after the monitor notices: a read that fails on the replica is run on the primary.
      expect(await projectName(a, key)).toBe('Marina Heights III');
      const down = await until('the replica reported down', async () => {
        const { body } = await health(a);
        return body.data.replicas[0].state === 'down' ? body : undefined;
      });
      expect(down.data.database).toBe('up');
      expect(await projectName(a, key)).toBe('Marina Heights III');
    } finally {
      await cluster.startReplica();
      await replica.end().catch(() => {});
      replica = await replicaSession();
    }
    await until('the replica back in service', async () => ((await health(a)).body.data.replicas[0].state === 'up' ? true : undefined));
  });

  it('shows a change committed elsewhere on both API processes within a second', async () => {
    const { secret, key } = await createKey();
    for (const server of [a, b]) expect((await get(server, '/whoIAm', secret)).status).toBe(200);
    const versions = await Promise.all([a, b].map(async (server) => (await health(server)).body.data.catalogue_version));
    expect(versions[0]).toBe(versions[1]);

    // Revoked on the primary: both processes had the key cached (for 10 minutes), the signal drops it.
    const revokedAt = Date.now();
    await sql`UPDATE api_keys SET status = 1 WHERE id = ${key.id}`.execute(admin.primary);
    for (const server of [a, b]) {
      await until('the revoked key refused', async () => ((await get(server, '/whoIAm', secret)).status === 401 ? true : undefined));
    }
    expect(Date.now() - revokedAt).toBeLessThan(1_000);

    const changedAt = Date.now();
    await renameProject('Marina Heights IV');
    for (const server of [a, b]) {
      await until('the new catalogue version', async () => ((await health(server)).body.data.catalogue_version === versions[0] + 1 ? true : undefined));
    }
    expect(Date.now() - changedAt).toBeLessThan(1_000);
  });

  it('rebuilds after a catalogue change from a replica only once it has replayed the change, else from the primary', async () => {
    // What a read model does on a catalogue signal: take a reader that shows the change, read one snapshot.
    const rebuilds: { source: string; name: string }[] = [];
    const rebuilt: Promise<void>[] = [];
    const unsubscribe = a.changes.subscribe((change: Change) => {
      if (change.kind !== 'catalogue') return;
      rebuilt.push(
        (async () => {
          const reader = await readerAfterLatestCommit(a.database, { waitMs: 500 });
          const row = await reader.db
            .transaction()
            .setIsolationLevel('repeatable read')
            .execute((trx) => trx.selectFrom('projects').select('name').where('id', '=', PROJECT).executeTakeFirstOrThrow());
          rebuilds.push({ source: reader.source, name: row.name });
        })(),
      );
    });
    const replicaName = a.database.replicas!.status()[0].name;
    try {
      await replicaCaughtUp();
      await until('the replica in service', async () => (a.database.replicas!.status()[0].state === 'up' ? true : undefined));
      await renameProject('Marina Heights V');
      await until('the rebuild', async () => (rebuilds.length === 1 ? true : undefined));
      await Promise.all(rebuilt);
      expect(rebuilds[0]).toEqual({ source: replicaName, name: 'Marina Heights V' });

      await pauseReplay();
      try {
        await renameProject('Marina Heights VI');
        await until('the rebuild', async () => (rebuilds.length === 2 ? true : undefined));
        await Promise.all(rebuilt);
        // The replica still shows V: the rebuild reads the primary rather than an old snapshot.
        expect(rebuilds[1]).toEqual({ source: 'primary', name: 'Marina Heights VI' });
      } finally {
        await resumeReplay();
      }
    } finally {
      unsubscribe();
    }
  });

  it('shares the rate limit between the API processes through Redis', async () => {
    const key = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT; i++) statuses.push((await get(i % 2 ? a : b, '/whoIAm', key)).status);
    expect(statuses).toEqual(Array(RATE_LIMIT).fill(200));
    // Each process has seen only half the requests; the shared count is what stops both.
    expect((await get(a, '/whoIAm', key)).status).toBe(429);
    expect((await get(b, '/whoIAm', key)).status).toBe(429);
  });

  it('answers reads from the replica while the primary is down, writes 503, and loses nothing', async () => {
    const readKey = await newKey();
    const writeKey = await newKey();
    await replicaCaughtUp();
    const body = { client: { first_name: 'Outage', email: `outage.${randomUUID()}@example.com` } };
    const idempotencyKey = randomUUID();
    const before = await crmCounts(admin.primary);
    const { name } = await admin.primary.selectFrom('projects').select('name').where('id', '=', PROJECT).executeTakeFirstOrThrow();
    await cluster.stopPrimary();
    try {
      // A key never looked up before: the primary cannot answer, the replica can.
      expect(await projectName(a, readKey)).toBe(name);
      const outage = await health(a);
      expect(outage.status).toBe(200);
      expect(outage.body.data.database).toBe('read-only');
      expect(outage.body.data.replicas[0].state).toBe('up');
      const refused = await apply(a, writeKey, body, idempotencyKey);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toEqual({ status: 'error', message: 'service unavailable, retry later' });
    } finally {
      await cluster.startPrimary();
    }
    // The client retries with the same Idempotency-Key once the primary is back: created exactly once.
    const retried = await until('the write accepted again', async () => {
      const res = await apply(a, writeKey, body, idempotencyKey);
      return res.status === 503 ? undefined : res;
    });
    expect(retried.status).toBe(201);
    const created = (await retried.json()) as { data: { offer: { id: number } } };
    const again = await apply(b, writeKey, body, idempotencyKey);
    expect(again.status).toBe(201);
    expect(((await again.json()) as typeof created).data.offer.id).toBe(created.data.offer.id);
    const after = await crmCounts(admin.primary);
    expect(after.opportunities).toBe(before.opportunities + 1);
    expect(after.offers).toBe(before.offers + 1);
    expect((await health(a)).body.data.database).toBe('up');
  });
});
