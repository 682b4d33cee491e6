import { sql, type Kysely } from 'kysely';

/*
 * The facility object exactly as GET /projects/{id} serves it (the record as imported, with `source_id`
 * added when the record lacks one), stored as JSON text by the importer. A project's nearby block holds
 * up to ~1,000 of them: building that block from jsonb on every request cost 38 ms of database time on
 * the L catalogue (jsonb output of every record), reading the stored text 8 ms, and the service splices
 * the text into the response without parsing it.
 *
 * The importer writes both columns from the same record (servedFacility), compact and in the record's
 * own field order. Any other writer (manual SQL, an importer from before this migration during a
 * rolling deploy) that sets `data` without the text gets it derived by the trigger below, as jsonb's
 * text (valid JSON, with spaces, jsonb's key order): never missing, never stale. No CHECK re-derives
 * the importer's text: parsing every stored text again cost 2.8 s per 50,000 facilities on PostgreSQL
 * (about three times that on PGlite), a tenth of the L import.
 */
const BACKFILL_BATCH = 1_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE facilities ADD COLUMN facility_json text`).execute(db);

  // Existing rows get the importer's form (compact JSON of the same object), in batches.
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; source_id: string; data: Record<string, unknown> | string }>`
      SELECT id, source_id, data FROM facilities WHERE id > ${after} ORDER BY id LIMIT ${BACKFILL_BATCH}`.execute(db);
    if (rows.length === 0) break;
    const texts = rows.map((row) => {
      const data = typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data;
      return JSON.stringify({ source_id: row.source_id, ...data });
    });
    await sql`
      UPDATE facilities f SET facility_json = v.text
        FROM (SELECT unnest(${rows.map((row) => row.id)}::int[]) AS id, unnest(${texts}::text[]) AS text) v
       WHERE f.id = v.id`.execute(db);
    after = rows[rows.length - 1].id;
  }

  await sql
    .raw(
      `CREATE FUNCTION facilities_derive_facility_json() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.facility_json IS NULL
            OR (TG_OP = 'UPDATE' AND NEW.facility_json IS NOT DISTINCT FROM OLD.facility_json
                AND (NEW.data IS DISTINCT FROM OLD.data OR NEW.source_id IS DISTINCT FROM OLD.source_id)) THEN
           NEW.facility_json := (jsonb_build_object('source_id', NEW.source_id) || NEW.data)::text;
         END IF;
         RETURN NEW;
       END
       $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER facilities_facility_json BEFORE INSERT OR UPDATE ON facilities
         FOR EACH ROW EXECUTE FUNCTION facilities_derive_facility_json()`,
    )
    .execute(db);
  await sql.raw(`ALTER TABLE facilities ALTER COLUMN facility_json SET NOT NULL`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DROP TRIGGER facilities_facility_json ON facilities`).execute(db);
  await sql.raw(`DROP FUNCTION facilities_derive_facility_json()`).execute(db);
  await sql.raw(`ALTER TABLE facilities DROP COLUMN facility_json`).execute(db);
}
