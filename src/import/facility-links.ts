import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * Project ↔ facility links ("nearby facilities"), computed at import time so that reads never do
 * geometry. A project with coordinates is linked to every facility within the link radius, with the
 * great-circle distance stored on the link.
 *
 * The search is a bounding box on the facilities_location (latitude, longitude) index followed by the
 * exact haversine distance, so the cost grows with the facilities near each project, not with
 * projects × facilities.
 */

/** Mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6371008.8;

/** Projects per linking statement: keeps each statement short (the pool has a per-query timeout). */
const PROJECTS_PER_STATEMENT = 500;
/** Ids per DELETE statement. */
const IDS_PER_STATEMENT = 10_000;
/** Above this many touched rows the planner statistics are refreshed before linking (see below). */
const ANALYZE_THRESHOLD = 1_000;

export interface RelinkScope {
  /** Projects written by the import: relinked against every facility. */
  projectIds: number[];
  /** Facilities written by the import: relinked against every other project. */
  facilityIds: number[];
  radiusM: number;
}

/** Recomputes the links of the touched projects and facilities; returns the number of links written. */
export async function relinkFacilities(db: Kysely<DB>, scope: RelinkScope): Promise<number> {
  const { projectIds, facilityIds } = scope;
  if (projectIds.length === 0 && facilityIds.length === 0) return 0;

  await deleteLinks(db, 'project_id', projectIds);
  await deleteLinks(db, 'facility_id', facilityIds);
  if (projectIds.length + facilityIds.length > ANALYZE_THRESHOLD) {
    // A large import leaves the statistics describing the tables as they were (often empty). With
    // them the planner may scan every facility for every project instead of probing the location
    // index. ANALYZE inside the transaction sees our own uncommitted rows.
    await run(db, 'ANALYZE facilities, projects', []);
  }

  let links = 0;
  for (const ids of chunks(projectIds, PROJECTS_PER_STATEMENT)) {
    links += await linkProjects(db, ids, scope.radiusM);
  }
  if (facilityIds.length > 0) {
    // Projects the import did not touch only need links to the facilities it did touch.
    const others = await projectsWithCoordinatesExcept(db, projectIds);
    for (const ids of chunks(others, PROJECTS_PER_STATEMENT)) {
      links += await linkProjects(db, ids, scope.radiusM, facilityIds);
    }
  }
  return links;
}

async function deleteLinks(db: Kysely<DB>, column: 'project_id' | 'facility_id', ids: number[]): Promise<void> {
  for (const chunk of chunks(ids, IDS_PER_STATEMENT)) {
    await run(db, `DELETE FROM project_facilities WHERE ${column} = ANY($1::int[])`, [chunk]);
  }
}

async function projectsWithCoordinatesExcept(db: Kysely<DB>, excluded: number[]): Promise<number[]> {
  const result = await db.executeQuery<{ id: number }>(
    CompiledQuery.raw(
      `SELECT id FROM projects
        WHERE latitude IS NOT NULL AND longitude IS NOT NULL AND id <> ALL($1::int[])
        ORDER BY id`,
      [excluded],
    ),
  );
  return result.rows.map((row) => row.id);
}

/*
 * Box around each project, in degrees. Latitude: ± the angular radius δ = r / R. Longitude: the widest
 * point of a spherical cap is asin(sin δ / cos φ) away; when the cap reaches a pole every longitude
 * qualifies (360 makes the window the whole circle). A window crossing the antimeridian is split in
 * two ranges so each stays a plain range on the index.
 */
const LINK_SQL = (restrictToFacilities: boolean) => `
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
           2 * ${EARTH_RADIUS_M}::float8 * asin(least(1, sqrt(
             power(sin(radians(f.latitude - w.lat) / 2), 2)
             + cos(radians(w.lat)) * cos(radians(f.latitude)) * power(sin(radians(f.longitude - w.lon) / 2), 2)
           ))) AS distance_m
      FROM windows w
      JOIN facilities f
        ON f.latitude BETWEEN w.lat_lo AND w.lat_hi
       AND f.longitude BETWEEN w.lon_lo AND w.lon_hi
     ${restrictToFacilities ? 'WHERE f.id = ANY($5::int[])' : ''}
  )
  INSERT INTO project_facilities (project_id, facility_id, category, distance_m)
  SELECT project_id, facility_id, category, distance_m FROM candidates WHERE distance_m <= $4::float8`;

async function linkProjects(db: Kysely<DB>, projectIds: number[], radiusM: number, onlyFacilities?: number[]): Promise<number> {
  const delta = radiusM / EARTH_RADIUS_M;
  const params: unknown[] = [projectIds, (delta * 180) / Math.PI, delta, radiusM];
  if (onlyFacilities) params.push(onlyFacilities);
  const result = await run(db, LINK_SQL(onlyFacilities !== undefined), params);
  return Number(result.numAffectedRows ?? 0n);
}

function run(db: Kysely<DB>, text: string, params: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, params));
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
