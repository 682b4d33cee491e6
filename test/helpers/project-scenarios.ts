import fc from 'fast-check';
import { generateDemoBundle } from '../../src/demo/demo-bundle.js';
import type { Bundle } from './fixtures.js';
import { centsToNumber, shownCents, type ReferenceCatalogue, type ReferenceUnit } from './projects-reference.js';

/*
 * Random GET /projects queries over a generated catalogue, drawn from the catalogue itself (mostly from
 * one "anchor" unit and its project, so combinations still match something), including exact
 * boundaries such as a unit's displayed price for the key. Used by the comparisons with the naive
 * reference (projects-reference.test.ts) and with the SQL path (search-differential.test.ts).
 */

/** The demo catalogue plus the corner cases it lacks. */
export function catalogueBundle(): Bundle {
  const bundle = generateDemoBundle({ projects: 48 }) as Bundle;
  const project = (id: number) => bundle.projects.find((record) => record.id === id)!;
  for (const unit of bundle.units) {
    const id = unit.id as number;
    // Cents, so that rounding to the key's prices is not only ever applied to whole amounts.
    if (typeof unit.price === 'number' && id % 3 === 0) unit.price += (id % 100) / 100;
    if (id % 89 === 0) unit.unit_area = 0;
  }
  project(17).name = project(16).name; // same name: the id decides the order
  project(22).payment_plans = [];
  project(26).handover_date = null;
  project(28).escrow_account = '   ';
  project(33).payment_plans = [{ type: 1, percent: 12.5 }, { type: 2, percent: 37.25 }, { type: 3, percent: 50.25 }];
  project(44).name = 'Creek 50%_Tower';
  project(45).name = 'the Edge Residences';
  return bundle;
}

export interface Scenario {
  priceVector: number;
  withRadius: boolean;
  query: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------
// Drawing filters from the catalogue
// ---------------------------------------------------------------------------------------------------

const NEAR_PARAMETERS = ['near_airport', 'near_education', 'near_employment', 'near_healthcare', 'near_lifestyle', 'near_retail', 'near_transport', 'near_tourism'];

/** Positive, negative, whole and fractional vectors, all in (-100, 100]. */
export const priceVectorArb = fc.oneof(
  fc.constantFrom(0, 100, -99.99, 12.5, -7.3, 33.333, 0.1, -50),
  fc.integer({ min: -99, max: 100 }),
  fc.integer({ min: -9999, max: 10000 }).map((hundredths) => hundredths / 100),
  fc.double({ min: -99.999, max: 100, noNaN: true }),
);

/** `1234567` cents -> `12345.67` (cents >= 0). */
export const centsText = (cents: bigint) => {
  const text = String(cents).padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
};

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The instant `ms` as RFC 3339 text in one of the accepted notations. */
function rfc3339(ms: number, notation: number): string {
  const iso = new Date(ms).toISOString(); // 2027-03-31T00:00:00.000Z
  switch (notation) {
    case 0:
      return `${iso.slice(0, 19)}Z`;
    case 1:
      return iso;
    case 2: {
      // Same instant, seen from Dubai.
      const local = new Date(ms + 4 * 3_600_000).toISOString();
      return `${local.slice(0, 19)}+04:00`;
    }
    case 3: {
      const local = new Date(ms - 5 * 3_600_000 - 30 * 60_000).toISOString();
      return `${local.slice(0, 23)}-05:30`;
    }
    case 4:
      // A microsecond past the millisecond: finer than a JavaScript Date, as fine as PostgreSQL.
      return `${iso.slice(0, 23)}001Z`;
    case 5:
      // Finer than PostgreSQL keeps.
      return `${iso.slice(0, 23)}0001Z`;
    default:
      return `${iso.slice(0, 10)} ${iso.slice(11, 19)}z`;
  }
}

/** A decimal drawn the way people write them: whole, with cents, or with many digits. */
const amount = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max }).map(String),
    fc.integer({ min: 0, max: max * 100 }).map((cents) => centsText(BigInt(cents))),
    fc.double({ min: 0, max, noNaN: true, noDefaultInfinity: true }).map(String),
  );

export type Query = Record<string, string>;
type Draw = (context: { anchor: ReferenceUnit; priceVector: number }) => Query;
const fixed = (query: Query): Draw => () => query;

/**
 * One arbitrary per parameter (or group of parameters that belong together). Each gives a function of
 * the scenario's anchor unit and price vector, so that values come from the anchor (most of the time)
 * or another unit, and boundaries follow the key's prices.
 */
function parameterArbs(catalogue: ReferenceCatalogue) {
  const units = catalogue.units;
  const projects = catalogue.projects;
  const projectById = new Map(projects.map((project) => [project.id, project]));
  const developerIds = [...new Set(projects.map((project) => project.company_id))];
  const handovers = projects.filter((project) => project.handover_date !== null).map((project) => Date.parse(project.handover_date!));
  const located = projects.filter((project) => project.latitude !== null && project.longitude !== null);
  const anyPriced = units.find((unit) => unit.priceCents !== null)!;

  type Context = Parameters<Draw>[0];
  /** null: the anchor unit (three times out of four), else any unit. */
  const unitRef = fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.nat(units.length - 1), weight: 1 });
  const pickUnit = (ref: number | null, context: Context) => (ref === null ? context.anchor : units[ref]);
  const pickProject = (ref: number | null, context: Context) => projectById.get(pickUnit(ref, context).project_id)!;
  const csvOf = (values: number[]) => [...new Set(values)].join(',');
  /** The unit's price as the key sees it, in cents (another unit's when it has none). */
  const shown = (ref: number | null, context: Context) => {
    const unit = pickUnit(ref, context);
    return shownCents((unit.priceCents === null ? anyPriced : unit).priceCents!, String(context.priceVector));
  };
  const shift = fc.constantFrom(0n, 0n, 0n, 1n, -1n);

  const priceAt = (ref: number | null, delta: bigint, context: Context) => {
    const cents = shown(ref, context) + delta;
    return centsText(cents < 0n ? 0n : cents);
  };
  const price = fc.oneof(
    // Exactly one price (a window around one unit), or one bound at a unit's price.
    { weight: 3, arbitrary: fc.tuple(unitRef, shift, shift).map(([ref, low, high]): Draw => (context) => ({ price_min: priceAt(ref, low, context), price_max: priceAt(ref, -high, context) })) },
    fc.tuple(unitRef, shift, fc.constantFrom('price_min', 'price_max')).map(([ref, delta, name]): Draw => (context) => ({ [name]: priceAt(ref, delta, context) })),
    fc.tuple(amount(20_000_000), fc.constantFrom('price_min', 'price_max')).map(([value, name]) => fixed({ [name]: value })),
  );

  const perArea = (unitName: 'm2' | 'ft2') => {
    const quotient = (ref: number | null, context: Context) => {
      const area = pickUnit(ref, context).unit_area > 0 ? pickUnit(ref, context).unit_area : 100;
      return centsToNumber(shown(ref, context)) / (unitName === 'ft2' ? area * 10.7639104 : area);
    };
    const min = `price_per_${unitName}_min`;
    const max = `price_per_${unitName}_max`;
    return fc.oneof(
      // The quotient as JavaScript computes it (17 digits), rounded to cents, or nudged.
      fc.tuple(unitRef, fc.constantFrom(0, 0, 0.01, -0.01, 1e-9)).map(([ref, delta]): Draw => (context) => {
        const q = quotient(ref, context);
        return { [min]: String(q * (1 - delta)), [max]: String(q * (1 + delta)) };
      }),
      fc.tuple(unitRef, fc.constantFrom(min, max), fc.boolean()).map(([ref, name, cents]): Draw => (context) => {
        const q = quotient(ref, context);
        return { [name]: cents ? q.toFixed(2) : String(q) };
      }),
      fc.tuple(amount(60_000), fc.constantFrom(min, max)).map(([value, name]) => fixed({ [name]: value })),
    );
  };

  const size = fc.oneof(
    fc.tuple(unitRef, fc.constantFrom(0, 0, 0.1), fc.constantFrom(0, 0, 0.1)).map(([ref, below, above]): Draw => (context) => {
      const area = pickUnit(ref, context).unit_area;
      return { size_min: String(Math.max(0, Number((area - below).toFixed(1)))), size_max: String(Number((area + above).toFixed(1))) };
    }),
    fc.tuple(unitRef, fc.constantFrom('size_min', 'size_max')).map(([ref, name]): Draw => (context) => ({ [name]: String(pickUnit(ref, context).unit_area) })),
    fc.tuple(amount(1200), fc.constantFrom('size_min', 'size_max')).map(([value, name]) => fixed({ [name]: value })),
  );

  const handover = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...handovers),
        fc.constantFrom(0, 0, 1, -1, 1000, -1000, 86_400_000, -86_400_000),
        fc.nat(6),
        fc.boolean(),
        fc.constantFrom('handover_from', 'handover_to'),
      )
      .map(([at, delta, notation, dateOnly, name]) => fixed({ [name]: dateOnly ? isoDay(at + delta) : rfc3339(at + delta, notation) })),
    // A window of whole days around one project's handover.
    fc.tuple(unitRef, fc.integer({ min: -400, max: 0 }), fc.integer({ min: 0, max: 400 })).map(([ref, before, after]): Draw => (context) => {
      const at = pickProject(ref, context).handover_date;
      const day = at === null ? Date.UTC(2027, 0, 1) : Date.parse(at);
      return { handover_from: isoDay(day + before * 86_400_000), handover_to: isoDay(day + after * 86_400_000) };
    }),
    fc.tuple(fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2031, 11, 31) }), fc.constantFrom('handover_from', 'handover_to')).map(([at, name]) => fixed({ [name]: isoDay(at) })),
  );

  const share = (name: string, types: number[]) =>
    fc.oneof(
      fc.tuple(unitRef, fc.constantFrom(0, 0, 0.5, -0.5)).map(([ref, delta]): Draw => (context) => {
        const plan = catalogue.plans.get(pickProject(ref, context).id) ?? [];
        const total = plan.filter((part) => types.includes(part.type)).reduce((sum, part) => sum + part.percent, 0);
        return { [name]: String(Math.min(100, Math.max(0, total + delta))) };
      }),
      amount(100).map((value) => fixed({ [name]: value })),
    );

  const flag = (name: string, read: (project: (typeof projects)[number]) => boolean) =>
    fc.oneof(
      unitRef.map((ref): Draw => (context) => ({ [name]: String(read(pickProject(ref, context))) })),
      fc.boolean().map((value) => fixed({ [name]: String(value) })),
    );

  /** The anchor's own value(s), some others, or both. */
  const ids = (name: string, own: (context: Context, ref: number | null) => number[], universe: number[]) =>
    fc.tuple(unitRef, fc.subarray(universe, { maxLength: 3 }), fc.boolean()).map(([ref, extra, includeOwn]): Draw => (context) => {
      const values = [...(includeOwn ? own(context, ref) : []), ...extra];
      return { [name]: csvOf(values.length > 0 ? values : universe.slice(0, 1)) };
    });

  return {
    search: fc.oneof(
      fc
        .tuple(unitRef, fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 10 }), fc.boolean(), fc.constantFrom('', '', ' ', '\t'))
        .map(([ref, ofDeveloper, start, length, upper, pad]): Draw => (context) => {
          const project = pickProject(ref, context);
          const text = ofDeveloper ? catalogue.companies.get(project.company_id)!.name : project.name;
          const from = start % text.length;
          const part = text.slice(from, from + length);
          return { search: `${pad}${upper ? part.toUpperCase() : part.toLowerCase()}${pad}` };
        }),
      fc.constantFrom('%', '_', '50%_', '0%', 's_a', 'zzz', '   ', 'a', 'RESIDENCES', ' Sunset', 'circle ').map((text) => fixed({ search: text })),
    ),
    developer_ids: ids('developer_ids', (context, ref) => [pickProject(ref, context).company_id], [...developerIds, 1, 99]),
    unit_types: ids('unit_types', (context, ref) => [pickProject(ref, context).type], [1, 2, 3, 4, 5]),
    development_status: ids('development_status', (context, ref) => [pickProject(ref, context).development_status].filter((status) => status >= 1), [1, 2, 3]),
    bedrooms: ids('bedrooms', (context, ref) => [Math.min(5, pickUnit(ref, context).bedrooms)], [0, 1, 2, 3, 4, 5]),
    statuses: ids('statuses', (context, ref) => [pickUnit(ref, context).status], [1, 2, 3, 4, 5]),
    price,
    price_per_m2: perArea('m2'),
    price_per_ft2: perArea('ft2'),
    size,
    parking_min: fc.oneof(
      unitRef.map((ref): Draw => (context) => ({ parking_min: String(pickUnit(ref, context).parking) })),
      fc.nat(5).map((value) => fixed({ parking_min: String(value) })),
    ),
    is_branded: flag('is_branded', (project) => project.is_branded),
    is_resale: flag('is_resale', (project) => project.is_resale),
    is_escrow: flag('is_escrow', (project) => project.escrow_account.trim() !== ''),
    handover,
    payment_max_pre_handover: share('payment_max_pre_handover', [1, 2]),
    payment_min_after_handover: share('payment_min_after_handover', [3]),
    payment_only_post_handover: fc.boolean().map((value) => fixed({ payment_only_post_handover: String(value) })),
    preference_ids: ids('preference_ids', (context, ref) => [...(catalogue.features.get(pickProject(ref, context).id) ?? [])].slice(0, 3), [1, 2, 5, 13, 14, 26, 99]),
    unit_preference_ids: ids('unit_preference_ids', (context, ref) => [...pickUnit(ref, context).tags].slice(0, 2), [1, 5, 10, 13, 15, 19]),
    /*
     * The radius stops just beyond or just short of another project, or is random. Not exactly at it: a
     * distance computed in floating point is only good to an ulp or so (PostgreSQL's radians() and
     * JavaScript's deg * PI / 180 already differ there), so an exact tie has no single right answer.
     * A micrometre either way does.
     */
    geo: fc
      .tuple(unitRef, fc.constantFrom(...located.map((project) => project.id)), fc.constantFrom(1 + 1e-9, 1 - 1e-9, 0), fc.integer({ min: 50, max: 60_000 }))
      .map(([ref, otherId, scale, randomM]): Draw => (context) => {
        const own = pickProject(ref, context);
        const centre = own.latitude === null ? projectById.get(otherId)! : own;
        const other = projectById.get(otherId)!;
        const km = haversineKm(centre.latitude!, centre.longitude!, other.latitude!, other.longitude!);
        const radius = scale === 0 || km === 0 ? randomM / 1000 : km * scale;
        return { lat: String(centre.latitude), lng: String(centre.longitude), radius_km: String(radius) };
      }),
    // `false` sets no constraint, so it rides along with at least one `true`.
    near: fc
      .tuple(fc.subarray(NEAR_PARAMETERS, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([names, others]) => fixed(Object.fromEntries(names.map((name, i) => [name, String(i === 0 || others)])))),
  } satisfies Record<string, fc.Arbitrary<Draw>>;
}

function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (degrees: number) => (degrees * Math.PI) / 180;
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return (2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(a)))) / 1000;
}

/** Bounds that end exactly at a displayed value: the likeliest place for rounding to go wrong. */
const BOUNDARY_FOCUS = ['price', 'price', 'price_per_m2', 'price_per_ft2', 'size'] as const;

/** Unit-level parameters the project's unit summary does not answer (see unitSummaryConditions). */
const UNIT_PARAMETERS_BEYOND_SUMMARY = ['statuses', 'price_per_m2', 'price_per_ft2', 'size', 'parking_min', 'unit_preference_ids'];

/** Project-level parameters (each one filter; `near` one to three). */
const PROJECT_PARAMETERS = ['search', 'developer_ids', 'unit_types', 'development_status', 'is_branded', 'is_resale', 'is_escrow', 'handover', 'payment_max_pre_handover', 'payment_min_after_handover', 'payment_only_post_handover', 'preference_ids', 'geo', 'near'];

/**
 * Random scenarios; `summaryOnly` keeps to the unit filters the unit summary answers without the unit
 * EXISTS (bedrooms and one price bound), alongside any project-level filter. `manyProjectFilters`: four
 * to nine project-level parameters at once and nothing else (the search's list of the projects left,
 * find-projects.ts's narrowAll, is used from four filters on).
 */
export function scenarioArb(catalogue: ReferenceCatalogue, { summaryOnly = false, manyProjectFilters = false } = {}): fc.Arbitrary<Scenario> {
  const arbs = parameterArbs(catalogue);
  const names = (Object.keys(arbs) as (keyof typeof arbs)[])
    .filter((name) => !summaryOnly || !UNIT_PARAMETERS_BEYOND_SUMMARY.includes(name))
    .filter((name) => !manyProjectFilters || PROJECT_PARAMETERS.includes(name));
  const focuses = summaryOnly ? (['price'] as const) : BOUNDARY_FOCUS;
  return fc
    .record({
      priceVector: priceVectorArb,
      withRadius: fc.boolean(),
      anchor: fc.nat(catalogue.units.length - 1),
      chosen: manyProjectFilters ? fc.shuffledSubarray(names, { minLength: 4, maxLength: 9 }) : fc.shuffledSubarray(names, { minLength: 0, maxLength: 4 }),
      focus: manyProjectFilters ? fc.constant(null) : fc.option(fc.constantFrom(...focuses), { freq: 2 }),
      draws: fc.record(arbs),
      limit: fc.option(fc.integer({ min: 1, max: 120 }), { freq: 2 }),
      offset: fc.option(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 45 })), { freq: 2 }),
    })
    .map(({ priceVector, withRadius, anchor, chosen, focus, draws, limit, offset }) => {
      const context = { anchor: catalogue.units[anchor], priceVector };
      const query: Query = Object.assign({}, ...[...chosen, ...(focus ? [focus] : [])].map((name) => draws[name](context)));
      if (limit !== null) query.limit = String(limit);
      if (offset !== null) query.offset = String(offset);
      return { priceVector, withRadius, query };
    });
}

