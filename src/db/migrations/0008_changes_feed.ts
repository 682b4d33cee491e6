import { sql, type Kysely } from 'kysely';

/*
 * What GET /changes (src/queries/changes.ts) reads: for every row that a project or unit response
 * shows, the catalogue version (migration 0007) of the transaction that last changed it.
 *
 * - `changed_version` / `changed_at` on projects, units, companies (developer name and logo), areas
 *   (area name and city), contracts (what a key may see) and facilities (the nearby block), set by a
 *   BEFORE ROW trigger to note_catalogue_change() and now(): every writer is covered (importer, CLI,
 *   an operator's SQL), and versions follow commit order because note_catalogue_change() serializes
 *   catalogue writers until they commit. An UPDATE that leaves the row as it was keeps its version,
 *   so restating an unchanged record with the same timestamps lists nothing. Writing any value to
 *   changed_version ("touching" the row) always takes this transaction's version.
 * - Rows that a parent embeds touch the parent: payment plans, images and feature links touch their
 *   project; units touch their project when a column the project shows changed (the detail lists the
 *   units, the list item their lowest price and size); tag links touch their unit; an edited file,
 *   feature or tag touches what shows it; a user touches the projects it authored (GET /units/{id}
 *   shows the project's author). A parent already at this transaction's version is skipped, which is
 *   the importer's case (it writes the parents in the same transaction).
 * - The feed joins the developer company, the contract and the area to each project, and the project
 *   to each unit, so their versions need not be copied onto every project and unit.
 * - Hard deletes (DELETE FROM projects/units/contracts) leave a tombstone, so that the feed can still
 *   say "removed"; the importer only soft-deletes.
 * - catalogue_state.feed_horizon: the version existing rows were stamped with here, the oldest
 *   position the feed can answer from (a cursor below it is answered "start over").
 *
 * Existing rows get the migration's version through a constant column default: no table rewrite.
 */
const VERSIONED = ['projects', 'units', 'companies', 'areas', 'contracts'] as const;

/** [trigger, table, event, transition tables, function] of the statement triggers that touch parents. */
const TOUCH_TRIGGERS: [string, string, string, string, string][] = [
  ...(['project_payment_plans', 'project_images', 'project_feature_links'] as const).flatMap((table) => statementTriggers(table, 'touch_projects_of_rows')),
  ...statementTriggers('units', 'units_touch_projects'),
  ...statementTriggers('unit_tag_links', 'touch_units_of_tag_links'),
  ['files_touch_dependents', 'files', 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows', 'files_touch_dependents'],
  ['project_features_touch_projects', 'project_features', 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows', 'project_features_touch_projects'],
  ['unit_tags_touch_units', 'unit_tags', 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows', 'unit_tags_touch_units'],
  ['users_touch_projects', 'users', 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows', 'users_touch_projects'],
];

function statementTriggers(table: string, fn: string): [string, string, string, string, string][] {
  return [
    [`${table}_touch_insert`, table, 'INSERT', 'REFERENCING NEW TABLE AS new_rows', fn],
    [`${table}_touch_update`, table, 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows', fn],
    [`${table}_touch_delete`, table, 'DELETE', 'REFERENCING OLD TABLE AS old_rows', fn],
    [`${table}_touch_truncate`, table, 'TRUNCATE', '', fn],
  ];
}

/** `UPDATE <table> SET changed_version = -1` (a touch) for the rows `where` selects, unless already at `mine`. */
const touch = (table: string, where: string) => `UPDATE ${table} SET changed_version = -1 WHERE (${where}) AND changed_version <> mine;`;

/**
 * The BEFORE ROW function that stamps a row with this transaction's version and time, unless it is an
 * UPDATE that does not touch changed_version and leaves the row `unchanged` (with changed_at put back).
 */
function noteChangeFunction(name: string, unchanged: string): string {
  return `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.changed_version IS NOT DISTINCT FROM OLD.changed_version THEN
        NEW.changed_at := OLD.changed_at;
        IF ${unchanged} THEN
          RETURN NEW;
        END IF;
      END IF;
      NEW.changed_version := note_catalogue_change();
      NEW.changed_at := now();
      RETURN NEW;
    END
    $$`;
}

/**
 * A statement trigger function (one per child table event, transition tables `new_rows`/`old_rows`)
 * that touches the `parent` rows whose id is in `column` of the rows written; on UPDATE, those that
 * `updated` selects (default: every old and new row).
 */
function touchParentsFunction(name: string, parent: string, column: string, updated = `SELECT ${column} FROM new_rows UNION SELECT ${column} FROM old_rows`): string {
  return `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      mine bigint := note_catalogue_change();
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${touch(parent, `id IN (SELECT ${column} FROM new_rows)`)}
      ELSIF TG_OP = 'UPDATE' THEN
        ${touch(parent, `id IN (${updated})`)}
      ELSIF TG_OP = 'DELETE' THEN
        ${touch(parent, `id IN (SELECT ${column} FROM old_rows)`)}
      ELSE
        ${touch(parent, 'true')}
      END IF;
      RETURN NULL;
    END
    $$`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // The migration is a catalogue change itself: its version is the horizon, and the stamp of every row.
  const { rows } = await sql<{ version: string; now: string }>`SELECT note_catalogue_change()::text AS version, now()::text AS now`.execute(db);
  const horizon = Number(rows[0].version);
  const stampedAt = rows[0].now;
  await sql.raw(`ALTER TABLE catalogue_state ADD COLUMN feed_horizon bigint NOT NULL DEFAULT ${horizon}`).execute(db);
  await sql.raw(`ALTER TABLE catalogue_state ALTER COLUMN feed_horizon DROP DEFAULT`).execute(db);

  for (const table of [...VERSIONED, 'facilities']) {
    // The constant default fills existing rows without rewriting the table; dropping it keeps their values.
    await sql
      .raw(
        `ALTER TABLE ${table} ADD COLUMN changed_version bigint NOT NULL DEFAULT ${horizon},
                              ADD COLUMN changed_at timestamptz NOT NULL DEFAULT '${stampedAt}'`,
      )
      .execute(db);
    await sql.raw(`ALTER TABLE ${table} ALTER COLUMN changed_version DROP DEFAULT, ALTER COLUMN changed_at DROP DEFAULT`).execute(db);
  }
  await sql.raw(`CREATE INDEX projects_changed ON projects (changed_version, id)`).execute(db);
  await sql.raw(`CREATE INDEX units_changed ON units (changed_version, id)`).execute(db);

  await sql.raw(noteChangeFunction('note_row_change', 'NEW IS NOT DISTINCT FROM OLD')).execute(db);
  for (const table of VERSIONED) {
    await sql.raw(`CREATE TRIGGER ${table}_note_change BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION note_row_change()`).execute(db);
  }

  // Facilities: only what the nearby block shows counts (the served JSON and the position that decides
  // the links); the importer restates every facility of a bundle with a new updated_at.
  await sql
    .raw(
      noteChangeFunction(
        'facilities_note_change',
        '(NEW.category, NEW.facility_json, NEW.latitude, NEW.longitude) IS NOT DISTINCT FROM (OLD.category, OLD.facility_json, OLD.latitude, OLD.longitude)',
      ),
    )
    .execute(db);
  // Named to fire after facilities_facility_json (row triggers fire in name order), which derives the JSON.
  await sql.raw(`CREATE TRIGGER facilities_note_change BEFORE INSERT OR UPDATE ON facilities FOR EACH ROW EXECUTE FUNCTION facilities_note_change()`).execute(db);

  // Project lists (plans, images, feature links): every written row touches its project; tag links their unit.
  await sql.raw(touchParentsFunction('touch_projects_of_rows', 'projects', 'project_id')).execute(db);
  await sql.raw(touchParentsFunction('touch_units_of_tag_links', 'units', 'unit_id')).execute(db);
  // Units touch their project only when a column the project shows changed (as in migration 0006).
  await sql
    .raw(
      touchParentsFunction(
        'units_touch_projects',
        'projects',
        'project_id',
        `SELECT unnest(ARRAY[n.project_id, o.project_id])
           FROM new_rows n FULL JOIN old_rows o ON o.id = n.id
          WHERE n.id IS NULL OR o.id IS NULL
             OR (n.project_id, n.unit_number, n.bedrooms, n.status, n.furnishing, n.price, n.unit_area, n.deleted_at IS NULL)
                IS DISTINCT FROM (o.project_id, o.unit_number, o.bedrooms, o.status, o.furnishing, o.price, o.unit_area, o.deleted_at IS NULL)`,
      ),
    )
    .execute(db);

  // Reference rows edited in place (a rename, a new file path): what shows them is touched. Only rows
  // that really changed count; inserts cannot be shown by anything yet, and deletes are refused by
  // the foreign keys while anything shows them.
  const changedIds = `ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n IS DISTINCT FROM o)`;
  const dependents: [fn: string, touches: string[]][] = [
    [
      'files_touch_dependents',
      [
        touch('companies', 'logo_file_id = ANY(ids)'),
        touch(
          'projects',
          `floor_plan_file_id = ANY(ids) OR brochure_file_id = ANY(ids) OR general_plan_file_id = ANY(ids)
           OR id IN (SELECT project_id FROM project_images WHERE file_id = ANY(ids))`,
        ),
        touch('units', 'plan_file_id = ANY(ids)'),
      ],
    ],
    ['project_features_touch_projects', [touch('projects', 'id IN (SELECT project_id FROM project_feature_links WHERE feature_id = ANY(ids))')]],
    ['unit_tags_touch_units', [touch('units', 'id IN (SELECT unit_id FROM unit_tag_links WHERE tag_id = ANY(ids))')]],
    ['users_touch_projects', [touch('projects', 'author_id = ANY(ids)')]],
  ];
  for (const [fn, touches] of dependents) {
    await sql
      .raw(
        `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE
           ids integer[];
           mine bigint;
         BEGIN
           ids := ${changedIds};
           IF cardinality(ids) = 0 THEN
             RETURN NULL;
           END IF;
           mine := note_catalogue_change();
           ${touches.join('\n')}
           RETURN NULL;
         END
         $$`,
      )
      .execute(db);
  }
  for (const [name, table, event, transitionTables, fn] of TOUCH_TRIGGERS) {
    await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} ${transitionTables} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`).execute(db);
  }

  /*
   * Tombstones of hard-deleted projects, units and contracts. `id` is the project's or unit's id, or
   * the developer of a contract; `developer_id` decides which agencies are told (those with a contract
   * row, or a contract tombstone, for that developer).
   */
  await sql
    .raw(
      `CREATE TABLE change_tombstones (
         entity text NOT NULL CHECK (entity IN ('project', 'unit', 'contract')),
         id integer NOT NULL,
         agency_id integer NOT NULL DEFAULT 0,
         project_id integer,
         developer_id integer NOT NULL,
         changed_version bigint NOT NULL,
         changed_at timestamptz NOT NULL,
         PRIMARY KEY (entity, id, agency_id)
       )`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION note_hard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         kind text := TG_ARGV[0];
         row_id integer;
         agency integer := 0;
         project integer;
         developer integer;
       BEGIN
         IF kind = 'project' THEN
           row_id := OLD.id; developer := OLD.company_id;
         ELSIF kind = 'unit' THEN
           row_id := OLD.id; project := OLD.project_id;
           SELECT company_id INTO developer FROM projects WHERE id = OLD.project_id;
         ELSE
           row_id := OLD.developer_id; agency := OLD.agency_id; developer := OLD.developer_id;
         END IF;
         INSERT INTO change_tombstones (entity, id, agency_id, project_id, developer_id, changed_version, changed_at)
         VALUES (kind, row_id, agency, project, developer, note_catalogue_change(), now())
         ON CONFLICT (entity, id, agency_id) DO UPDATE
           SET project_id = EXCLUDED.project_id, developer_id = EXCLUDED.developer_id,
               changed_version = EXCLUDED.changed_version, changed_at = EXCLUDED.changed_at;
         RETURN OLD;
       END
       $$`,
    )
    .execute(db);
  for (const [table, entity] of TOMBSTONED) {
    await sql.raw(`CREATE TRIGGER ${table}_tombstone AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION note_hard_delete('${entity}')`).execute(db);
  }
}

const TOMBSTONED = [
  ['projects', 'project'],
  ['units', 'unit'],
  ['contracts', 'contract'],
] as const;

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of TOMBSTONED) await sql.raw(`DROP TRIGGER ${table}_tombstone ON ${table}`).execute(db);
  await sql.raw(`DROP FUNCTION note_hard_delete(); DROP TABLE change_tombstones`).execute(db);
  for (const [name, table] of TOUCH_TRIGGERS) await sql.raw(`DROP TRIGGER ${name} ON ${table}`).execute(db);
  await sql
    .raw(
      `DROP FUNCTION touch_projects_of_rows(); DROP FUNCTION units_touch_projects(); DROP FUNCTION touch_units_of_tag_links();
       DROP FUNCTION files_touch_dependents(); DROP FUNCTION project_features_touch_projects(); DROP FUNCTION unit_tags_touch_units();
       DROP FUNCTION users_touch_projects()`,
    )
    .execute(db);
  await sql.raw(`DROP TRIGGER facilities_note_change ON facilities; DROP FUNCTION facilities_note_change()`).execute(db);
  for (const table of VERSIONED) await sql.raw(`DROP TRIGGER ${table}_note_change ON ${table}`).execute(db);
  await sql.raw(`DROP FUNCTION note_row_change()`).execute(db);
  await sql.raw(`DROP INDEX projects_changed; DROP INDEX units_changed`).execute(db);
  for (const table of [...VERSIONED, 'facilities']) await sql.raw(`ALTER TABLE ${table} DROP COLUMN changed_version, DROP COLUMN changed_at`).execute(db);
  await sql.raw(`ALTER TABLE catalogue_state DROP COLUMN feed_horizon`).execute(db);
}
