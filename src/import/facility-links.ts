import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { FACILITY_CATEGORIES } from '../domain/catalogue-codes.js';
import { EARTH_RADIUS_M, haversineSqlText } from '../domain/geo.js';
import { chunks, execute, query } from './raw-sql.js';

/*
 * Project ↔ facility links ("nearby facilities"), computed at import time so that reads never do
 * geometry. A project with coordinates is linked to every facility within the link radius, with the
 * great-circle distance stored on the link.
 *
 * The search is a bounding box on the facilities_location (latitude, longitude) index followed by the
 * exact haversine distance, so the cost grows with the facilities near each project, not with
 * projects × facilities.
 */

/** Projects per linking statement: keeps each statement short (the pool has a per-query timeout). */
const PROJECTS_PER_STATEMENT = 500;
/** Ids per DELETE statement. */
const IDS_PER_STATEMENT = 10_000;
/** Above this many touched rows (projects + facilities) an import rebuilds the link table (see below). */
const REBUILD_THRESHOLD = 1_000;

export type RelinkStrategy = 'incremental' | 'rebuild';

export interface RelinkScope {
  /** Projects written by the import: relinked against every facility. */
  projectIds: number[];
  /** Facilities written by the import: relinked against every other project. */
  facilityIds: number[];
  radiusM: number;
  /** Default: incremental up to REBUILD_THRESHOLD touched rows, rebuild above. */
  strategy?: RelinkStrategy;
}

/*
 * Two ways to the same rows.
 *
 * incremental: delete the touched links and insert the new ones into the live table. Every inserted
 * row fires the two foreign-key triggers and updates three indexes, which is fine for the few
 * thousand links of a daily bundle but takes minutes for millions (docs/performance.md, "Facility
 * links").
 *
 * rebuild: copy the untouched links and insert the new ones into a bare table, then build its
 * indexes and validate its foreign keys in bulk (one sort per index, one join per key) and swap it
 * in for the old table. Readers keep using the old table until the swap at the very end of the
 * import transaction, so they wait only for the commit, not for the linking.
 */
export async function relinkFacilities(db: Kysely<DB>, scope: RelinkScope): Promise<number> {
  const { projectIds, facilityIds } = scope;
  if (projectIds.length === 0 && facilityIds.length === 0) return 0;
  const touched = projectIds.length + facilityIds.length;
  const strategy = scope.strategy ?? (touched > REBUILD_THRESHOLD ? 'rebuild' : 'incremental');

  if (touched > REBUILD_THRESHOLD) {
    // A large import leaves the statistics describing the tables as they were (often empty). With
    // them the planner may scan every facility for every project instead of probing the location
    // index. ANALYZE inside the transaction sees our own uncommitted rows.
    await execute(db, 'ANALYZE facilities, projects', []);
  }
  let links: number;
  if (strategy === 'rebuild') {
    links = await rebuildLinks(db, scope);
  } else {
    await deleteLinks(db, 'project_id', projectIds);
    await deleteLinks(db, 'facility_id', facilityIds);
    links = await insertLinks(db, LINKS_TABLE, scope);
  }
  // A touched facility may have been (or become) the nearest of any project.
  await updateNearest(db, facilityIds.length > 0 ? undefined : projectIds);
  return links;
}

/*
 * projects.nearest_<category>_m (migration 0002) from the links, for the given projects or all of them.
 * Rows whose distances did not change are not rewritten.
 */
async function updateNearest(db: Kysely<DB>, projectIds: number[] | undefined): Promise<void> {
  const minima = FACILITY_CATEGORIES.map((c) => `min(pf.distance_m) FILTER (WHERE pf.category = '${c}') AS nearest_${c}_m`).join(',\n');
  const sets = FACILITY_CATEGORIES.map((c) => `nearest_${c}_m = n.nearest_${c}_m`).join(', ');
  const changed = FACILITY_CATEGORIES.map((c) => `p.nearest_${c}_m IS DISTINCT FROM n.nearest_${c}_m`).join(' OR ');
  const scope = projectIds ? 'WHERE p2.id = ANY($1::int[])' : '';
  await execute(
    db,
    `UPDATE projects p SET ${sets}
       FROM (SELECT p2.id, ${minima}
               FROM projects p2 LEFT JOIN ${LINKS_TABLE} pf ON pf.project_id = p2.id
              ${scope}
              GROUP BY p2.id) n
      WHERE p.id = n.id AND (${changed})`,
    projectIds ? [projectIds] : [],
  );
}

/** The facility links table (rebuilt whole by large imports, see relinkFacilities). */
export const LINKS_TABLE = 'project_facilities';
const REBUILT = 'project_facilities_rebuilt';

/** Links the touched projects to every facility and the other projects to the touched facilities. */
async function insertLinks(db: Kysely<DB>, table: string, scope: RelinkScope): Promise<number> {
  let links = 0;
  for (const ids of chunks(scope.projectIds, PROJECTS_PER_STATEMENT)) {
    links += await linkProjects(db, table, ids, scope.radiusM);
  }
  if (scope.facilityIds.length > 0) {
    // Projects the import did not touch only need links to the facilities it did touch.
    const others = await projectsWithCoordinatesExcept(db, scope.projectIds);
    for (const ids of chunks(others, PROJECTS_PER_STATEMENT)) {
      links += await linkProjects(db, table, ids, scope.radiusM, scope.facilityIds);
    }
  }
  return links;
}

/*
 * The table as migration 0001 creates it, under another name; test/import-link-strategies.test.ts checks that a rebuilt
 * table has the same columns, indexes and constraints as a migrated one.
 */
const REBUILT_INDEXES = [
  `ALTER TABLE ${REBUILT} ADD CONSTRAINT ${REBUILT}_pkey PRIMARY KEY (project_id, facility_id)`,
  `CREATE INDEX ${REBUILT}_nearest ON ${REBUILT} (project_id, category, distance_m)`,
  `CREATE INDEX ${REBUILT}_facility ON ${REBUILT} (facility_id)`,
  `ALTER TABLE ${REBUILT}
     ADD CONSTRAINT ${LINKS_TABLE}_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE,
     ADD CONSTRAINT ${LINKS_TABLE}_facility_id_fkey FOREIGN KEY (facility_id) REFERENCES facilities (id) ON DELETE CASCADE`,
];
const SWAP = [
  `DROP TABLE ${LINKS_TABLE}`,
  `ALTER TABLE ${REBUILT} RENAME TO ${LINKS_TABLE}`,
  `ALTER TABLE ${LINKS_TABLE} RENAME CONSTRAINT ${REBUILT}_pkey TO ${LINKS_TABLE}_pkey`,
  `ALTER INDEX ${REBUILT}_nearest RENAME TO ${LINKS_TABLE}_nearest`,
  `ALTER INDEX ${REBUILT}_facility RENAME TO ${LINKS_TABLE}_facility`,
  `ANALYZE ${LINKS_TABLE}`,
];

async function rebuildLinks(db: Kysely<DB>, scope: RelinkScope): Promise<number> {
  // Index builds sort in memory up to this much (per statement, this transaction only).
  await execute(db, `SET LOCAL maintenance_work_mem = '128MB'`, []);
  await execute(db, `CREATE TABLE ${REBUILT} (LIKE ${LINKS_TABLE} INCLUDING DEFAULTS)`, []);
  await execute(
    db,
    `INSERT INTO ${REBUILT} (project_id, facility_id, category, distance_m)
     SELECT pf.project_id, pf.facility_id, pf.category, pf.distance_m
       FROM ${LINKS_TABLE} pf
       LEFT JOIN unnest($1::int[]) AS tp (id) ON tp.id = pf.project_id
       LEFT JOIN unnest($2::int[]) AS tf (id) ON tf.id = pf.facility_id
      WHERE tp.id IS NULL AND tf.id IS NULL`,
    [scope.projectIds, scope.facilityIds],
  );
  const links = await insertLinks(db, REBUILT, scope);
  for (const statement of [...REBUILT_INDEXES, ...SWAP]) await execute(db, statement, []);
  return links;
}

async function deleteLinks(db: Kysely<DB>, column: 'project_id' | 'facility_id', ids: number[]): Promise<void> {
  for (const chunk of chunks(ids, IDS_PER_STATEMENT)) {
    await execute(db, `DELETE FROM project_facilities WHERE ${column} = ANY($1::int[])`, [chunk]);
  }
}

async function projectsWithCoordinatesExcept(db: Kysely<DB>, excluded: number[]): Promise<number[]> {
  const rows = await query<{ id: number }>(
    db,
    `SELECT id FROM projects
      WHERE latitude IS NOT NULL AND longitude IS NOT NULL AND id <> ALL($1::int[])
      ORDER BY id`,
    [excluded],
  );
  return rows.map((row) => row.id);
}

/*
 * Box around each project, in degrees. Latitude: ± the angular radius δ = r / R. Longitude: the widest
 * point of a spherical cap is asin(sin δ / cos φ) away; when the cap reaches a pole every longitude
 * qualifies (360 makes the window the whole circle). A window crossing the antimeridian is split in
 * two ranges so each stays a plain range on the index.
 */
const LINK_SQL = (table: string, restrictToFacilities: boolean) => `
  WITH box AS (
    SELECT p.id, p.latitude AS lat, p.longitude AS lon,
           p.latitude - $2::float8 AS lat_lo, p.latitude + $2::float8 AS lat_hi,
           CASE WHEN abs(p.latitude) + $2::float8 >= 90 THEN 360
                ELSE degrees(asin(sin($3::float8) / cos(radians(p.latitude)))) END AS dlon
      FROM projects p
     WHERE p.id = ANY($1::int[]) AND p.latitude IS NOT NULL AND p.longitude IS NOT NULL
  ), windows AS (
    SELECT id, lat, lon, lat_lo, lat_hi, greatest(lon - dlon, -180) AS lon_lo, least(lon + dlon, 180) AS lon_hi FROM box
    UNION ALL
    SELECT id, lat, lon, lat_lo, lat_hi, lon - dlon + 360, 180 FROM box WHERE dlon < 180 AND lon - dlon < -180
    UNION ALL
    SELECT id, lat, lon, lat_lo, lat_hi, -180, lon + dlon - 360 FROM box WHERE dlon < 180 AND lon + dlon > 180
  ), candidates AS (
    SELECT w.id AS project_id, f.id AS facility_id, f.category,
           ${haversineSqlText('w.lat', 'w.lon', 'f.latitude', 'f.longitude')} AS distance_m
      FROM windows w
      JOIN facilities f
        ON f.latitude BETWEEN w.lat_lo AND w.lat_hi
       AND f.longitude BETWEEN w.lon_lo AND w.lon_hi
     ${restrictToFacilities ? 'WHERE f.id = ANY($5::int[])' : ''}
  )
  INSERT INTO ${table} (project_id, facility_id, category, distance_m)
  SELECT project_id, facility_id, category, distance_m FROM candidates WHERE distance_m <= $4::float8`;

async function linkProjects(db: Kysely<DB>, table: string, projectIds: number[], radiusM: number, onlyFacilities?: number[]): Promise<number> {
  const delta = radiusM / EARTH_RADIUS_M;
  const params: unknown[] = [projectIds, (delta * 180) / Math.PI, delta, radiusM];
  if (onlyFacilities) params.push(onlyFacilities);
  const result = await execute(db, LINK_SQL(table, onlyFacilities !== undefined), params);
  return Number(result.numAffectedRows ?? 0n);
}
