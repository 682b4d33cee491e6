import { sql, type Kysely } from 'kysely';
import type { DB, WebhookDeliveryState } from '../db/schema.js';
import { newMessageId } from '../domain/webhook-secrets.js';

/*
 * The delivery queue, in the database so that every API process shares it and nothing is lost with a
 * process. A worker claims due deliveries with FOR UPDATE SKIP LOCKED (concurrent claimers take
 * different rows, on PostgreSQL and PGlite alike) and, in the same statement, moves their
 * next_attempt_at past the attempt's timeout: that is the lease. If the process dies mid-attempt, the
 * delivery becomes due again when the lease ends and another process (or this one restarted)
 * delivers it: at least once. An outcome is written only by the claim that made the attempt
 * (`attempts` matches), except a success, which always counts.
 *
 * An endpoint that does not answer (connection refused, timeout) is probed by one delivery at a time:
 * the unanswered attempt moves the endpoint's other pending deliveries past its own next attempt (by
 * a lease, so that the probe's outcome is known first) and marks them as waiting for it; when a
 * probe is answered 2xx, they fall due at once. Without this, every pending delivery of a down
 * endpoint was tried on its own schedule: with 10,000 pending, tens of claims, refused connections and
 * outcome writes a second, a measurable share of the reads' throughput (docs/performance.md,
 * "Webhooks"). An endpoint that answers with an error status is not held: the error may belong to one
 * message only.
 * A delivery being attempted (its lease, leased_until, not over) is neither held nor released.
 *
 * States: `pending` (queued or being retried), `delivered`, `failed` (given up), `dropped` (its key was
 * revoked or deleted before it was sent: never sent afterwards, migration 0016).
 */

export interface ClaimedDelivery {
  id: number;
  message_id: string;
  endpoint_id: number;
  event_type: string;
  attempts: number;
  /** Milliseconds since the delivery was queued (database clock), when claimed. */
  age_ms: number;
  body: string;
  url: string;
  /** Current secret first; the previous one while its 24 h last. */
  secrets: string[];
  /** Its previous attempt got no answer: a success now ends the endpoint's hold. */
  probing: boolean;
}

interface ClaimRow extends Omit<ClaimedDelivery, 'secrets'> {
  secret: string;
  previous_secret: string | null;
}

const toClaimed = ({ secret, previous_secret, ...row }: ClaimRow): ClaimedDelivery => ({
  ...row,
  id: Number(row.id),
  age_ms: Number(row.age_ms),
  secrets: previous_secret ? [secret, previous_secret] : [secret],
});

const claimedColumns = sql`c.id, c.message_id, c.endpoint_id, m.event_type, c.attempts, extract(epoch FROM now() - c.created_at) * 1000 AS age_ms, m.body, e.url, e.secret,
       (c.last_status IS NULL AND c.last_error IS NOT NULL) AS probing,
       CASE WHEN e.previous_secret_until > now() THEN e.previous_secret END AS previous_secret`;

/** Claims up to `limit` due deliveries of enabled endpoints for `leaseMs`. */
export async function claimDueDeliveries(db: Kysely<DB>, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimRow>`
    WITH due AS (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= now() AND e.enabled
         -- Never for a revoked key (its queue is dropped when it is revoked, migration 0016; this holds whatever wrote the rows).
         AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = e.api_key_id AND k.status = 0 AND k.deleted_at IS NULL)
       ORDER BY d.next_attempt_at, d.id
       LIMIT ${limit}::int
       FOR UPDATE OF d SKIP LOCKED
    ), c AS (
      UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = now() + ${leaseMs}::int * interval '1 millisecond',
             leased_until = now() + ${leaseMs}::int * interval '1 millisecond', waits_for_probe = NULL
        FROM due WHERE d.id = due.id
      RETURNING d.*
    )
    SELECT ${claimedColumns}
      FROM c JOIN webhook_messages m ON m.id = c.message_id JOIN webhook_endpoints e ON e.id = c.endpoint_id
     ORDER BY c.id`.execute(db);
  return rows.map(toClaimed);
}

/** Queues a `ping` for the endpoint, due now (its insert wakes the delivery workers at commit); undefined: no such endpoint. */
export async function queuePing(db: Kysely<DB>, endpointId: number): Promise<{ id: number; message_id: string } | undefined> {
  const id = newMessageId();
  const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: { endpoint_id: endpointId, message: 'ping from the Catalogue API' } });
  const { rows } = await sql<{ id: number; message_id: string }>`
    WITH m AS (
      INSERT INTO webhook_messages (id, endpoint_id, event_type, body)
      SELECT ${id}, id, 'ping', ${body} FROM webhook_endpoints WHERE id = ${endpointId}
      RETURNING *
    )
    INSERT INTO webhook_deliveries (message_id, endpoint_id) SELECT m.id, m.endpoint_id FROM m
    RETURNING id, message_id`.execute(db);
  return rows[0] && { id: Number(rows[0].id), message_id: rows[0].message_id };
}

/** Claims delivery `id` for `leaseMs` if nobody has attempted it yet (whatever its endpoint's state). */
export async function claimUnattempted(db: Kysely<DB>, id: number, leaseMs: number): Promise<ClaimedDelivery | undefined> {
  const { rows } = await sql<ClaimRow>`
    WITH due AS (
      SELECT d.id FROM webhook_deliveries d WHERE d.id = ${id} AND d.state = 'pending' AND d.attempts = 0 FOR UPDATE SKIP LOCKED
    ), c AS (
      UPDATE webhook_deliveries d
         SET attempts = 1, last_attempt_at = now(), next_attempt_at = now() + ${leaseMs}::int * interval '1 millisecond',
             leased_until = now() + ${leaseMs}::int * interval '1 millisecond', waits_for_probe = NULL
        FROM due WHERE d.id = due.id
      RETURNING d.*
    )
    SELECT ${claimedColumns}
      FROM c JOIN webhook_messages m ON m.id = c.message_id JOIN webhook_endpoints e ON e.id = c.endpoint_id`.execute(db);
  return rows[0] && toClaimed(rows[0]);
}

export interface DeliveryProgress {
  state: WebhookDeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  /** An attempt is running (its outcome not written yet). */
  attempting: boolean;
  /** Milliseconds from the last attempt to completion (delivered or given up). */
  took_ms: number | null;
}

export async function deliveryProgress(db: Kysely<DB>, id: number): Promise<DeliveryProgress | undefined> {
  const { rows } = await sql<DeliveryProgress>`
    SELECT state, attempts, last_status, last_error, coalesce(leased_until > now(), false) AS attempting,
           extract(epoch FROM completed_at - last_attempt_at) * 1000 AS took_ms
      FROM webhook_deliveries WHERE id = ${id}`.execute(db);
  const row = rows[0];
  return row && { ...row, took_ms: row.took_ms === null ? null : Math.round(Number(row.took_ms)) };
}

/**
 * Nobody is attempting the delivery `d`: a probe's hold and release leave an attempt's lease alone. A
 * release that set a running attempt due let a second claim send the message again meanwhile.
 */
const notLeased = sql`(d.leased_until IS NULL OR d.leased_until <= now())`;

export type AttemptRecord =
  | { kind: 'delivered'; status: number }
  /** With `holdOthersMs` (no answer): the endpoint's other pending deliveries wait that long for this one's next attempt. */
  | { kind: 'retry'; status: number | null; error: string | null; delayMs: number; holdOthersMs?: number }
  /** Given up (410, or retried for the whole window): the delivery fails and the endpoint is disabled. */
  | { kind: 'failed'; status: number | null; error: string | null; disableReason: string };

export async function recordAttempt(
  db: Kysely<DB>,
  delivery: Pick<ClaimedDelivery, 'id' | 'attempts' | 'endpoint_id' | 'probing'>,
  outcome: AttemptRecord,
): Promise<void> {
  if (outcome.kind === 'delivered') {
    // A probe answered: the deliveries waiting for it fall due now. Rows another statement holds are
    // skipped, never waited for: probes' holds lock many rows at once, and waiting could deadlock.
    await sql`
      WITH done AS (
        UPDATE webhook_deliveries SET state = 'delivered', completed_at = now(), last_status = ${outcome.status}, last_error = NULL, leased_until = NULL
         WHERE id = ${delivery.id} AND state = 'pending'
        RETURNING endpoint_id
      ), released AS (
        SELECT d.id FROM webhook_deliveries d JOIN done ON d.endpoint_id = done.endpoint_id
         WHERE ${delivery.probing} AND d.state = 'pending' AND d.waits_for_probe IS NOT NULL AND ${notLeased}
           FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d SET next_attempt_at = now(), waits_for_probe = NULL FROM released WHERE d.id = released.id`.execute(db);
    return;
  }
  if (outcome.kind === 'retry') {
    const delay = sql`${Math.round(outcome.delayMs)}::int * interval '1 millisecond'`;
    if (outcome.holdOthersMs === undefined) {
      await db
        .updateTable('webhook_deliveries')
        .where('id', '=', delivery.id)
        .where('attempts', '=', delivery.attempts)
        .where('state', '=', 'pending')
        .set({ last_status: outcome.status, last_error: outcome.error, next_attempt_at: sql`now() + ${delay}`, waits_for_probe: null, leased_until: null })
        .execute();
      return;
    }
    // No answer: this delivery probes the endpoint; its other pending deliveries due before the
    // probe's outcome is known wait for it (those due later keep their time). Rows locked by another
    // statement (another probe's hold, an outcome being written) are skipped, never waited for: the
    // concurrent probes of one endpoint each hold many rows, and waiting for each other deadlocked.
    const holdUntil = sql`now() + ${Math.round(outcome.holdOthersMs)}::int * interval '1 millisecond'`;
    await sql`
      WITH probe AS (
        UPDATE webhook_deliveries SET last_status = ${outcome.status}, last_error = ${outcome.error}, next_attempt_at = now() + ${delay}, waits_for_probe = NULL, leased_until = NULL
         WHERE id = ${delivery.id} AND attempts = ${delivery.attempts} AND state = 'pending'
        RETURNING id, endpoint_id
      ), held AS (
        SELECT d.id FROM webhook_deliveries d JOIN probe ON d.endpoint_id = probe.endpoint_id
         WHERE d.state = 'pending' AND d.id <> probe.id AND d.next_attempt_at < ${holdUntil} AND ${notLeased}
           FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d SET next_attempt_at = ${holdUntil}, waits_for_probe = probe.id FROM held, probe WHERE d.id = held.id`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    const failed = await trx
      .updateTable('webhook_deliveries')
      .where('id', '=', delivery.id)
      .where('attempts', '=', delivery.attempts)
      .where('state', '=', 'pending')
      .set({ state: 'failed', completed_at: sql`now()`, last_status: outcome.status, last_error: outcome.error, leased_until: null })
      .executeTakeFirst();
    if (Number(failed.numUpdatedRows) === 0) return;
    await trx
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: outcome.disableReason, updated_at: sql`now()` })
      .where('id', '=', delivery.endpoint_id)
      .where('enabled', '=', true)
      .execute();
  });
}

/**
 * In how many milliseconds the next delivery of an enabled endpoint falls due (null: none pending).
 * The worker asks after every claim: ORDER BY … LIMIT 1 walks the due index and stops at the first
 * row, where min() over the join reads every pending row (docs/performance.md, "Webhooks").
 */
export async function nextDueAt(db: Kysely<DB>): Promise<number | null> {
  const { rows } = await sql<{ due_in_ms: number }>`
    SELECT extract(epoch FROM d.next_attempt_at - now()) * 1000 AS due_in_ms
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.state = 'pending' AND e.enabled
     ORDER BY d.next_attempt_at
     LIMIT 1`.execute(db);
  return rows.length === 0 ? null : Number(rows[0].due_in_ms);
}

export interface QueueStats {
  /** Deliveries waiting for an enabled endpoint (due now, retrying later, or being attempted). */
  pending: number;
  /** Seconds since the oldest of them was queued; null when none. */
  oldest_pending_age_s: number | null;
  /** Deliveries kept for endpoints that are disabled (sent once re-enabled). */
  held: number;
}

export async function queueStats(db: Kysely<DB>): Promise<QueueStats> {
  const { rows } = await sql<{ pending: number; held: number; oldest: number | null }>`
    SELECT count(*) FILTER (WHERE e.enabled) AS pending, count(*) FILTER (WHERE NOT e.enabled) AS held,
           extract(epoch FROM now() - min(d.created_at) FILTER (WHERE e.enabled)) AS oldest
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.state = 'pending'`.execute(db);
  const row = rows[0];
  return { pending: Number(row.pending), held: Number(row.held), oldest_pending_age_s: row.oldest === null ? null : Math.round(Number(row.oldest) * 10) / 10 };
}

export const LOG_RETENTION_DAYS = 30;

/** Drops messages (with their deliveries) older than the retention, unless one is still pending. */
export async function pruneDeliveryLog(db: Kysely<DB>): Promise<number> {
  const result = await sql`
    DELETE FROM webhook_messages m
     WHERE m.created_at < now() - ${LOG_RETENTION_DAYS}::int * interval '1 day'
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id AND d.state = 'pending')`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface DeliveryListing {
  id: number;
  message_id: string;
  event_type: string;
  state: WebhookDeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string;
  completed_at: string | null;
}

export async function listDeliveries(db: Kysely<DB>, endpointId: number, options: { since?: string; failed?: boolean; limit?: number }): Promise<DeliveryListing[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
    .where('d.endpoint_id', '=', endpointId)
    .select(['d.id', 'd.message_id', 'm.event_type', 'd.state', 'd.attempts', 'd.last_status', 'd.last_error', 'd.created_at', 'd.last_attempt_at', 'd.next_attempt_at', 'd.completed_at'])
    .orderBy('d.id')
    .limit(options.limit ?? 1000);
  if (options.since) query = query.where('d.created_at', '>=', options.since);
  if (options.failed) query = query.where((eb) => eb.or([eb('d.state', 'in', ['failed', 'dropped']), eb.and([eb('d.state', '=', 'pending'), eb('d.attempts', '>', 0)])]));
  return (await query.execute()).map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * A new delivery of the message of delivery `deliveryId` (same webhook-id and body), due now; undefined
 * when there is no such delivery.
 */
export async function redeliverOne(db: Kysely<DB>, deliveryId: number): Promise<{ id: number; endpoint_id: number; message_id: string } | undefined> {
  const { rows } = await sql<{ id: number; endpoint_id: number; message_id: string }>`
    INSERT INTO webhook_deliveries (message_id, endpoint_id)
    SELECT d.message_id, d.endpoint_id FROM webhook_deliveries d
     WHERE d.id = ${deliveryId}
    RETURNING id, endpoint_id, message_id`.execute(db);
  return rows[0] && { ...rows[0], id: Number(rows[0].id) };
}

/** New deliveries, due now, of every message of the endpoint queued at or after `since`, except those still pending. */
export async function redeliverSince(db: Kysely<DB>, endpointId: number, since: string): Promise<number> {
  const result = await sql`
    INSERT INTO webhook_deliveries (message_id, endpoint_id)
    SELECT m.id, m.endpoint_id FROM webhook_messages m
     WHERE m.endpoint_id = ${endpointId} AND m.created_at >= ${since}::timestamptz
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id AND d.state = 'pending')
     ORDER BY m.created_at, m.id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
