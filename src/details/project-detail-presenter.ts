/* Presenters whose rows are the queries' types: above the queries (src/contract stays below them); shared by the routes and the MCP tools. */
import type { FileRow, ProjectDetailRow } from '../queries/project-detail.js';
import type { LinkBuilder } from '../contract/links.js';
import { EMPTY_NEARBY_FACILITIES } from '../contract/nearby-facilities.js';
import { toFileObject, toOptionalFileObject } from '../contract/presenters/files.js';
import { toPaymentPlan, toPreferences } from '../contract/presenters/projects.js';

/*
 * GET /projects/{id}'s data as the API shows it (ProjectDetail), except the nearby block, which is left
 * as the empty placeholder: the route splices the facilities' stored JSON text in unparsed (raw-json.ts).
 * Shared by the route and the MCP tool get_project.
 */
export function toProjectDetail(row: ProjectDetailRow, links: LinkBuilder) {
  const file = (value: FileRow | null) => toOptionalFileObject(value, links);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    development_status: row.development_status,
    is_draft: false as const,
    is_branded: row.is_branded,
    is_resale: row.is_resale,
    is_escrow: row.is_escrow,
    area_name: row.area_name,
    area_city: row.area_city,
    handover_date: row.handover_date,
    launch_date: row.launch_date,
    launch_time: row.launch_time,
    readiness_progress: row.readiness_progress,
    total_floors: row.total_floors,
    developer_registration_id: row.developer_registration_id,
    trakheesi_project_id: row.trakheesi_project_id,
    escrow_account: row.escrow_account,
    oqood_registration: row.oqood_registration,
    resale_conditions: row.resale_conditions,
    floors_formula: row.floors_formula,
    price_from: row.price_from,
    size_from: row.size_from,
    logo: links(row.logo_path),
    company: { id: row.company_id, name: row.company_name, logo: links(row.company_logo_path) },
    location: {
      area_id: row.area_id,
      area_name: row.area_name,
      area_city: row.area_city,
      address: row.address,
      latitude: row.latitude,
      longitude: row.longitude,
    },
    cost: { currency: row.currency, commission_type: row.commission_type, service_charge: row.service_charge },
    payment_plans: row.payment_plans.map(toPaymentPlan),
    media: {
      images: row.images.map((image) => ({ id: image.file.id, position: image.position, file: toFileObject(image.file, links) })),
      tours: row.tours,
      presentations: row.presentations,
      floor_plan_file: file(row.floor_plan_file),
      brochure_file: file(row.brochure_file),
      general_plan_file: file(row.general_plan_file),
    },
    units: row.units,
    preferences: toPreferences(row.features),
    nearby_facilities: EMPTY_NEARBY_FACILITIES,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
