import { ALL_AREAS, AREA_ID_BY_NAME, AREA_NAME_LEADS, CITY_AREAS, type AreaDef } from './areas.js';
import type { Row } from './bundle-record.js';
import { pointNear } from './coordinates.js';
import { DEVELOPERS, type DeveloperDef } from './developers.js';
import type { AddFile } from './file-records.js';
import { pad, round, slugify } from './format.js';
import {
  DEFAULT_DEMO_PROJECTS,
  NON_CONTRACTED_DEVELOPER_ID,
  PENDING_CONTRACT_DEVELOPER_ID,
  SLOT_PERIOD,
  SLOT_ROLES,
  type SlotRole,
} from './notable-records.js';
import { ESCROW_BANKS, NAME_LEADS, NAME_MIDDLES, NAME_SUFFIXES, PAYMENT_PLANS, READY_PLANS, TYPE_WORDS } from './project-tables.js';
import { PROJECT_FEATURES } from './reference-lists.js';
import type { Rng } from './seeded-random.js';
import { dateOnly, ts } from './timestamps.js';

/*
 * The projects: developer, area, type, schedule, name, documents and plans for each, with the special
 * roles of SLOT_ROLES applied. What units and facilities later need about a project is kept in its
 * ProjectInfo, so they never read the loose project rows back.
 */

export interface ProjectInfo {
  id: number;
  devId: number;
  area: AreaDef;
  type: number;
  role: SlotRole;
  lat?: number;
  lng?: number;
  currency: string;
  isBranded: boolean;
  developmentStatus: number;
  totalFloors: number;
  createdDays: number;
  hasUnitPlans: boolean;
  name: string;
}

/** How far from its community's centre a project of the default demo lies, at most (metres). */
export const DEMO_PROJECT_SPREAD_M = 1500;

/** The currencies a catalogue with more foreign-currency projects spreads them over (all rated in the demo). */
const FOREIGN_CURRENCIES = ['USD', 'EUR', 'GBP', 'RUB', 'INR', 'CNY'] as const;

/*
 * A bench catalogue with `percent` % of its projects priced in other currencies than AED (issue 22's
 * target catalogue): a plain slot takes the next foreign currency while fewer than `percent` % of the
 * projects so far (the USD and EUR slots included) have one. No draw from the seeded stream, so the
 * rest of the catalogue is the same record for record; 0 (the default) changes nothing.
 */
function foreignCurrency(role: SlotRole, index: number, foreignSoFar: number, madeForeign: number, percent: number): string {
  if (role !== 'normal' || foreignSoFar * 100 >= percent * (index + 1)) return 'AED';
  return FOREIGN_CURRENCIES[madeForeign % FOREIGN_CURRENCIES.length];
}

/**
 * `scale`: a catalogue beyond the default size, whose projects past the first demo-sized batch may go to
 * any community of their developer's home city. `developerAuthors`: the users who may author each
 * developer's projects.
 */
export function generateProjects(
  rng: Rng,
  addFile: AddFile,
  projectCount: number,
  scale: boolean,
  developerAuthors: ReadonlyMap<number, readonly number[]>,
  foreignCurrencyPercent = 0,
): { projects: Row<'projects'>[]; infos: ProjectInfo[] } {
  const featureIds = PROJECT_FEATURES.map((_, i) => i + 1);
  const contracted = DEVELOPERS.filter((d) => d.weight > 0);
  const contractedWeights = contracted.map((d) => [d, d.weight] as const);
  const devById = new Map(DEVELOPERS.map((d) => [d.id, d]));
  const usedNames = new Set<string>();
  const projects: Row<'projects'>[] = [];
  const infos: ProjectInfo[] = [];
  let contractedSlots = 0;
  let foreign = 0;
  let madeForeign = 0;

  for (let i = 0; i < projectCount; i++) {
    const id = i + 1;
    const role: SlotRole = SLOT_ROLES[i % SLOT_PERIOD] ?? 'normal';
    let dev: DeveloperDef;
    if (role === 'nonContracted') dev = devById.get(NON_CONTRACTED_DEVELOPER_ID)!;
    else if (role === 'pendingContract') dev = devById.get(PENDING_CONTRACT_DEVELOPER_ID)!;
    else dev = contractedSlots < contracted.length ? contracted[contractedSlots++] : rng.weighted(contractedWeights);
    const home = ALL_AREAS[AREA_ID_BY_NAME.get(rng.pick(dev.areas))! - 1];
    // Scale catalogues: past the first demo-sized batch, half the projects go to any community of the
    // developer's home city.
    const area = scale && i >= DEFAULT_DEMO_PROJECTS && rng.chance(0.5) ? rng.pick(CITY_AREAS[home.city]) : home;
    const areaId = AREA_ID_BY_NAME.get(area.name)!;

    const type = area.lowRise ? rng.weighted<number>([[1, 40], [2, 28], [3, 26], [4, 6]]) : rng.weighted<number>([[1, 82], [4, 18]]);
    // The project whose units have no price yet is a just-announced launch.
    const developmentStatus = role === 'unpriced' ? 0 : rng.weighted<number>([[0, 15], [1, 35], [2, 30], [3, 20]]);
    const readiness =
      developmentStatus === 0 ? 0 : developmentStatus === 1 ? rng.int(5, 35) : developmentStatus === 2 ? rng.int(40, 95) : 100;
    const handoverYear =
      developmentStatus === 3 ? 2025 : developmentStatus === 2 ? rng.int(2026, 2027) : developmentStatus === 1 ? rng.int(2027, 2029) : rng.int(2029, 2030);
    const quarterEnd = rng.pick([[3, 31], [6, 30], [9, 30], [12, 31]] as const);
    const handoverDate = dateOnly(handoverYear, quarterEnd[0], quarterEnd[1]);
    const launchYear = Math.max(2021, handoverYear - rng.int(2, 4));
    const launchDate = dateOnly(Math.min(launchYear, 2025), rng.int(1, 12), rng.int(1, 28));
    const isBranded = rng.chance(dev.slug === 'damac' || dev.slug === 'meraas' ? 0.35 : 0.12);
    const isResale = developmentStatus === 3 ? rng.chance(0.5) : rng.chance(0.05);

    // Name: an area-flavoured or generic lead, a middle word, a suffix by type; unique across the bundle.
    const lead = rng.chance(0.45) ? rng.pick(AREA_NAME_LEADS[area.name] ?? NAME_LEADS) : rng.pick(NAME_LEADS);
    const base = `${lead} ${rng.pick(NAME_MIDDLES)} ${rng.pick(NAME_SUFFIXES[type])}`;
    let name = base;
    for (let n = 2; usedNames.has(name); n++) name = `${base} ${n <= 4 ? ['II', 'III', 'IV'][n - 2] : `Phase ${n}`}`;
    usedNames.add(name);

    let totalFloors: number;
    let floorsFormula: string;
    if (type === 2) {
      totalFloors = rng.int(2, 3);
      floorsFormula = totalFloors === 2 ? 'G+1' : 'G+1+Roof';
    } else if (type === 3) {
      totalFloors = rng.int(2, 3);
      floorsFormula = `G+${totalFloors - 1}`;
    } else {
      totalFloors = rng.int(area.towerFloors[0], area.towerFloors[1]);
      const podiums = totalFloors > 15 ? rng.int(2, 5) : rng.int(0, 1);
      const roof = rng.chance(0.4) ? '+R' : '';
      floorsFormula = podiums > 0 ? `G+${podiums}P+${totalFloors - 1 - podiums}${roof}` : `G+${totalFloors - 1}${roof}`;
    }

    const currency = role === 'usd' ? 'USD' : role === 'eur' ? 'EUR' : foreignCurrency(role, i, foreign, madeForeign, foreignCurrencyPercent);
    if (currency !== 'AED') foreign++;
    if (currency !== 'AED' && role === 'normal') madeForeign++;
    const createdDays = -rng.int(20, 900);
    const authors = developerAuthors.get(dev.id) ?? [];
    const inDubai = area.city === 'Dubai';

    const p: Row<'projects'> = { id, company_id: dev.id, name };
    if (authors.length > 0) p.author_id = rng.pick(authors);
    p.area_id = areaId;
    p.description = describeProject(rng, name, dev.name, area, type, isBranded, developmentStatus, handoverYear);
    p.type = type;
    p.status = rng.chance(0.85) ? 1 : 2;
    p.development_status = developmentStatus;
    p.readiness_progress = readiness;
    p.total_floors = totalFloors;
    p.developer_registration_id = inDubai ? `DLD-${rng.digits(4)}` : area.city === 'Abu Dhabi' ? `ADREC-${rng.digits(5)}` : `SRERD-${rng.digits(5)}`;
    if (inDubai) p.trakheesi_project_id = rng.digits(10);
    const hasEscrow = developmentStatus < 3 ? rng.chance(0.85) : rng.chance(0.35);
    p.escrow_account = hasEscrow ? `${rng.pick(ESCROW_BANKS[area.city])} escrow ${rng.digits(4)}-${rng.digits(7)}-0${rng.int(1, 9)}` : null;
    if (inDubai && developmentStatus < 3) p.oqood_registration = `OQ-${launchYear}-${rng.digits(7)}`;
    p.launch_date = launchDate;
    p.launch_time = rng.chance(0.6) ? rng.pick(['10:00', '11:00', '16:00', '18:00', '18:30', '19:00']) : null;
    p.handover_date = handoverDate;
    p.resale_conditions = isResale
      ? 'Ready title deed; 4% DLD transfer fee and developer NOC required.'
      : rng.chance(0.4)
        ? `Resale permitted after ${rng.pick([30, 40, 50])}% of the purchase price is paid.`
        : null;
    p.floors_formula = floorsFormula;
    p.is_draft = role === 'draft';
    p.is_branded = isBranded;
    p.is_resale = isResale;
    p.service_charge = rng.chance(0.06) ? null : round(rng.float(12, 35) * 2, 0) / 2;
    p.currency = currency;
    p.commission_type = rng.chance(0.7) ? 1 : 2;

    let lat: number | undefined;
    let lng: number | undefined;
    if (role !== 'noCoordinates') {
      [lat, lng] = pointNear(rng, area.lat, area.lng, 0, scale && i >= DEFAULT_DEMO_PROJECTS ? 2500 : DEMO_PROJECT_SPREAD_M);
      p.latitude = lat;
      p.longitude = lng;
    }
    p.address = `Plot ${rng.int(100, 699)}-${rng.digits(4)}, ${area.name}, ${area.city}, United Arab Emirates`;
    if (rng.chance(0.5)) p.floor_plan_file_id = addFile(`projects/${id}/documents/floor-plans.pdf`, `${slugify(name)}-floor-plans.pdf`, 'application/pdf', 800, 9000, createdDays);
    if (rng.chance(0.7)) p.brochure_file_id = addFile(`projects/${id}/documents/brochure.pdf`, `${slugify(name)}-brochure.pdf`, 'application/pdf', 2000, 25000, createdDays);
    if (rng.chance(0.4)) p.general_plan_file_id = addFile(`projects/${id}/documents/master-plan.pdf`, `${slugify(name)}-master-plan.pdf`, 'application/pdf', 500, 6000, createdDays);

    const plans = developmentStatus === 3 && rng.chance(0.6) ? READY_PLANS : PAYMENT_PLANS;
    p.payment_plans = rng.weighted(plans).map(([planType, percent]) => ({ type: planType, percent }));

    const imageNames = ['exterior', 'aerial', 'lobby', 'pool', 'living-room', 'bedroom', 'kitchen', 'amenities'];
    const imageCount = rng.int(2, 5);
    const images: number[] = [];
    for (let k = 1; k <= imageCount; k++) {
      const label = k === 1 ? 'exterior' : rng.pick(imageNames);
      images.push(addFile(`projects/${id}/images/${k}.jpg`, `${label}-${pad(k, 2)}.jpg`, 'image/jpeg', 180, 2400, createdDays));
    }
    p.image_file_ids = images;
    p.tours = rng.chance(0.4) ? [`https://my.matterport.com/show/?m=${rng.hex(11)}`] : [];
    if (rng.chance(0.15)) (p.tours as string[]).push(`https://www.youtube.com/watch?v=${rng.hex(11)}`);
    p.presentations = rng.chance(0.5) ? [`https://files.${dev.slug}.example/presentations/${slugify(name)}.pdf`] : [];
    p.feature_ids = rng.sample(featureIds, rng.int(3, 10)).sort((a, b) => a - b);
    if (role === 'deleted') p.deleted = true;
    p.created_at = ts(createdDays);
    p.updated_at = ts(Math.min(-1, createdDays + rng.int(1, 300)));

    projects.push(p);
    infos.push({
      id,
      devId: dev.id,
      area,
      type,
      role,
      lat,
      lng,
      currency,
      isBranded,
      developmentStatus,
      totalFloors,
      createdDays,
      hasUnitPlans: rng.chance(0.6),
      name,
    });
  }
  return { projects, infos };
}

function describeProject(
  rng: Rng,
  name: string,
  developer: string,
  area: AreaDef,
  type: number,
  branded: boolean,
  developmentStatus: number,
  handoverYear: number,
): string {
  const typeWord = TYPE_WORDS[type];
  const opener = branded
    ? `${name} is a collection of branded ${typeWord} residences by ${developer} in ${area.name}, ${area.city}, serviced by a five-star hospitality operator.`
    : `${name} is ${typeWord === 'apartment' ? 'an' : 'a'} ${typeWord} development by ${developer} in ${area.name}, ${area.city}.`;
  const middle = rng.pick([
    'Homes feature open-plan living, large balconies and premium finishes.',
    'Residents enjoy resort-style amenities, landscaped podium gardens and direct access to community retail.',
    'The project is designed around wellness, with shaded walkways, a lap pool and a fully equipped gym.',
    'Every home comes with smart-home controls, built-in wardrobes and allocated parking.',
    'Generous layouts, floor-to-ceiling glazing and views over the community set the project apart.',
  ]);
  const closing = developmentStatus === 3 ? 'The project is complete and ready to move in.' : `Handover is expected in ${handoverYear}.`;
  return `${opener} ${middle} ${closing}`;
}
