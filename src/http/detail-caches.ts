import type { LinkBuilder } from '../contract/links.js';
import type { Database } from '../db/database.js';
import { keptBodies, type KeptBodies } from './compressed-once.js';
import type { DetailCacheBounds } from './detail-cache-budget.js';
import { projectDetails, type ProjectDetails } from './project-detail-body.js';
import { unitPages, type UnitPages } from './unit-detail-body.js';

/*
 * What one app keeps of its snapshots for the detail routes (GET /projects/{id}, GET /units/{id}, MCP's
 * get_project), made once in buildApp from DETAIL_CACHE_MB's shares (detail-cache-budget.ts). Each
 * cache is held per snapshot (src/search/per-snapshot.ts), so it goes with its catalogue; owning them
 * per app means two apps in one process (tests) never share one, and a bad bound fails at start-up.
 */
export interface DetailCaches {
  /** Bodies sent, compressed or not, with their ETags (compressed-once.ts). */
  bodies: KeptBodies;
  /** Project envelopes and nearby blocks (project-detail-body.ts, nearby-on-demand.ts). */
  projects: ProjectDetails;
  /** Units' project pages (unit-detail-body.ts). */
  units: UnitPages;
}

export function detailCaches(database: Database, links: LinkBuilder, bounds: DetailCacheBounds, units?: UnitPages): DetailCaches {
  return {
    bodies: keptBodies(bounds),
    projects: projectDetails(database, links, bounds),
    units: units ?? unitPages(database, links, { bytes: bounds.unitPages }),
  };
}
