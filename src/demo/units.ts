import type { Row } from './bundle-record.js';
import type { AddFile } from './file-records.js';
import { pad, round } from './format.js';
import type { ProjectInfo } from './projects.js';
import { tagId } from './reference-lists.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';
import { DEMO_AED_PER_UNIT } from './currency-rates.js';

/*
 * The units of each project, with bedrooms, size, price and tags drawn from the project's area and type,
 * so that listings and search results look like a real off-plan market.
 */

const FT2_PER_M2 = 10.7639104;
const AED_PER_USD = 3.6725;
const AED_PER_EUR = 4.0;
/** Premiums (branded, penthouse, floor) never push a unit beyond this list price per ft². */
const MAX_AED_PER_FT2 = 3500;

export function generateUnits(rng: Rng, addFile: AddFile, infos: readonly ProjectInfo[], projectCount: number): Row<'units'>[] {
  const units: Row<'units'>[] = [];
  const large = projectCount >= 1000;
  for (const info of infos) {
    if (info.role === 'noUnits') continue;
    const count = large ? rng.int(40, 60) : rng.int(28, 48);
    const planByBedrooms = new Map<number, number>();
    const usedNumbers = new Set<string>();
    const buildings = info.type === 1 || info.type === 4 ? rng.int(1, 3) : 1;
    for (let k = 0; k < count; k++) {
      const unitId = units.length + 1;
      const bedrooms = pickBedrooms(rng, info.type);
      let floor: number;
      if (info.type === 2 || info.type === 3) floor = 0;
      else if (info.type === 4) floor = Math.max(1, info.totalFloors - rng.int(1, Math.min(5, info.totalFloors - 1)));
      else floor = rng.int(1, Math.max(1, info.totalFloors - 1));

      let unitNumber = '';
      for (let attempt = 0; attempt < 1000 && (unitNumber === '' || usedNumbers.has(unitNumber)); attempt++) {
        if (info.type === 2) unitNumber = `V-${pad(rng.int(1, 400), 3)}`;
        else if (info.type === 3) unitNumber = `TH-${pad(rng.int(1, 400), 3)}`;
        else unitNumber = `${'ABC'[rng.int(0, buildings - 1)]}-${floor}${pad(rng.int(1, 14), 2)}`;
      }
      if (usedNumbers.has(unitNumber)) unitNumber = `${unitNumber}-${k}`;
      usedNumbers.add(unitNumber);

      const unitArea = unitAreaM2(rng, bedrooms, info.type);
      const status =
        info.developmentStatus === 0 ? rng.weighted<number>([[1, 45], [2, 35], [3, 15], [5, 5]]) : rng.weighted<number>([[1, 4], [2, 8], [3, 14], [4, 56], [5, 18]]);
      const furnishing = info.isBranded
        ? rng.weighted<number>([[2, 10], [3, 45], [4, 45]])
        : rng.weighted<number>([[1, 55], [2, 18], [3, 19], [4, 8]]);
      const parking = bedrooms === 0 ? rng.int(0, 1) : bedrooms === 1 ? 1 : bedrooms === 2 ? rng.int(1, 2) : bedrooms <= 4 ? rng.int(2, 3) : 3;

      const u: Row<'units'> = { id: unitId, project_id: info.id, unit_number: unitNumber, bedrooms, status, furnishing, parking, floor };
      const unpriced = info.role === 'unpriced' || (status === 1 && rng.chance(0.3));
      if (!unpriced) {
        let ppf = rng.float(info.area.ppf[0], info.area.ppf[1]);
        if (info.isBranded) ppf *= 1.25;
        if (info.type === 4) ppf *= 1.2;
        if (info.type === 1 && info.totalFloors > 1) ppf *= 1 + (0.12 * floor) / info.totalFloors;
        ppf = Math.min(ppf, MAX_AED_PER_FT2);
        let price = unitArea * FT2_PER_M2 * ppf;
        if (info.currency === 'USD') price /= AED_PER_USD;
        else if (info.currency === 'EUR') price /= AED_PER_EUR;
        else if (info.currency !== 'AED') price /= DEMO_AED_PER_UNIT[info.currency];
        u.price = Math.round(price);
      }
      u.unit_area = unitArea;
      if (info.hasUnitPlans && rng.chance(0.85)) {
        let planId = planByBedrooms.get(bedrooms);
        if (planId === undefined) {
          const label = bedrooms === 0 ? 'studio' : `${bedrooms}-bedroom`;
          planId = addFile(`projects/${info.id}/plans/${label}.pdf`, `${label}-type-${'ABCD'[rng.int(0, 3)]}.pdf`, 'application/pdf', 150, 1500, info.createdDays);
          planByBedrooms.set(bedrooms, planId);
        }
        u.plan_file_id = planId;
      }
      u.tag_ids = pickUnitTags(rng, info, bedrooms, floor);
      if (unitId % 251 === 0) u.deleted = true;
      const created = info.createdDays + rng.int(0, 15);
      u.created_at = ts(created);
      u.updated_at = ts(Math.min(-1, created + rng.int(0, 200)));
      units.push(u);
    }
  }
  return units;
}

const BEDROOM_WEIGHTS: Readonly<Record<number, readonly (readonly [number, number])[]>> = {
  1: [[0, 16], [1, 36], [2, 30], [3, 14], [4, 4]],
  2: [[3, 20], [4, 35], [5, 30], [6, 15]],
  3: [[2, 15], [3, 45], [4, 30], [5, 10]],
  4: [[2, 10], [3, 30], [4, 30], [5, 20], [6, 10]],
};

function pickBedrooms(rng: Rng, type: number): number {
  return rng.weighted(BEDROOM_WEIGHTS[type] ?? BEDROOM_WEIGHTS[1]);
}

const AREA_RANGES_M2: Readonly<Record<number, readonly [number, number]>> = {
  0: [35, 45],
  1: [60, 85],
  2: [95, 135],
  3: [140, 200],
  4: [200, 300],
  5: [300, 450],
  6: [420, 600],
};

function unitAreaM2(rng: Rng, bedrooms: number, type: number): number {
  const [min, max] = AREA_RANGES_M2[Math.min(bedrooms, 6)];
  let area = rng.float(min, max);
  // Villas and townhouses with up to four bedrooms come with more built-up area than apartments.
  if ((type === 2 || type === 3) && bedrooms <= 4) area *= 1.2;
  return round(area, 1);
}

function pickUnitTags(rng: Rng, info: ProjectInfo, bedrooms: number, floor: number): number[] {
  const candidates: string[] = [...info.area.views, 'Corner Unit', 'Upgraded Kitchen'];
  if (bedrooms >= 2) candidates.push("Maid's Room", 'Walk-in Wardrobe');
  if (bedrooms >= 1) candidates.push('Study Room');
  if (info.type === 1 || info.type === 4) candidates.push('Balcony', 'Balcony');
  if (info.type === 2 || info.type === 4 || (info.type === 3 && bedrooms >= 4)) candidates.push('Private Pool');
  if (info.type === 2 || info.type === 3) candidates.push('Private Garden');
  if ((info.type === 1 || info.type === 4) && floor >= info.totalFloors * 0.7 && info.totalFloors >= 10) candidates.push('High Floor', 'High Floor');
  const k = rng.weighted<number>([[0, 20], [1, 30], [2, 28], [3, 15], [4, 7]]);
  const picked = new Set(rng.sample(candidates, k));
  return [...picked].map(tagId).sort((a, b) => a - b);
}
