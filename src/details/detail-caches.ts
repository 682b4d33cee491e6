import type { LinkBuilder } from '../contract/links.js';
import type { Database } from '../db/database.js';
import { keptBodies, type KeptBodies } from './compressed-once.js';
import type { DetailCache, DetailCacheBounds } from './detail-cache-budget.js';
import type { Snapshot } from '../search/snapshot.js';
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
  /** Each cache's bound in bytes (its share of DETAIL_CACHE_MB). */
  bounds: DetailCacheBounds;
  /** Bytes each cache keeps for `snapshot`, as counted against its bound (catalogue_detail_cache_bytes). */
  keptBytes(snapshot: Snapshot): Record<DetailCache, number>;
}

export function detailCaches(database: Database, links: LinkBuilder, bounds: DetailCacheBounds, units?: UnitPages): DetailCaches {
  const caches = {
    bodies: keptBodies(bounds),
    projects: projectDetails(database, links, bounds),
    units: units ?? unitPages(database, links, { bytes: bounds.unitPages }),
  };
  return {
    ...caches,
    bounds,
    keptBytes(snapshot) {
      const nearby = caches.projects.nearby.keptBytes(snapshot);
      return {
        ...caches.bodies.keptBytes(snapshot),
        unitPages: caches.units.kept(snapshot).bytes,
        nearbyLinks: nearby.links,
        nearbyFull: nearby.full,
        nearbySummary: nearby.summary,
        projectTexts: caches.projects.keptTextBytes(snapshot),
      };
    },
  };
}
