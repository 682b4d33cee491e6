import { sql, type Kysely } from 'kysely';

/*
 * Names for the codes the catalogue numbers: project types (a project's `type`) and development
 * statuses (a project's `development_status`, 0 to 3), from the bundle sections `project_types` and
 * `development_statuses`. Served by GET /project-types and GET /development-statuses and as facet
 * labels of GET /projects; the search snapshot reads them, so a write signals a catalogue change
 * (signal_catalogue_change of migration 0007), like every other table a catalogue answer depends on.
 */
const TABLES = ['project_types', 'development_statuses'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`CREATE TABLE project_types (id integer PRIMARY KEY, name text NOT NULL)`).execute(db);
  await sql.raw(`CREATE TABLE development_statuses (id integer PRIMARY KEY CHECK (id BETWEEN 0 AND 3), name text NOT NULL)`).execute(db);
  for (const table of TABLES) {
    await sql
      .raw(`CREATE TRIGGER ${table}_signal_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION signal_catalogue_change()`)
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql.raw(`DROP TABLE ${table}`).execute(db);
}
