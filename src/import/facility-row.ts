/*
 * What a bundle facility record becomes in its row: the JSON that GET /projects/{id} serves for it,
 * and the coordinates the project links are computed from (src/import/facility-links.ts).
 */

/**
 * The facility object GET /projects/{id} serves: the record as imported, unchanged, with the bundle's
 * source id first when the record itself has none (a `source_id` in the record wins).
 */
export function servedFacility(r: { source_id: unknown; data: Record<string, unknown> }): Record<string, unknown> {
  return { source_id: String(r.source_id), ...r.data };
}

/*
 * Facility coordinates live in the source record: latitude/longitude for airports and ports,
 * asset_latitude/asset_longitude for every other category. Numbers or numeric strings; anything else,
 * or a value outside the valid range, leaves the facility without coordinates (and without links).
 */
export function facilityCoordinates(category: string, data: Record<string, unknown>): { latitude: number | null; longitude: number | null } {
  const [latKey, lonKey] = category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
  const latitude = coordinate(data[latKey], 90);
  const longitude = coordinate(data[lonKey], 180);
  return latitude === null || longitude === null ? { latitude: null, longitude: null } : { latitude, longitude };
}

/** A plain decimal number, as text (Number() alone would also take '0x19', '0b1' or 'Infinity'). */
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i;

function coordinate(value: unknown, limit: number): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value) ? Number(value) : NaN;
  return Number.isFinite(number) && Math.abs(number) <= limit ? number : null;
}
