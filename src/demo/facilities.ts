import { ALL_AREAS, AREA_ID_BY_NAME, type AreaDef } from './areas.js';
import { AIRPORTS_AND_PORTS } from './airports-and-ports.js';
import type { Row } from './bundle-record.js';
import { pointNear } from './coordinates.js';
import { FACILITY_CATEGORIES } from '../domain/catalogue-codes.js';
import type { FacilityContext } from './facility-fields.js';
import { buildFacility } from './facility-records.js';
import type { ProjectInfo } from './projects.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';

/*
 * Places the facilities: near projects (some close, some a few km away) or around area centres, so the
 * importer's project-facility links get a realistic spread of distances.
 */

/** `total`: the facilities wanted over all categories (default ~10 per project, at least 40 per category). */
export function generateFacilities(
  rng: Rng,
  infos: readonly ProjectInfo[],
  areaList: readonly AreaDef[],
  projectCount: number,
  total: number | undefined,
): Row<'facilities'>[] {
  const located = infos.filter((p): p is ProjectInfo & { lat: number; lng: number } => p.lat !== undefined && p.lng !== undefined);
  const perCategory =
    total === undefined
      ? Math.max(40, Math.ceil((projectCount * 10) / FACILITY_CATEGORIES.length))
      : Math.max(30, Math.ceil(Math.max(0, total) / FACILITY_CATEGORIES.length));
  const facilities: Row<'facilities'>[] = [];
  for (const category of FACILITY_CATEGORIES) {
    const fixed = category === 'airports_ports' ? AIRPORTS_AND_PORTS : [];
    for (let seq = 1; seq <= perCategory; seq++) {
      let lat: number;
      let lng: number;
      let area: AreaDef;
      const fixedEntry = fixed[seq - 1];
      if (fixedEntry) {
        lat = fixedEntry.lat;
        lng = fixedEntry.lng;
        area = ALL_AREAS[AREA_ID_BY_NAME.get(fixedEntry.nearestArea)! - 1];
      } else {
        // Near a project (some within 500 m, some a few km away) or around an area centre.
        const anchor = located.length > 0 && rng.chance(0.75) ? rng.pick(located) : undefined;
        area = anchor ? anchor.area : rng.pick(areaList);
        const band = rng.weighted<readonly [number, number]>([[[20, 500], 40], [[500, 3000], 35], [[3000, 9000], 25]]);
        [lat, lng] = pointNear(rng, anchor?.lat ?? area.lat, anchor?.lng ?? area.lng, band[0], band[1]);
      }
      const ctx: FacilityContext = { rng, seq, area, lat, lng, fixed: fixedEntry };
      const { sourceId, data } = buildFacility(category, ctx);
      facilities.push({ category, source_id: sourceId, data, created_at: ts(-400), updated_at: ts(-rng.int(1, 120)) });
    }
  }
  return facilities;
}
