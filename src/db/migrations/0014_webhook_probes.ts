import { sql, type Kysely } from 'kysely';

/*
 * While an endpoint does not answer (connection refused, timeout), one delivery probes it and the
 * endpoint's other pending deliveries wait (src/queries/webhook-deliveries.ts, recordAttempt):
 *
 * - waits_for_probe: the delivery whose unanswered attempt holds this one; NULL when it is on its own
 *   schedule. Set with next_attempt_at moved past the probe's next attempt, so that waiting rows are
 *   not at the front of the claim's walk of the due index; cleared when the probe is answered 2xx
 *   (the waiting deliveries fall due at once).
 * - The endpoint's pending deliveries by due time: the hold and its release touch only those, not the
 *   endpoint's 30-day log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE webhook_deliveries ADD COLUMN waits_for_probe bigint`).execute(db);
  await sql.raw(`CREATE INDEX webhook_deliveries_pending_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE state = 'pending'`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DROP INDEX webhook_deliveries_pending_endpoint`).execute(db);
  await sql.raw(`ALTER TABLE webhook_deliveries DROP COLUMN waits_for_probe`).execute(db);
}
