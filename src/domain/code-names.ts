import { UNIT_STATUSES } from './catalogue-codes.js';
import { CSV_RULES, type FacetName } from './project-filters.js';

/*
 * Names for the codes of the catalogue, the one home of the labels GET /projects puts beside facet
 * values. Codes whose names the specification gives (unit status, bedrooms, the project flags) are
 * named here; project types and development statuses are named by the catalogue itself (bundle
 * sections `project_types` and `development_statuses`, migration 0011) and read with the search
 * snapshot. A code without a name gets the label null: the id is still the value to filter by.
 */

/** Unit `status` names (catalogue-codes.ts, as the specification gives them), capitalised as labels. */
export const UNIT_STATUS_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(UNIT_STATUSES).map(([status, name]) => [status, name[0].toUpperCase() + name.slice(1)]),
);

/** A `bedrooms` filter value (0 studio, 5 five or more) in words. */
export function bedroomsName(bedrooms: number): string {
  if (bedrooms === 0) return 'Studio';
  if (bedrooms >= 5) return '5+ bedrooms';
  return bedrooms === 1 ? '1 bedroom' : `${bedrooms} bedrooms`;
}

/** The two values of each yes/no facet, [false, true]. */
export const FLAG_NAMES = {
  is_branded: ['Not branded', 'Branded'],
  is_resale: ['New from the developer', 'Resale'],
  is_escrow: ['No escrow account', 'Escrow account'],
} as const;

/**
 * The filter of GET /projects that takes a facet's values, or null (`area` has none). A facet value
 * is offered as a filter only when this filter accepts it: `development_status` counts projects of
 * status 0, which the specified filter (1 to 3) refuses with 400, so that value is `filterable: false`.
 */
const FACET_FILTERS = {
  bedrooms: 'bedrooms',
  statuses: 'statuses',
  development_status: 'development_status',
  developer: 'developer_ids',
  unit_types: 'unit_types',
  area: null,
  is_branded: 'is_branded',
  is_resale: 'is_resale',
  is_escrow: 'is_escrow',
} as const satisfies Record<FacetName, string | null>;

export function facetFilter(facet: FacetName): string | null {
  return FACET_FILTERS[facet];
}

/** Whether the facet's own filter takes `value` alone (a boolean flag takes both values). */
export function isFilterable(facet: FacetName, value: number | boolean): boolean {
  const filter = FACET_FILTERS[facet];
  if (filter === null) return false;
  if (typeof value === 'boolean') return true;
  const rule = CSV_RULES[filter as keyof typeof CSV_RULES];
  return value >= rule.min && value <= rule.max;
}
