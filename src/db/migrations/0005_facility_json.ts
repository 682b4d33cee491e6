import { sql, type Kysely } from 'kysely';

/*
 * The facility object exactly as GET /projects/{id} serves it (the record as imported, with `source_id`
 * added when the record lacks one), stored as JSON text by the importer. A project's nearby block holds
 * up to ~1,000 of them: building that block from jsonb on every request cost 38 ms of database time on
 * the L catalogue (jsonb output of every record), reading the stored text 8 ms, and the service splices
 * the text into the response without parsing it.
 *
 * Facilities are written by the importer only (the API has no facility writes), which derives both
 * columns from the same record (servedFacility). No CHECK re-derives the copy: parsing every stored
 * text again cost 2.8 s per 50,000 facilities on PostgreSQL (about three times that on PGlite), a
 * tenth of the L import.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE facilities ADD COLUMN facility_json text`).execute(db);
  await sql.raw(`UPDATE facilities SET facility_json = (jsonb_build_object('source_id', source_id) || data)::text`).execute(db);
  await sql.raw(`ALTER TABLE facilities ALTER COLUMN facility_json SET NOT NULL`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE facilities DROP COLUMN facility_json`).execute(db);
}
