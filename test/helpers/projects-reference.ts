import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../src/db/schema.js';

/*
 * A deliberately naive GET /projects, written from the specification and the published parameter
 * descriptions only: whole tables loaded with SELECT *, every rule applied in plain TypeScript, money
 * in exact rational arithmetic. It shares no code with src/ (no SQL, no filter parser, no price
 * helpers), so a mistake in the optimised query cannot hide behind the same mistake here.
 */

/** Earth radius (m) of the documented haversine distance, and ft² in one m²; both from the OpenAPI text. */
const EARTH_RADIUS_M = 6371008.8;
const FT2_PER_M2 = { n: 107639104n, d: 10000000n };

export interface ReferenceCatalogue {
  projects: Selectable<DB['projects']>[];
  companies: Map<number, { name: string; deleted: boolean }>;
  contracts: { agency_id: number; developer_id: number; status: string }[];
  units: ReferenceUnit[];
  unitsByProject: Map<number, ReferenceUnit[]>;
  features: Map<number, Set<number>>;
  plans: Map<number, { type: number; percent: number }[]>;
  facilities: Map<number, { category: string; distance_m: number }[]>;
  /** AED per unit of each rated currency (AED itself is 1 and has no row). */
  rates: Map<string, Fraction>;
}

export interface ReferenceUnit {
  id: number;
  project_id: number;
  bedrooms: number;
  status: number;
  parking: number;
  /** Base price in cents; null when the unit has no price. */
  priceCents: bigint | null;
  unit_area: number;
  deleted: boolean;
  tags: Set<number>;
}

export async function loadReferenceCatalogue(db: Kysely<DB>): Promise<ReferenceCatalogue> {
  const [projects, companies, contracts, units, tagLinks, featureLinks, plans, facilities, rates] = await Promise.all([
    db.selectFrom('projects').selectAll().execute(),
    db.selectFrom('companies').selectAll().execute(),
    db.selectFrom('contracts').selectAll().execute(),
    db.selectFrom('units').selectAll().execute(),
    db.selectFrom('unit_tag_links').selectAll().execute(),
    db.selectFrom('project_feature_links').selectAll().execute(),
    db.selectFrom('project_payment_plans').selectAll().execute(),
    db.selectFrom('project_facilities').selectAll().execute(),
    db.selectFrom('currency_rates').selectAll().execute(),
  ]);

  const tags = groupBy(tagLinks, (link) => link.unit_id);
  const referenceUnits: ReferenceUnit[] = units.map((unit) => ({
    id: unit.id,
    project_id: unit.project_id,
    bedrooms: unit.bedrooms,
    status: unit.status,
    parking: unit.parking,
    // numeric(16, 2) arrives as a JS number; its shortest text is the stored decimal.
    priceCents: unit.price === null ? null : toCents(String(unit.price)),
    unit_area: unit.unit_area,
    deleted: unit.deleted_at !== null,
    tags: new Set((tags.get(unit.id) ?? []).map((link) => link.tag_id)),
  }));

  return {
    projects,
    companies: new Map(companies.map((company) => [company.id, { name: company.company_name, deleted: company.deleted_at !== null }])),
    contracts,
    units: referenceUnits,
    unitsByProject: groupBy(referenceUnits, (unit) => unit.project_id),
    features: new Map([...groupBy(featureLinks, (link) => link.project_id)].map(([id, links]) => [id, new Set(links.map((link) => link.feature_id))])),
    plans: new Map(
      [...groupBy(plans, (plan) => plan.project_id)].map(([id, parts]) => [id, parts.map((part) => ({ type: part.type, percent: part.percent }))]),
    ),
    facilities: new Map(
      [...groupBy(facilities, (link) => link.project_id)].map(([id, links]) => [id, links.map((link) => ({ category: link.category, distance_m: link.distance_m }))]),
    ),
    rates: new Map(rates.map((rate) => [rate.currency, decimal(String(rate.aed_per_unit))])),
  };
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------------
// Exact decimals
// ---------------------------------------------------------------------------------------------------

/** A non-negative-denominator fraction n/d of bigints. */
export interface Fraction {
  n: bigint;
  d: bigint;
}

/** `-12.5e-3` -> -125/10000, exactly; what JavaScript's String(number) and query strings produce. */
export function decimal(text: string): Fraction {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not a decimal: ${text}`);
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? 0) - fraction.length;
  let n = BigInt(`${whole}${fraction}` || '0');
  let d = 1n;
  if (exponent >= 0) n *= 10n ** BigInt(exponent);
  else d = 10n ** BigInt(-exponent);
  return { n: sign === '-' ? -n : n, d };
}

const compare = (a: Fraction, b: Fraction): number => {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
};
const times = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.n, d: a.d * b.d });
const sum = (values: Fraction[]): Fraction => values.reduce((total, value) => ({ n: total.n * value.d + value.n * total.d, d: total.d * value.d }), { n: 0n, d: 1n });

function toCents(text: string): bigint {
  const { n, d } = decimal(text);
  if ((n * 100n) % d !== 0n) throw new Error(`more than two decimals: ${text}`);
  return (n * 100n) / d;
}

/**
 * The price shown to a key: base price times (1 + vector/100), rounded half away from zero to cents,
 * computed exactly (the pricing rule of the specification and of the OpenAPI text).
 */
export function shownCents(baseCents: bigint, priceVector: string): bigint {
  const vector = decimal(priceVector);
  // factor = (100 + v) / 100 = (100 v.d + v.n) / (100 v.d)
  const numerator = baseCents * (100n * vector.d + vector.n);
  const denominator = 100n * vector.d;
  const sign = numerator < 0n ? -1n : 1n;
  const magnitude = numerator < 0n ? -numerator : numerator;
  return sign * ((2n * magnitude + denominator) / (2n * denominator));
}

/** n / d rounded half away from zero to an integer. */
function roundHalfAway(n: bigint, d: bigint): bigint {
  const sign = (n < 0n) !== (d < 0n) ? -1n : 1n;
  const [a, b] = [n < 0n ? -n : n, d < 0n ? -d : d];
  return sign * ((2n * a + b) / (2n * b));
}

/** Decimals of a currency's minor unit, from the platform's CLDR data (the source the OpenAPI text names). */
function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** An exact amount whose denominator is a power of ten, as the JSON number the API returns. */
function amountToNumber(amount: Fraction): number {
  const digits = String(amount.d).length - 1;
  const negative = amount.n < 0n;
  const magnitude = negative ? -amount.n : amount.n;
  const whole = magnitude / amount.d;
  const fraction = digits === 0 ? '' : `.${String(magnitude % amount.d).padStart(digits, '0')}`;
  return Number(`${negative ? '-' : ''}${whole}${fraction}`);
}

/** Cents as the JSON number the API returns (`123456` -> 1234.56). */
export function centsToNumber(cents: bigint): number {
  const negative = cents < 0n;
  const magnitude = negative ? -cents : cents;
  return Number(`${negative ? '-' : ''}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, '0')}`);
}

// ---------------------------------------------------------------------------------------------------
// The endpoint
// ---------------------------------------------------------------------------------------------------

export interface ReferenceKey {
  agencyId: number;
  /** The key's price vector as decimal text, e.g. `-7.3`. */
  priceVector: string;
}

export interface ReferenceItem {
  id: number;
  price_from: number | null;
  /** Only with `match=true`: the project's live units that satisfy every unit-level filter (all of them without one). */
  match?: { units: number; price_from: number | null; size_from: number | null };
}

const NEAR = {
  near_airport: 'airports_ports',
  near_education: 'education',
  near_employment: 'employment',
  near_healthcare: 'healthcare',
  near_lifestyle: 'lifestyle',
  near_retail: 'retail',
  near_transport: 'transport',
  near_tourism: 'tourism',
} as const;

const csv = (text: string | undefined): number[] | undefined => (text === undefined ? undefined : text.split(',').map((part) => Number(part.trim())));
const flag = (text: string | undefined): boolean | undefined => (text === undefined ? undefined : text === 'true');

/**
 * A handover bound in exact epoch seconds. A date-time is one instant, admitted by either bound; a date
 * stands for its whole UTC day: from its midnight, up to (not including) the next one.
 */
function handoverBound(text: string): { from: Fraction; to: Fraction; toInclusive: boolean } {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) {
    const start = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])) / 1000;
    return { from: decimal(String(start)), to: decimal(String(start + 86_400)), toInclusive: false };
  }
  const time = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!time) throw new Error(`not a handover bound: ${text}`);
  const [year, month, day, hour, minute, second] = time.slice(1, 7).map(Number);
  const offsetMinutes = time[8] ? (time[8] === '-' ? -1 : 1) * (Number(time[9]) * 60 + Number(time[10])) : 0;
  const wholeSeconds = (Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000) / 1000;
  const instant = sum([decimal(String(wholeSeconds)), decimal(`0.${time[7] ?? '0'}`)]);
  return { from: instant, to: instant, toInclusive: true };
}

/**
 * Lower case one code point at a time (Unicode's simple case mapping), as SQL's ILIKE folds case: `İ`
 * becomes `i`, where JavaScript's toLowerCase gives `i` plus a combining dot.
 */
function lowerCase(text: string): string {
  return [...text].map((char) => [...char.toLowerCase()][0]).join('');
}

function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (degrees: number) => (degrees * Math.PI) / 180;
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * GET /projects on the loaded catalogue. `query` is exactly what is sent (valid values only);
 * `amenitiesRadiusM` is the server's AMENITIEST_RADIUS (undefined when unset).
 */
export function referenceProjects(
  catalogue: ReferenceCatalogue,
  query: Record<string, string>,
  key: ReferenceKey,
  amenitiesRadiusM: number | undefined,
): { total: number; items: ReferenceItem[] } {
  const contracted = new Set(
    catalogue.contracts
      .filter((contract) => contract.agency_id === key.agencyId && contract.status === 'approved' && catalogue.companies.get(contract.developer_id)?.deleted === false)
      .map((contract) => contract.developer_id),
  );
  // `currency=` (issue 22, as the OpenAPI text and the guide state it): every price is base x factor x
  // AED per unit of the project's currency / AED per unit of the asked one, rounded half away from zero
  // to the asked currency's minor unit once; price bounds are in the asked currency; a project whose
  // currency has no rate keeps its own prices and no price bound admits it.
  const target = query.currency;
  const rateOf = (code: string): Fraction | undefined => (code === 'AED' ? { n: 1n, d: 1n } : catalogue.rates.get(code));
  /** The unit's price as shown, an exact amount of the currency shown; null when unpriced. */
  const shownAmount = (unit: ReferenceUnit, projectCurrency: string): { amount: Fraction; converted: boolean } | null => {
    if (unit.priceCents === null) return null;
    const from = rateOf(projectCurrency);
    const to = target === undefined ? undefined : rateOf(target);
    if (target === undefined || !from || !to) return { amount: { n: shownCents(unit.priceCents, key.priceVector), d: 100n }, converted: false };
    const scale = 10n ** BigInt(minorDigits(target));
    const vector = decimal(key.priceVector);
    // cents x (100 + v) / 100 x from / to x scale / 100
    const n = unit.priceCents * (100n * vector.d + vector.n) * from.n * to.d * scale;
    const d = 100n * vector.d * from.d * to.n * 100n;
    return { amount: { n: roundHalfAway(n, d), d: scale }, converted: true };
  };
  /** The price price bounds compare with: under `currency=`, only a converted one. */
  const comparable = (unit: ReferenceUnit, projectCurrency: string): Fraction | null => {
    const shown = shownAmount(unit, projectCurrency);
    return shown === null || (target !== undefined && !shown.converted) ? null : shown.amount;
  };

  // A literal substring; surrounding white space is ignored and a blank search is no filter (OpenAPI).
  const search = lowerCase(query.search?.trim() ?? '') || undefined;
  const developerIds = csv(query.developer_ids);
  const unitTypes = csv(query.unit_types);
  const developmentStatuses = csv(query.development_status);
  const bedrooms = csv(query.bedrooms);
  const statuses = csv(query.statuses);
  const tagIds = csv(query.unit_preference_ids);
  const featureIds = csv(query.preference_ids);
  const bound = (name: string) => (query[name] === undefined ? undefined : decimal(query[name]));
  const [priceMin, priceMax] = [bound('price_min'), bound('price_max')];
  const [perFt2Min, perFt2Max] = [bound('price_per_ft2_min'), bound('price_per_ft2_max')];
  const [perM2Min, perM2Max] = [bound('price_per_m2_min'), bound('price_per_m2_max')];
  const sizeMin = query.size_min === undefined ? undefined : Number(query.size_min);
  const sizeMax = query.size_max === undefined ? undefined : Number(query.size_max);
  const parkingMin = query.parking_min === undefined ? undefined : Number(query.parking_min);
  const handoverFrom = query.handover_from === undefined ? undefined : handoverBound(query.handover_from);
  const handoverTo = query.handover_to === undefined ? undefined : handoverBound(query.handover_to);
  const maxPre = bound('payment_max_pre_handover');
  const minAfter = bound('payment_min_after_handover');
  const near = (Object.keys(NEAR) as (keyof typeof NEAR)[]).filter((name) => query[name] === 'true').map((name) => NEAR[name]);

  const unitLevel = [
    query.bedrooms, query.statuses, query.price_min, query.price_max, query.price_per_ft2_min, query.price_per_ft2_max,
    query.price_per_m2_min, query.price_per_m2_max, query.size_min, query.size_max, query.parking_min, query.unit_preference_ids,
  ].some((value) => value !== undefined);

  const unitMatches = (unit: ReferenceUnit, projectCurrency: string): boolean => {
    if (unit.deleted) return false;
    if (bedrooms && !bedrooms.some((wanted) => (wanted === 5 ? unit.bedrooms >= 5 : unit.bedrooms === wanted))) return false;
    if (statuses && !statuses.includes(unit.status)) return false;
    const priceFraction = comparable(unit, projectCurrency);
    if (priceMin || priceMax) {
      if (!priceFraction) return false;
      if (priceMin && compare(priceFraction, priceMin) < 0) return false;
      if (priceMax && compare(priceFraction, priceMax) > 0) return false;
    }
    if (perM2Min || perM2Max || perFt2Min || perFt2Max) {
      if (!priceFraction || !(unit.unit_area > 0)) return false;
      const areaM2 = decimal(String(unit.unit_area));
      const areaFt2 = times(areaM2, FT2_PER_M2);
      // price / area >= bound  <=>  price >= bound * area (area > 0)
      if (perM2Min && compare(priceFraction, times(perM2Min, areaM2)) < 0) return false;
      if (perM2Max && compare(priceFraction, times(perM2Max, areaM2)) > 0) return false;
      if (perFt2Min && compare(priceFraction, times(perFt2Min, areaFt2)) < 0) return false;
      if (perFt2Max && compare(priceFraction, times(perFt2Max, areaFt2)) > 0) return false;
    }
    if (sizeMin !== undefined && !(unit.unit_area >= sizeMin)) return false;
    if (sizeMax !== undefined && !(unit.unit_area <= sizeMax)) return false;
    if (parkingMin !== undefined && !(unit.parking >= parkingMin)) return false;
    if (tagIds && !tagIds.every((tag) => unit.tags.has(tag))) return false;
    return true;
  };

  const matches = (p: Selectable<DB['projects']>): boolean => {
    // Visibility: published, not deleted, developer under an approved contract with the key's agency.
    if (p.is_draft || p.deleted_at !== null || !contracted.has(p.company_id)) return false;

    if (search !== undefined) {
      const developer = catalogue.companies.get(p.company_id)?.name ?? '';
      if (!lowerCase(p.name).includes(search) && !lowerCase(developer).includes(search)) return false;
    }
    if (developerIds && !developerIds.includes(p.company_id)) return false;
    if (unitTypes && !unitTypes.includes(p.type)) return false;
    if (developmentStatuses && !developmentStatuses.includes(p.development_status)) return false;
    const isBranded = flag(query.is_branded);
    if (isBranded !== undefined && p.is_branded !== isBranded) return false;
    const isResale = flag(query.is_resale);
    if (isResale !== undefined && p.is_resale !== isResale) return false;
    const isEscrow = flag(query.is_escrow);
    if (isEscrow !== undefined && (p.escrow_account.trim() !== '') !== isEscrow) return false;

    if (handoverFrom !== undefined || handoverTo !== undefined) {
      if (p.handover_date === null) return false;
      const handover = { n: BigInt(Date.parse(p.handover_date)), d: 1000n };
      if (handoverFrom && compare(handover, handoverFrom.from) < 0) return false;
      const beyond = handoverTo ? compare(handover, handoverTo.to) : -1;
      if (beyond > 0 || (beyond === 0 && !handoverTo!.toInclusive)) return false;
    }

    const plan = catalogue.plans.get(p.id) ?? [];
    const share = (types: number[]) => sum(plan.filter((part) => types.includes(part.type)).map((part) => decimal(String(part.percent))));
    if (maxPre && (plan.length === 0 || compare(share([1, 2]), maxPre) > 0)) return false;
    if (minAfter && (plan.length === 0 || compare(share([3]), minAfter) < 0)) return false;
    if (query.payment_only_post_handover === 'true' && !plan.some((part) => part.type === 3 && part.percent > 0)) return false;

    if (query.lat !== undefined) {
      if (p.latitude === null || p.longitude === null) return false;
      const distanceM = haversineM(Number(query.lat), Number(query.lng), p.latitude, p.longitude);
      if (compare(decimal(String(distanceM)), times(decimal(query.radius_km), { n: 1000n, d: 1n })) > 0) return false;
    }

    const facilities = catalogue.facilities.get(p.id) ?? [];
    for (const category of near) {
      if (!facilities.some((link) => link.category === category && (amenitiesRadiusM === undefined || link.distance_m < amenitiesRadiusM))) return false;
    }

    if (featureIds) {
      const own = catalogue.features.get(p.id) ?? new Set<number>();
      if (!featureIds.every((id) => own.has(id))) return false;
    }

    if (unitLevel && !(catalogue.unitsByProject.get(p.id) ?? []).some((unit) => unitMatches(unit, p.currency))) return false;
    return true;
  };

  const matching = catalogue.projects
    .filter(matches)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));

  const limit = Math.min(query.limit === undefined ? 20 : Number(query.limit), 100);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  /** The lowest shown price of the units, as the JSON number the API returns; null when none has a price. */
  const lowestPrice = (units: ReferenceUnit[], projectCurrency: string): number | null => {
    const prices = units.map((unit) => shownAmount(unit, projectCurrency)?.amount ?? null).filter((amount): amount is Fraction => amount !== null);
    const lowest = prices.reduce<Fraction | null>((min, amount) => (min === null || compare(amount, min) < 0 ? amount : min), null);
    return lowest === null ? null : amountToNumber(lowest);
  };
  const items = matching.slice(offset, offset + limit).map((project): ReferenceItem => {
    const live = (catalogue.unitsByProject.get(project.id) ?? []).filter((unit) => !unit.deleted);
    const item: ReferenceItem = { id: project.id, price_from: lowestPrice(live, project.currency) };
    if (query.match === 'true') {
      // `match=true` (OpenAPI text): the units satisfying every unit-level filter; without one, every unit.
      const matched = unitLevel ? live.filter((unit) => unitMatches(unit, project.currency)) : live;
      const sizes = matched.map((unit) => unit.unit_area);
      item.match = { units: matched.length, price_from: lowestPrice(matched, project.currency), size_from: sizes.length === 0 ? null : Math.min(...sizes) };
    }
    return item;
  });
  return { total: matching.length, items };
}
