import { sql, type Kysely } from 'kysely';
import { LISTING_INCLUDED } from './0003_projects_listing_index.js';

/*
 * A summary of each project's live units by bedroom bucket (0..4, and 5 for five or more: the buckets
 * of the `bedrooms` filter): the lowest and highest base price and whether the bucket has a unit. The
 * commonest unit filters of GET /projects (bedrooms, with price_max or price_min) are then a test on
 * a listing index tuple instead of a probe into units for every visible project: on the L
 * catalogue that probe was 33 of the 37 ms of a `bedrooms=2&price_max=...` page. Other unit filters
 * still use the EXISTS over units, with the summary as a cheap pre-test.
 *
 * Kept by statement-level triggers on units, so every writer (the importer, manual SQL, a rolling
 * deploy's older importer) keeps it right; a statement recomputes only the projects its rows touch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `ALTER TABLE projects
         ADD COLUMN unit_min_prices numeric(16, 2)[] NOT NULL DEFAULT '{NULL,NULL,NULL,NULL,NULL,NULL}',
         ADD COLUMN unit_max_prices numeric(16, 2)[] NOT NULL DEFAULT '{NULL,NULL,NULL,NULL,NULL,NULL}',
         ADD COLUMN unit_bedroom_mask smallint NOT NULL DEFAULT 0`,
    )
    .execute(db);

  // Element b + 1 of the price arrays is bucket b; bit b of the mask is set when bucket b has a live unit.
  // One grouped pass over the units of the given projects (linear: it also backfills every project).
  await sql
    .raw(
      `CREATE FUNCTION refresh_project_unit_summary(project_ids integer[]) RETURNS void LANGUAGE sql AS $$
         WITH summary AS (
           SELECT p.id,
                  ARRAY[${bucketAggregates('min')}]::numeric(16, 2)[] AS mins,
                  ARRAY[${bucketAggregates('max')}]::numeric(16, 2)[] AS maxs,
                  coalesce(bit_or(1 << least(u.bedrooms, 5)) FILTER (WHERE u.project_id IS NOT NULL), 0)::smallint AS mask
             FROM projects p
             LEFT JOIN units u ON u.project_id = p.id AND u.deleted_at IS NULL
            WHERE p.id = ANY(project_ids)
            GROUP BY p.id
         )
         UPDATE projects p
            SET unit_min_prices = s.mins, unit_max_prices = s.maxs, unit_bedroom_mask = s.mask
           FROM summary s
          WHERE p.id = s.id
            AND (p.unit_min_prices, p.unit_max_prices, p.unit_bedroom_mask) IS DISTINCT FROM (s.mins, s.maxs, s.mask)
       $$`,
    )
    .execute(db);

  /*
   * Transition tables need one trigger per event; one function serves them all. The projects are
   * locked first, in id order, and the refresh runs as the next statement: under READ COMMITTED that
   * statement's snapshot then includes the units of any concurrent writer of the same project that
   * committed while this one waited, so the last refresh sees every unit, not only its own.
   */
  await sql
    .raw(
      `CREATE FUNCTION units_refresh_project_unit_summary() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         ids integer[];
       BEGIN
         IF TG_OP = 'INSERT' THEN
           ids := ARRAY(SELECT DISTINCT project_id FROM new_units);
         ELSIF TG_OP = 'UPDATE' THEN
           -- Only rows whose summary inputs changed: a re-import of unchanged units recomputes nothing.
           -- (A row whose id changed has no partner and counts as changed.)
           ids := ARRAY(
             SELECT DISTINCT unnest(ARRAY[n.project_id, o.project_id])
               FROM new_units n FULL JOIN old_units o ON o.id = n.id
              WHERE n.id IS NULL OR o.id IS NULL
                 OR (n.project_id, n.bedrooms, n.price, n.deleted_at IS NULL)
                    IS DISTINCT FROM (o.project_id, o.bedrooms, o.price, o.deleted_at IS NULL));
         ELSIF TG_OP = 'DELETE' THEN
           ids := ARRAY(SELECT DISTINCT project_id FROM old_units);
         ELSE -- TRUNCATE
           ids := ARRAY(SELECT id FROM projects WHERE unit_bedroom_mask <> 0);
         END IF;
         IF cardinality(ids) = 0 THEN
           RETURN NULL;
         END IF;
         PERFORM 1 FROM projects WHERE id = ANY(ids) ORDER BY id FOR UPDATE;
         PERFORM refresh_project_unit_summary(ids);
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);
  for (const [name, event, transitionTables] of SUMMARY_TRIGGERS) {
    await sql
      .raw(`CREATE TRIGGER ${name} AFTER ${event} ON units ${transitionTables} FOR EACH STATEMENT EXECUTE FUNCTION units_refresh_project_unit_summary()`)
      .execute(db);
  }

  await sql.raw(`SELECT refresh_project_unit_summary(ARRAY(SELECT id FROM projects))`).execute(db);

  /*
   * A second listing index that also carries the summary, so the test stays index-only. A second one,
   * not a wider projects_listing: the arrays make the index three times larger (4.8 MB against 1.5 MB
   * on L), and pages without unit filters, which read every visible project, would pay for that; the
   * planner takes the narrow index when no summary column is referenced.
   */
  await sql
    .raw(`CREATE INDEX projects_listing_units ON projects (name, id) INCLUDE (${LISTING_WITH_UNITS.join(', ')}) WHERE NOT is_draft AND deleted_at IS NULL`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DROP INDEX projects_listing_units`).execute(db);
  for (const [name] of SUMMARY_TRIGGERS) await sql.raw(`DROP TRIGGER ${name} ON units`).execute(db);
  await sql.raw(`DROP FUNCTION units_refresh_project_unit_summary()`).execute(db);
  await sql.raw(`DROP FUNCTION refresh_project_unit_summary(integer[])`).execute(db);
  await sql.raw(`ALTER TABLE projects DROP COLUMN unit_min_prices, DROP COLUMN unit_max_prices, DROP COLUMN unit_bedroom_mask`).execute(db);
}

/** Name, event and transition tables of the triggers that keep the summary. */
const SUMMARY_TRIGGERS = [
  ['units_summary_insert', 'INSERT', 'REFERENCING NEW TABLE AS new_units'],
  ['units_summary_update', 'UPDATE', 'REFERENCING OLD TABLE AS old_units NEW TABLE AS new_units'],
  ['units_summary_delete', 'DELETE', 'REFERENCING OLD TABLE AS old_units'],
  ['units_summary_truncate', 'TRUNCATE', ''],
] as const;

/** `fn(u.price)` for buckets 0 to 4 and for five bedrooms or more, in bucket order. */
function bucketAggregates(fn: 'min' | 'max'): string {
  const buckets = [0, 1, 2, 3, 4].map((bedrooms) => `${fn}(u.price) FILTER (WHERE u.bedrooms = ${bedrooms})`);
  return [...buckets, `${fn}(u.price) FILTER (WHERE u.bedrooms >= 5)`].join(', ');
}

// The columns of projects_listing (migration 0003), then the summary.
const LISTING_WITH_UNITS = [...LISTING_INCLUDED, 'unit_bedroom_mask', 'unit_min_prices', 'unit_max_prices'];
