import { sql, type Expression, type RawBuilder } from 'kysely';

/*
 * The distance rule, in one place: distances are great-circle distances on a sphere of the mean Earth
 * radius, by the haversine formula, in metres. The same formula runs in JavaScript (the in-memory
 * search's radius filter and distance sort, haversineM) and in SQL (the importer's project–facility
 * links, whose distances the project detail shows and the near_* filters read; the SQL reference of
 * GET /projects): haversineSqlText / haversineSql below are its one SQL text. A bounding box narrows the
 * candidates on an index before the exact distance decides (boundingBox here, the link SQL's box in
 * src/import/facility-links.ts).
 */

/** Mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6371008.8;

export interface GeoBox {
  minLat: number;
  maxLat: number;
  /** Absent when the circle covers a pole or crosses the antimeridian: no longitude pre-filter then. */
  minLng?: number;
  maxLng?: number;
}

/** A latitude/longitude box containing every point within `radiusM` of the centre. */
export function boundingBox(lat: number, lng: number, radiusM: number): GeoBox {
  const angular = radiusM / EARTH_RADIUS_M;
  const toDeg = (rad: number) => (rad * 180) / Math.PI;
  const minLat = lat - toDeg(angular);
  const maxLat = lat + toDeg(angular);
  if (minLat <= -90 || maxLat >= 90 || angular >= Math.PI / 2) return { minLat: Math.max(minLat, -90), maxLat: Math.min(maxLat, 90) };
  const latRad = (lat * Math.PI) / 180;
  const deltaLng = toDeg(Math.asin(Math.min(1, Math.sin(angular) / Math.cos(latRad))));
  const minLng = lng - deltaLng;
  const maxLng = lng + deltaLng;
  if (minLng < -180 || maxLng > 180) return { minLat, maxLat };
  return { minLat, maxLat, minLng, maxLng };
}

/** Great-circle distance in metres (haversine); haversineSql is the same formula in SQL. */
export function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The formula as SQL text pieces around its four operands (degrees), for both SQL forms below. */
function haversineParts<T>(lat1: T, lng1: T, lat2: T, lng2: T): (string | T)[] {
  return [
    `(2 * ${EARTH_RADIUS_M}::float8 * asin(least(1::float8, sqrt(power(sin(radians(`, lat2, ' - ', lat1, ') / 2), 2) + cos(radians(', lat1,
    ')) * cos(radians(', lat2, ')) * power(sin(radians(', lng2, ' - ', lng1, ') / 2), 2)))))',
  ];
}

/** Great-circle distance in metres between two points given as SQL text (columns, $n parameters). */
export function haversineSqlText(lat1: string, lng1: string, lat2: string, lng2: string): string {
  return haversineParts(lat1, lng1, lat2, lng2).join('');
}

type Degrees = Expression<number | null> | RawBuilder<number | null> | RawBuilder<number>;

/** The same distance for Kysely, the operands being expressions or parameters. */
export function haversineSql(lat1: Degrees, lng1: Degrees, lat2: Degrees, lng2: Degrees): RawBuilder<number> {
  return sql<number>`${sql.join(haversineParts(lat1, lng1, lat2, lng2).map((part) => (typeof part === 'string' ? sql.raw(part) : part)), sql.raw(''))}`;
}
