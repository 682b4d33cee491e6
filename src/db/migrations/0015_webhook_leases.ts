import { sql, type Kysely } from 'kysely';

/*
 * leased_until: while an attempt runs, the end of its claim's lease (set by the claim, cleared by the
 * attempt's outcome). An endpoint's probe holds and releases only the deliveries nobody is attempting
 * (src/queries/webhook-deliveries.ts): a release that cut an attempt's lease short let a second claim
 * send the same message again while the first attempt was still running (a duplicate 2xx, caught by
 * the two-process queue test in CI).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE webhook_deliveries DROP COLUMN leased_until`).execute(db);
}
