import { sql, type Kysely } from 'kysely';

/*
 * Distance from each project to its nearest linked facility of every category, kept by the importer
 * next to the links it is derived from. GET /projects answers `near_<category>` from these columns
 * instead of probing the (millions of rows) link table once per candidate project.
 * NULL: no linked facility of that category.
 */
const CATEGORIES = ['airports_ports', 'education', 'employment', 'healthcare', 'lifestyle', 'retail', 'transport', 'tourism'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const columns = CATEGORIES.map((c) => `ADD COLUMN nearest_${c}_m double precision`).join(', ');
  await sql.raw(`ALTER TABLE projects ${columns}`).execute(db);
  const minima = CATEGORIES.map((c) => `min(distance_m) FILTER (WHERE category = '${c}') AS nearest_${c}_m`).join(', ');
  const sets = CATEGORIES.map((c) => `nearest_${c}_m = n.nearest_${c}_m`).join(', ');
  await sql
    .raw(`UPDATE projects p SET ${sets} FROM (SELECT project_id, ${minima} FROM project_facilities GROUP BY project_id) n WHERE n.project_id = p.id`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE projects ${CATEGORIES.map((c) => `DROP COLUMN nearest_${c}_m`).join(', ')}`).execute(db);
}
