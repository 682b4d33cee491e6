import type { LinkBuilder } from '../links.js';
import type { ProjectListItem, ProjectMatch } from '../schemas/projects.js';

/*
 * Project rows as the API shows them. Shared by the routes and by the in-memory search, which renders
 * each list item once per snapshot (src/search), so both shapes come from this one place.
 */

/** A feature or amenity of a project as the queries read it (a JSON array element, featuresJson). */
export interface FeatureRow {
  id: number;
  name: string;
  type: number;
}

/** The columns of a project an item of GET /projects is made of (the search's SearchProjectRow has them). */
export interface ProjectListRow {
  id: number;
  name: string;
  status: number;
  development_status: number;
  is_branded: boolean;
  is_resale: boolean;
  is_escrow: boolean;
  handover_date: string | null;
  currency: string;
  price_from: number | null;
  size_from: number | null;
  logo_path: string | null;
  company_id: number;
  company_name: string;
  company_logo_path: string | null;
  payment_plans: { type: number; percent: number }[];
  features: FeatureRow[];
  /** Only with `match=true` (the SQL reference's; the in-memory search splices its own into the item text). */
  match?: ProjectMatch;
}

export function toPaymentPlan(plan: { type: number; percent: number }) {
  return { type: plan.type as 1 | 2 | 3, percent: Number(plan.percent) };
}

export function toPreferences(features: readonly FeatureRow[]) {
  const toFeature = (row: FeatureRow) => ({ id: row.id, name: row.name, type: row.type as 1 | 2 });
  return {
    features: features.filter((row) => row.type === 1).map(toFeature),
    amenities: features.filter((row) => row.type === 2).map(toFeature),
  };
}

/** An item of GET /projects, in the schema's property order. */
export function toProjectListItem(row: ProjectListRow, links: LinkBuilder): ProjectListItem {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    development_status: row.development_status,
    is_branded: row.is_branded,
    is_resale: row.is_resale,
    is_escrow: row.is_escrow,
    handover_date: row.handover_date,
    price_from: row.price_from,
    size_from: row.size_from,
    currency: row.currency,
    logo: links(row.logo_path),
    company: { id: row.company_id, name: row.company_name, logo: links(row.company_logo_path) },
    payment_plans: row.payment_plans.map(toPaymentPlan),
    preferences: toPreferences(row.features),
    ...(row.match && { match: row.match }),
  };
}
