import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * Names of the codes (migration 0011) and of the ids the facets of GET /projects count by: served by
 * GET /project-types and GET /development-statuses, and read by the search snapshot for facet labels.
 */

export function listProjectTypes(db: Kysely<DB>) {
  return db.selectFrom('project_types').select(['id', 'name']).orderBy('id').execute();
}

export function listDevelopmentStatuses(db: Kysely<DB>) {
  return db.selectFrom('development_statuses').select(['id', 'name']).orderBy('id').execute();
}

export type CodeNameRow = { id: number; name: string };

/** Every name a project-level facet value may need: types, development statuses, areas, developer companies. */
export async function readFacetNames(db: Kysely<DB>): Promise<Record<'unit_types' | 'development_status' | 'area' | 'developer', CodeNameRow[]>> {
  // One after the other: the snapshot reads inside one transaction, which has one connection.
  const unitTypes = await listProjectTypes(db);
  const developmentStatuses = await listDevelopmentStatuses(db);
  const areas = await db.selectFrom('areas').select(['id', 'name']).execute();
  const developers = await db.selectFrom('companies').select(['id', 'company_name as name']).where('company_type', '=', 3).execute();
  return { unit_types: unitTypes, development_status: developmentStatuses, area: areas, developer: developers };
}
