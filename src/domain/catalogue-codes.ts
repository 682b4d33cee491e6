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

/**
 * companies.company_type: agencies hold keys and send applications; developers own projects, and a
 * developer's projects are visible to an agency's keys once they have an approved contract (SQL:
 * src/queries/visibility.ts, contractOpensSql; the bundle check: src/import/check-bundle.ts).
 */
export const COMPANY_TYPES = { agency: 2, developer: 3 } as const;

/** Unit `status` (spec: 1 to 5), as the `statuses` filter and facet take it. */
export const UNIT_STATUSES = { 1: 'announced', 2: 'EOI', 3: 'start of sales', 4: 'on sale', 5: 'out of stock' } as const;

/** Unit `furnishing` (spec: 1 to 4). */
export const FURNISHING = { 1: 'unfurnished', 2: 'partially furnished', 3: 'fully furnished', 4: 'premium' } as const;

/**
 * Payment plan part `type`: 1 down payment, 2 during construction, 3 on completion (due at or after
 * handover). The payment filters of GET /projects add the percents of the parts before handover (1 and
 * 2) or after it (3): src/queries/project-fragments.ts (paymentShareSql), src/search/snapshot.ts.
 */
export const PAYMENT_PLAN_TYPES = { downPayment: 1, duringConstruction: 2, onCompletion: 3 } as const;
export const PRE_HANDOVER_PLAN_TYPES = [PAYMENT_PLAN_TYPES.downPayment, PAYMENT_PLAN_TYPES.duringConstruction];
export const AFTER_HANDOVER_PLAN_TYPES = [PAYMENT_PLAN_TYPES.onCompletion];

/*
 * Codes the demo catalogue uses where the specification gives no meaning (src/demo):
 *   project type: 1 apartment, 2 villa, 3 townhouse, 4 penthouse
 *   development_status: 0 announced, 1 early construction, 2 advanced construction, 3 completed (ready)
 *   project feature type: 1 feature, 2 amenity
 *   company specialisation: 1 residential, 2 commercial, 3 mixed use
 *   user type: 1 agency owner, 2 agency staff, 3 developer staff, 0 former staff
 */
