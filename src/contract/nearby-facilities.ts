import { FACILITY_CATEGORIES, type FacilityCategory } from '../domain/catalogue-codes.js';

/*
 * The nearby-facilities block of GET /projects/{id} as JSON text, assembled from the per-category entry
 * texts the query builds out of the facilities' stored JSON (migration 0005), without parsing any of it:
 * one array per category, every category present, in the schema's order. Shape: NearbyFacilities.
 */

/** The block with every category empty: what the schema serializer writes in its place. */
export const EMPTY_NEARBY_FACILITIES = Object.freeze(Object.fromEntries(FACILITY_CATEGORIES.map((category) => [category, []]))) as Readonly<
  Record<FacilityCategory, never[]>
>;

/** The block's JSON text in parts, to be sent without joining them (see sendJsonParts). */
export function nearbyFacilitiesJsonParts(rows: readonly { category: FacilityCategory; entries_json: string }[]): string[] {
  const entries = new Map(rows.map((row) => [row.category, row.entries_json]));
  const parts: string[] = [];
  FACILITY_CATEGORIES.forEach((category, i) => parts.push(`${i === 0 ? '{' : '],'}${JSON.stringify(category)}:[`, entries.get(category) ?? ''));
  parts.push(']}');
  return parts;
}

/*
 * The block as the page needs it (additions, GET /projects/{id}): `nearby_limit` keeps the nearest N
 * of each category, and `nearby=summary` gives each facility only the fields below, those a map or a
 * list of nearby places shows, without the 30 to 50 master-data fields. A summary facility is the full
 * one with the other fields removed (same values, same order); fields the record lacks stay absent.
 * Coordinates are `latitude`/`longitude` for airports_ports, `asset_latitude`/`asset_longitude` otherwise.
 */
export const NEARBY_FORMS = ['full', 'summary'] as const;
export type NearbyForm = (typeof NEARBY_FORMS)[number];
export const SUMMARY_FACILITY_FIELDS = ['source_id', 'name', 'category', 'latitude', 'longitude', 'asset_latitude', 'asset_longitude'] as const;
/** The largest nearby_limit accepted (a page shows a handful; without the parameter there is no limit). */
export const MAX_NEARBY_LIMIT = 1000;
