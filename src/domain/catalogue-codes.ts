/*
 * The catalogue's codes, in one place: what each stored number or name means, as the specification
 * and the bundle contract define them. Schemas, queries, the search, the importer and the demo
 * generator take their lists from here. Migrations keep their own copies on purpose: a migration is
 * history and must create the same schema whatever this module says later.
 */

/**
 * Facility categories, in the order of the nearby-facilities block of GET /projects/{id}. Each has a
 * column `projects.nearest_<category>_m` (migration 0002) and a `near_*` filter of GET /projects.
 */
export const FACILITY_CATEGORIES = ['airports_ports', 'education', 'employment', 'healthcare', 'lifestyle', 'retail', 'transport', 'tourism'] as const;
export type FacilityCategory = (typeof FACILITY_CATEGORIES)[number];
