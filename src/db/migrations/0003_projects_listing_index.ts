import { sql, type Kysely } from 'kysely';

/*
 * GET /projects counts every match (total), so it reads every visible project on each call. The
 * projects rows are wide (descriptions, legal texts: ~1.4 kB each, 880 pages at 5,000 projects), and
 * a scan of them was the largest part of an unfiltered page. This index carries the listing order and
 * every project-level filter column, so the scan is index-only over a narrow structure; it replaces
 * projects_name (same key, same predicate).
 */
const CATEGORIES = ['airports_ports', 'education', 'employment', 'healthcare', 'lifestyle', 'retail', 'transport', 'tourism'];

/** The columns projects_listing includes (migration 0006 builds a wider twin from the same list). */
export const LISTING_INCLUDED = [
  'company_id',
  'type',
  'development_status',
  'is_branded',
  'is_resale',
  'handover_date',
  'latitude',
  'longitude',
  ...CATEGORIES.map((c) => `nearest_${c}_m`),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const included = LISTING_INCLUDED.join(', ');
  await sql.raw(`CREATE INDEX projects_listing ON projects (name, id) INCLUDE (${included}) WHERE NOT is_draft AND deleted_at IS NULL`).execute(db);
  await sql.raw(`DROP INDEX projects_name`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`CREATE INDEX projects_name ON projects (name, id) WHERE NOT is_draft AND deleted_at IS NULL`).execute(db);
  await sql.raw(`DROP INDEX projects_listing`).execute(db);
}
