import { sql, type Kysely } from 'kysely';

/*
 * Two changes of issue 20 (one migration number per branch): the key setting, and the stamps the
 * changes feed needs to name only what a key could see.
 *
 * api_keys.private_applications (issue 20): a key whose application response is built only from what
 * the request sent and what the unit derived, never from a stored CRM record (src/domain/private-application.ts).
 * False keeps the specified answer. A constant default: no table rewrite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys ADD COLUMN private_applications boolean NOT NULL DEFAULT false`.execute(db);
  await upFeedVisibility(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await downFeedVisibility(db);
  await sql`ALTER TABLE api_keys DROP COLUMN private_applications`.execute(db);
}

/*
 * What GET /changes needs to name only what a key could see at its cursor's position (issue 20): when
 * each project, contract and unit last changed in what decides its visibility, and when it was created.
 *
 * - `created_version`: the catalogue version of the insert (0 for rows older than this migration).
 * - projects.published_version: the version at which (published, developer) last changed;
 *   contracts.opens_version: at which "this contract opens the developer" (approved, developer live)
 *   last changed, also when the developer company was removed or restored;
 *   units.live_version: at which (not deleted) last changed; units.project_version: at which the unit
 *   last moved to another project. An insert sets them to its own version.
 * Rows older than this migration get its version: for cursors taken before it, "may have changed".
 *
 * A record hidden now was visible at version V only if it existed then and, for each condition it
 * fails now, that condition changed at V or later (src/queries/changes.ts). When several flips happen
 * after V, the last one is what is known: the feed may then name a record that was visible to the key
 * after V but not at V; never one that was never visible to it.
 */
const COLUMNS: [table: string, columns: string[]][] = [
  ['projects', ['created_version', 'published_version']],
  ['contracts', ['created_version', 'opens_version']],
  ['units', ['created_version', 'live_version', 'project_version']],
];

const FLIP_TRIGGERS: [table: string, fn: string, body: string][] = [
  [
    'projects',
    'projects_note_visibility',
    `IF TG_OP = 'INSERT' THEN
       NEW.created_version := note_catalogue_change();
       NEW.published_version := NEW.created_version;
     ELSIF (NOT NEW.is_draft AND NEW.deleted_at IS NULL, NEW.company_id) IS DISTINCT FROM (NOT OLD.is_draft AND OLD.deleted_at IS NULL, OLD.company_id) THEN
       NEW.published_version := note_catalogue_change();
     END IF;`,
  ],
  [
    'units',
    'units_note_visibility',
    `IF TG_OP = 'INSERT' THEN
       NEW.created_version := note_catalogue_change();
       NEW.live_version := NEW.created_version;
       NEW.project_version := NEW.created_version;
     ELSE
       IF (NEW.deleted_at IS NULL) IS DISTINCT FROM (OLD.deleted_at IS NULL) THEN
         NEW.live_version := note_catalogue_change();
       END IF;
       IF NEW.project_id IS DISTINCT FROM OLD.project_id THEN
         NEW.project_version := note_catalogue_change();
       END IF;
     END IF;`,
  ],
  [
    'contracts',
    'contracts_note_visibility',
    `IF TG_OP = 'INSERT' THEN
       NEW.created_version := note_catalogue_change();
       NEW.opens_version := NEW.created_version;
     ELSIF (NEW.agency_id, NEW.developer_id) IS DISTINCT FROM (OLD.agency_id, OLD.developer_id)
        OR (NEW.status = 'approved') IS DISTINCT FROM (OLD.status = 'approved') THEN
       NEW.opens_version := note_catalogue_change();
     END IF;`,
  ],
];

async function upFeedVisibility(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ version: string }>`SELECT note_catalogue_change()::text AS version`.execute(db);
  const now = Number(rows[0].version);
  for (const [table, columns] of COLUMNS) {
    const add = columns.map((column) => `ADD COLUMN ${column} bigint NOT NULL DEFAULT ${column === 'created_version' ? 0 : now}`).join(', ');
    const drop = columns.map((column) => `ALTER COLUMN ${column} DROP DEFAULT`).join(', ');
    await sql.raw(`ALTER TABLE ${table} ${add}`).execute(db);
    await sql.raw(`ALTER TABLE ${table} ${drop}`).execute(db);
  }
  for (const [table, fn, body] of FLIP_TRIGGERS) {
    await sql.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NEW; END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER ${fn} BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`).execute(db);
  }
  // A developer removed or restored (or no longer a developer) opens or closes its approved contracts.
  await sql
    .raw(
      `CREATE FUNCTION companies_note_contract_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         UPDATE contracts SET opens_version = note_catalogue_change() WHERE developer_id = NEW.id AND status = 'approved';
         RETURN NULL;
       END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER companies_note_contract_visibility AFTER UPDATE ON companies FOR EACH ROW
       WHEN ((OLD.deleted_at IS NULL AND OLD.company_type = 3) IS DISTINCT FROM (NEW.deleted_at IS NULL AND NEW.company_type = 3))
       EXECUTE FUNCTION companies_note_contract_visibility()`,
    )
    .execute(db);
}

async function downFeedVisibility(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DROP TRIGGER companies_note_contract_visibility ON companies; DROP FUNCTION companies_note_contract_visibility()`).execute(db);
  for (const [table, fn] of FLIP_TRIGGERS) await sql.raw(`DROP TRIGGER ${fn} ON ${table}; DROP FUNCTION ${fn}()`).execute(db);
  for (const [table, columns] of COLUMNS) await sql.raw(`ALTER TABLE ${table} ${columns.map((c) => `DROP COLUMN ${c}`).join(', ')}`).execute(db);
}

