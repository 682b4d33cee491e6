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
