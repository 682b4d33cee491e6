import { sql, type Kysely } from 'kysely';

/** A copy of CHANGE_CHANNEL (src/changes/change-kinds.ts): a migration keeps the values it was written with. */
const CHANGE_CHANNEL = 'catalogue_changes';

/** Tables whose writes can change a catalogue answer: bump the version (and drop key caches). */
export const CATALOGUE_TABLES = [
  'files', 'companies', 'areas', 'unit_tags', 'project_features', 'projects', 'project_payment_plans', 'project_images',
  'project_feature_links', 'units', 'unit_tag_links', 'facilities',
] as const;

/** Tables that decide what a key may do but not what the catalogue holds: drop key caches only. */
export const ACCESS_TABLES = ['api_keys', 'contracts', 'users', 'company_members'] as const;

/*
 * Change signals, raised by the database itself so that every writer (the importer, the key CLI, an
 * operator's SQL, an older importer during a rolling deploy) is covered, and sent with NOTIFY inside
 * the changing transaction: PostgreSQL delivers a notification only when (and if) its transaction
 * commits, identical payloads of one transaction are delivered once, and listeners get them in
 * commit order.
 *
 * - A write to a catalogue table bumps `catalogue_state.version` once per transaction and notifies
 *   `{"kind":"catalogue","version":N}`. The bump is an UPDATE of one row, so writers of the catalogue
 *   are serialized from their first catalogue statement to their commit: versions are handed out in
 *   commit order, and a reader that saw version N has seen every change numbered N or less.
 * - A write to a table that decides what a key may do but not what the catalogue holds (keys,
 *   contracts, users, members) notifies `{"kind":"access"}`. Instances drop their key cache on either
 *   kind (companies, with the agency's licence and logo, are catalogue tables).
 *
 * Statement-level triggers: one call per statement, not per row (the L import writes 4 M rows in a
 * few hundred statements). project_facilities is left out: the importer rebuilds that table (a new
 * table loses its triggers), and nothing but the importer writes it; the importer bumps the version
 * itself at the start of its transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE catalogue_state (
         id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
         version bigint NOT NULL DEFAULT 0,
         changed_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
    .execute(db);
  await sql.raw(`INSERT INTO catalogue_state (id) VALUES (1)`).execute(db);

  // Once per transaction: the version this transaction got is kept in a transaction-local setting.
  await sql
    .raw(
      `CREATE FUNCTION note_catalogue_change() RETURNS bigint LANGUAGE plpgsql AS $$
       DECLARE
         mine text := current_setting('catalogue.tx_version', true);
         next_version bigint;
       BEGIN
         IF mine IS NOT NULL AND mine <> '' THEN
           RETURN mine::bigint;
         END IF;
         UPDATE catalogue_state SET version = version + 1, changed_at = now() WHERE id = 1 RETURNING version INTO next_version;
         PERFORM set_config('catalogue.tx_version', next_version::text, true);
         PERFORM pg_notify('${CHANGE_CHANNEL}', json_build_object('kind', 'catalogue', 'version', next_version)::text);
         RETURN next_version;
       END
       $$`,
    )
    .execute(db);

  await sql
    .raw(
      `CREATE FUNCTION signal_catalogue_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM note_catalogue_change();
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);

  await sql
    .raw(
      `CREATE FUNCTION signal_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('${CHANGE_CHANNEL}', '{"kind":"access"}');
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);

  for (const [table, fn, name] of triggers()) {
    await sql.raw(`CREATE TRIGGER ${name} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table, , name] of triggers()) await sql.raw(`DROP TRIGGER ${name} ON ${table}`).execute(db);
  await sql.raw(`DROP FUNCTION signal_access_change(); DROP FUNCTION signal_catalogue_change(); DROP FUNCTION note_catalogue_change()`).execute(db);
  await sql.raw(`DROP TABLE catalogue_state`).execute(db);
}

function triggers(): [table: string, fn: string, name: string][] {
  return [
    ...CATALOGUE_TABLES.map((table): [string, string, string] => [table, 'signal_catalogue_change', `${table}_signal_catalogue`]),
    ...ACCESS_TABLES.map((table): [string, string, string] => [table, 'signal_access_change', `${table}_signal_access`]),
  ];
}
