import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { inSnapshotOf } from '../db/same-snapshot.js';
import { FACILITY_CATEGORIES, type FacilityCategory } from '../domain/catalogue-codes.js';
import { parseDecimal } from '../domain/decimal.js';
import { SORT_KEYS, type FacetName, type SortKey } from '../domain/project-filters.js';
import type { LinkBuilder } from '../contract/links.js';
import { toProjectListItem } from '../contract/presenters/projects.js';
import { spliceRawProperty } from '../contract/json-splice.js';
import {
  readLowerCaseTable,
  readSearchDevelopers,
  readSearchProjects,
  readSearchUnits,
  type SearchProjectRow,
  type SearchUnitRow,
} from '../queries/search-catalogue.js';
import { readFacetNames, type CodeNameRow } from '../queries/code-names.js';
import { FLAG_NAMES } from '../domain/code-names.js';
import { readCurrencyRates } from '../queries/currency-rates.js';
import { readNearbyFacilityTexts, readNearbyLinks } from '../queries/project-nearby.js';
import { compareAedValue, type CurrencyRates } from '../domain/currency.js';
import { idListsOf, IdListsBuilder, type IdLists } from './id-lists.js';
import { Membership } from './membership.js';
import { TextFields } from './text-fields.js';
import { Postings } from './postings.js';
import { ResultCache } from './result-cache.js';
import { ScopeCache } from './scopes.js';
import { ProjectNearbyBuilder, type ProjectNearby } from './project-nearby.js';

/*
 * One immutable picture of the searchable catalogue: the live projects (published, not deleted) and
 * their live units as columns (typed arrays, index = position in id order), the orders of every sort,
 * and each project's GET /projects item as JSON text around its one key-dependent value (price_from).
 * Built from the database by buildSnapshot; never changed afterwards (only its per-scope cache fills).
 */

export interface ProjectColumns {
  count: number;
  id: Int32Array;
  companyId: Int32Array;
  /** 0 when the project has no area (ids are positive). */
  areaId: Int32Array;
  type: Int32Array;
  developmentStatus: Int32Array;
  isBranded: Uint8Array;
  isResale: Uint8Array;
  isEscrow: Uint8Array;
  /** A payment-plan part of type 3 with a percent above 0. */
  postHandover: Uint8Array;
  /** Handover instant as whole seconds since the epoch (NaN: none) and the microseconds past them. */
  handoverSeconds: Float64Array;
  handoverMicros: Int32Array;
  latitude: Float64Array;
  longitude: Float64Array;
  /** Metres to the nearest linked facility per category; NaN when none. */
  nearest: Record<FacilityCategory, Float64Array>;
  /** Payment-plan shares (types 1+2, type 3) as doubles and exact text; NaN/null: no payment plan. */
  preShare: Float64Array;
  preShareText: (string | null)[];
  afterShare: Float64Array;
  afterShareText: (string | null)[];
  /** lower() of the name and of the developer's name, as the database folds case. */
  nameLower: string[];
  developerLower: string[];
  features: Membership;
  /** Units of project i: unitStart[i] .. unitStart[i + 1] - 1. */
  unitStart: Int32Array;
  /** Lowest base price of the live units, in cents; NaN when none has a price. */
  minBaseCents: Float64Array;
  /** Smallest live unit area; NaN when no unit. */
  sizeFrom: Float64Array;
  /** The item JSON before and after the value of price_from. */
  itemHead: string[];
  itemTail: string[];
  /** Where in itemTail the value of `currency` (the JSON string) starts, and its length: `currency=` replaces it. */
  currencyAt: Int32Array;
  currencyLength: Int32Array;
  /** The project's currency, as an index into `currencies`. */
  currencyIndex: Int32Array;
  /** The distinct currencies of the projects. */
  currencies: string[];
  /** The GET /projects/list entry as JSON. */
  flatItem: string[];
  unitSummary: UnitSummary;
}

/**
 * What each project's live units hold, to rule a project out (or in) without visiting its units. A
 * cell is a bedroom bucket (see BUCKETS) and a unit status (1 to 5): per cell, whether a unit is in it
 * (bit `status` of cellStatuses[bucketAt(count, p, bucket)]) and the lowest and highest base price of its
 * priced units (at cellOf(count, p, bucket, status)). Buckets and statuses also as bits over all units.
 *
 * Laid out bucket by bucket (one column per bucket, and per cell), not project by project: a search in
 * a sort's order reads one bucket of projects in no particular order, and a column of one bucket (160 kB
 * of prices at 20,000 projects) stays in the processor's cache where all six interleaved (960 kB) did not.
 */
export interface UnitSummary {
  /** The number of projects: the length of each bucket's (and cell's) column. */
  count: number;
  buckets: Uint8Array;
  statuses: Uint8Array;
  cellStatuses: Uint8Array;
  cellMin: Float64Array;
  cellMax: Float64Array;
  /**
   * The lowest and highest base price per bucket over every status (at bucketAt(count, p, bucket)): with no
   * statuses filter, one test per bucket instead of one per cell (the bedrooms facet asks it of every
   * bucket of every candidate project).
   */
  bucketMin: Float64Array;
  bucketMax: Float64Array;
  minArea: Float64Array;
  maxArea: Float64Array;
  maxParking: Float64Array;
  /** Every tag carried by one of the project's units. */
  tags: Membership;
}

export interface UnitColumns {
  count: number;
  id: Int32Array;
  /** Unit indexes by ascending id; undefined when the unit order (by project, then id) already is. */
  byId: Int32Array | undefined;
  project: Int32Array;
  bedrooms: Int32Array;
  status: Int32Array;
  parking: Int32Array;
  /** Base price in cents; NaN when the unit has no price. */
  baseCents: Float64Array;
  area: Float64Array;
  tags: Membership;
  /** Per tag, the units carrying it, by project (src/search/postings.ts). */
  tagPostings: Postings;
}

export interface DeveloperEntry {
  id: number;
  /** The GET /companies entry as JSON. */
  json: string;
}

export type SortOrders = Record<Exclude<SortKey, 'distance'>, { ascending: Int32Array; descending: Int32Array }>;

export interface Snapshot {
  /** Counts the snapshots built by one SearchModel, from 1. */
  generation: number;
  /** The catalogue version (catalogue_state) the snapshot was read at: it holds every change up to it. */
  catalogueVersion: number;
  builtAt: Date;
  buildMs: number;
  /** Where the build's time went (ms): reading from the database, then each stage in memory (scripts/search-model-size.ts prints them). */
  buildStages: Record<string, number>;
  projects: ProjectColumns;
  units: UnitColumns;
  orders: SortOrders;
  /** GET /companies before the key's contracts are applied, in its order. */
  developers: DeveloperEntry[];
  /** Code point -> the database's lower() of it, where it differs. */
  lowerCase: Map<number, string>;
  scopes: ScopeCache;
  /** GET /projects results already worked out on this snapshot (result-cache.ts). */
  results: ResultCache;
  /** The exchange rates read with the catalogue (src/domain/currency.ts). */
  rates: CurrencyRates;
  /** Project index by id. */
  indexOf: Map<number, number>;
  /** GET /projects/{id}'s nearby block, by project index (src/search/project-nearby.ts); undefined unless NEARBY_IN_MEMORY. */
  nearby: ProjectNearby | undefined;
  /** Per project-level facet: its values (ascending), their names (null: none known) and each project's value index (-1: none). */
  facetValues: Record<ProjectFacetName, { values: (number | boolean)[]; labels: (string | null)[]; of: Int32Array }>;
}

export const PROJECT_FACET_NAMES = ['developer', 'unit_types', 'development_status', 'is_branded', 'is_resale', 'is_escrow', 'area'] as const satisfies readonly FacetName[];
export type ProjectFacetName = (typeof PROJECT_FACET_NAMES)[number];

export interface SnapshotOptions {
  links: LinkBuilder;
  generation: number;
  /** Keep GET /projects/{id}'s nearby block (NEARBY_IN_MEMORY); off: the route reads it with SQL. */
  nearbyInMemory?: boolean;
  /**
   * Read the units on a second connection while the projects are read (PostgreSQL: the database runs
   * both at once). Off for PGlite, whose one connection would run them one after the other anyway.
   */
  concurrentReads?: boolean;
  /** The second connection's read failed and the units were read in turn (the build goes on). */
  onConcurrentReadFailed?: (error: unknown) => void;
}

/** Projects whose nearby links are read at once (L: ~900 links of ~20 bytes of text each per project). */
const NEARBY_CHUNK = 250;

/** Reads the catalogue (inside one REPEATABLE READ transaction) and builds the snapshot. */
export async function buildSnapshot(db: Kysely<DB>, options: SnapshotOptions): Promise<Snapshot> {
  const started = performance.now();
  const buildStages: Record<string, number> = {};
  let stageStarted = started;
  const stage = <T>(name: string, value: T): T => {
    const now = performance.now();
    buildStages[name] = now - stageStarted;
    stageStarted = now;
    return value;
  };
  const { catalogueVersion, projectRows, unitRows, developerRows, lowerCase, facetNames, rates, nearby } = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      // The version first: it fixes the transaction's snapshot, so the rows read next are exactly
      // those of that version. A transaction has one connection: with concurrentReads the units are
      // read on another one, in this transaction's snapshot (inSnapshotOf), while this one reads the
      // projects; at 20,000 projects each read is ~1.1-1.3 s of the database's time.
      const state = await trx.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirst();
      const unitsBeside = options.concurrentReads ? await inSnapshotOf(trx, db, readSearchUnits) : undefined;
      const projectRows = stage('read projects', await readSearchProjects(trx));
      // Beside the projects, what is left of the units' read is its wait here ('read units' then
      // measures that); a second transaction that could not start: read in turn, as PGlite does.
      const unitRows = stage(
        'read units',
        await (unitsBeside?.rows.catch((error: unknown) => {
          options.onConcurrentReadFailed?.(error);
          return readSearchUnits(trx);
        }) ?? readSearchUnits(trx)),
      );
      const developerRows = await readSearchDevelopers(trx);
      const lowerCase = await readLowerCaseTable(trx);
      const facetNames = await readFacetNames(trx);
      const rates = await readCurrencyRates(trx);
      let nearby: ProjectNearby | undefined;
      if (options.nearbyInMemory) {
        const builder = new ProjectNearbyBuilder(await readNearbyFacilityTexts(trx), new Map(projectRows.map((row, index) => [row.id, index])));
        // By chunks of projects: the links of all of L as text are ~100 MB at once.
        for (let at = 0; at < projectRows.length; at += NEARBY_CHUNK) builder.add(await readNearbyLinks(trx, projectRows.slice(at, at + NEARBY_CHUNK).map((row) => row.id)));
        nearby = builder.done();
      }
      return { catalogueVersion: state?.version ?? 0, projectRows, unitRows, developerRows, lowerCase, facetNames, rates, nearby };
    });
  stage('read the rest', undefined);
  const projects = stage('project columns', projectColumns(projectRows));
  const indexOf = new Map(projectRows.map((row, index) => [row.id, index]));
  const units = stage('unit columns', unitColumns(unitRows, indexOf, projects));
  stage('items', renderItems(projectRows, projects, options.links));
  const orders = stage('sort orders', sortOrders(projectRows, projects, rates));
  const snapshot: Snapshot = {
    generation: options.generation,
    catalogueVersion,
    builtAt: new Date(),
    buildMs: 0,
    buildStages,
    projects,
    units,
    orders,
    developers: developerRows.map((row) => ({ id: row.id, json: JSON.stringify({ id: row.id, name: row.name, logo: options.links(row.logo_path) }) })),
    lowerCase,
    scopes: new ScopeCache(),
    results: new ResultCache(),
    rates,
    indexOf,
    nearby,
    facetValues: facetValues(projects, facetNames),
  };
  stage('the rest', undefined);
  snapshot.buildMs = performance.now() - started;
  return snapshot;
}

function projectColumns(rows: SearchProjectRow[]): ProjectColumns {
  const count = rows.length;
  const ints = (read: (row: SearchProjectRow) => number) => Int32Array.from(rows, read);
  const flags = (read: (row: SearchProjectRow) => boolean) => Uint8Array.from(rows, (row) => (read(row) ? 1 : 0));
  const doubles = (read: (row: SearchProjectRow) => number | null) => Float64Array.from(rows, (row) => read(row) ?? Number.NaN);
  const handoverSeconds = new Float64Array(count);
  const handoverMicros = new Int32Array(count);
  rows.forEach((row, i) => {
    if (row.handover_epoch === null) {
      handoverSeconds[i] = Number.NaN;
      return;
    }
    const instant = splitMicros(parseDecimal(row.handover_epoch));
    handoverSeconds[i] = instant.seconds;
    handoverMicros[i] = instant.micros;
  });
  return {
    count,
    id: ints((row) => row.id),
    companyId: ints((row) => row.company_id),
    areaId: ints((row) => row.area_id ?? 0),
    type: ints((row) => row.type),
    developmentStatus: ints((row) => row.development_status),
    isBranded: flags((row) => row.is_branded),
    isResale: flags((row) => row.is_resale),
    isEscrow: flags((row) => row.is_escrow),
    postHandover: flags((row) => row.post_handover),
    handoverSeconds,
    handoverMicros,
    latitude: doubles((row) => row.latitude),
    longitude: doubles((row) => row.longitude),
    nearest: Object.fromEntries(
      FACILITY_CATEGORIES.map((category) => [category, doubles((row) => row[`nearest_${category}_m`])]),
    ) as Record<FacilityCategory, Float64Array>,
    preShare: doubles((row) => (row.pre_handover_share === null ? null : Number(row.pre_handover_share))),
    preShareText: rows.map((row) => row.pre_handover_share),
    afterShare: doubles((row) => (row.after_handover_share === null ? null : Number(row.after_handover_share))),
    afterShareText: rows.map((row) => row.after_handover_share),
    nameLower: rows.map((row) => row.name_lower),
    developerLower: rows.map((row) => row.company_name_lower),
    features: Membership.build(idListsOf(count, (i) => rows[i].feature_ids)),
    unitStart: new Int32Array(count + 1),
    minBaseCents: new Float64Array(count).fill(Number.NaN),
    sizeFrom: new Float64Array(count).fill(Number.NaN),
    itemHead: [],
    itemTail: [],
    currencyAt: new Int32Array(count),
    currencyLength: new Int32Array(count),
    ...currencyIndexOf(rows),
    flatItem: [],
    unitSummary: emptySummary(count),
  };
}

function currencyIndexOf(rows: SearchProjectRow[]): { currencyIndex: Int32Array; currencies: string[] } {
  const currencies = [...new Set(rows.map((row) => row.currency))].sort();
  const position = new Map(currencies.map((currency, k) => [currency, k]));
  return { currencyIndex: Int32Array.from(rows, (row) => position.get(row.currency)!), currencies };
}

/** Each project's value of every project-level facet, as an index into the facet's sorted values. */
function facetValues(projects: ProjectColumns, names: Awaited<ReturnType<typeof readFacetNames>>): Snapshot['facetValues'] {
  const indexed = (read: (i: number) => number | boolean | undefined, name: (value: number | boolean) => string | null) => {
    const values = [...new Set(Array.from({ length: projects.count }, (_, i) => read(i)).filter((value) => value !== undefined))].sort(
      (a, b) => Number(a) - Number(b),
    );
    const position = new Map(values.map((value, k) => [value, k]));
    return { values, labels: values.map(name), of: Int32Array.from({ length: projects.count }, (_, i) => position.get(read(i)!) ?? -1) };
  };
  const byId = (rows: CodeNameRow[]) => {
    const map = new Map(rows.map((row) => [row.id, row.name]));
    return (value: number | boolean) => map.get(value as number) ?? null;
  };
  const flag = (labels: readonly [string, string]) => (value: number | boolean) => labels[value ? 1 : 0];
  return {
    developer: indexed((i) => projects.companyId[i], byId(names.developer)),
    unit_types: indexed((i) => projects.type[i], byId(names.unit_types)),
    development_status: indexed((i) => projects.developmentStatus[i], byId(names.development_status)),
    is_branded: indexed((i) => projects.isBranded[i] === 1, flag(FLAG_NAMES.is_branded)),
    is_resale: indexed((i) => projects.isResale[i] === 1, flag(FLAG_NAMES.is_resale)),
    is_escrow: indexed((i) => projects.isEscrow[i] === 1, flag(FLAG_NAMES.is_escrow)),
    area: indexed((i) => (projects.areaId[i] === 0 ? undefined : projects.areaId[i]), byId(names.area)),
  };
}

/** An instant given as exact seconds since the epoch, as whole seconds and microseconds past them. */
export function splitMicros(seconds: { n: bigint; d: bigint }): { seconds: number; micros: number } {
  const total = (seconds.n * 1_000_000n) / seconds.d;
  const floor = total < 0n && total % 1_000_000n !== 0n ? total / 1_000_000n - 1n : total / 1_000_000n;
  return { seconds: Number(floor), micros: Number(total - floor * 1_000_000n) };
}

/** Units in project order, from the per-project texts of readSearchUnits (sorted by project id, like the projects). */
function unitColumns(rows: SearchUnitRow[], indexOf: Map<number, number>, projects: ProjectColumns): UnitColumns {
  let count = 0;
  for (const row of rows) count += unitsIn(row.units);
  const id = new Int32Array(count);
  const project = new Int32Array(count);
  const bedrooms = new Int32Array(count);
  const status = new Int32Array(count);
  const parking = new Int32Array(count);
  const baseCents = new Float64Array(count);
  const area = new Float64Array(count);
  const tags = new IdListsBuilder(count, count * 2);
  const summary = projects.unitSummary;
  let u = 0;
  let next = 0;
  for (const row of rows) {
    const p = indexOf.get(row.project_id)!;
    while (next <= p) projects.unitStart[next++] = u;
    // `id bedrooms status parking price area tag,tag` per unit, `;` between units.
    const text = new TextFields(row.units);
    for (const end = u + unitsIn(row.units); u < end; u++) {
      id[u] = text.integer();
      project[u] = p;
      bedrooms[u] = text.integer();
      status[u] = text.integer();
      parking[u] = text.integer();
      baseCents[u] = text.cents();
      area[u] = text.number();
      text.ids(tags);
      tags.endRow();
      addToSummary(summary, p, bedrooms[u], status[u], parking[u], baseCents[u], area[u]);
    }
  }
  while (next <= projects.count) projects.unitStart[next++] = u;
  for (let p = 0; p < projects.count; p++) {
    projects.sizeFrom[p] = summary.minArea[p];
    let lowest = Number.NaN;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      const low = summary.bucketMin[bucketAt(projects.count, p, bucket)];
      if (!(lowest <= low)) lowest = Number.isNaN(low) ? lowest : low;
    }
    projects.minBaseCents[p] = lowest;
  }
  const unitTags = tags.done();
  summary.tags = Membership.build(projectTags(unitTags, projects));
  // Each project's units of a tag by base price: a price window is a binary search (unit-matcher.ts).
  const tagPostings = Postings.build(projects.count, project, unitTags, (k) => baseCents[k]);
  return { count, id, byId: idOrder(id), project, bedrooms, status, parking, baseCents, area, tags: Membership.build(unitTags), tagPostings };
}

/** How many units a text of readSearchUnits holds (`;` between units). */
function unitsIn(text: string): number {
  let units = 1;
  for (let at = text.indexOf(';'); at >= 0; at = text.indexOf(';', at + 1)) units++;
  return units;
}

/** Every tag any unit of each project carries (each once), from the units' tags. */
function projectTags(unitTags: IdLists, projects: ProjectColumns): IdLists {
  const lists = new IdListsBuilder(projects.count);
  const seenIn = new Map<number, number>();
  for (let p = 0; p < projects.count; p++) {
    for (let entry = unitTags.start[projects.unitStart[p]]; entry < unitTags.start[projects.unitStart[p + 1]]; entry++) {
      const tag = unitTags.ids[entry];
      if (seenIn.get(tag) === p) continue;
      seenIn.set(tag, p);
      lists.add(tag);
    }
    lists.endRow();
  }
  return lists.done();
}

/** The unit indexes by ascending id, or undefined when they already are. */
export function idOrder(id: Int32Array): Int32Array | undefined {
  let sorted = true;
  for (let k = 1; k < id.length && sorted; k++) sorted = id[k - 1] < id[k];
  if (sorted) return undefined;
  return Int32Array.from(id.keys()).sort((a, b) => id[a] - id[b]);
}

/** The index of the live unit with this id in the snapshot, or -1 when it holds none. */
export function unitIndexOf(units: Pick<UnitColumns, 'id' | 'byId'>, unitId: number): number {
  const { id, byId } = units;
  let low = 0;
  let high = id.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const k = byId ? byId[middle] : middle;
    const value = id[k];
    if (value === unitId) return k;
    if (value < unitId) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Bedroom buckets: 0 to 4, and 5 for five or more (the values of the `bedrooms` filter). */
export const BUCKETS = 6;
export const bucketOf = (bedrooms: number) => (bedrooms < 5 ? bedrooms : 5);
/** Unit statuses are 1 to 5 (a CHECK constraint); a cell per bucket and status value 0 to 5. */
export const STATUSES = 6;
export const CELLS = BUCKETS * STATUSES;
/** Where project p's bucket is in the summary's per-bucket columns, of `count` projects each. */
export const bucketAt = (count: number, p: number, bucket: number) => bucket * count + p;
/** Where project p's cell (bucket, status) is in the summary's per-cell columns, of `count` projects each. */
export const cellOf = (count: number, p: number, bucket: number, status: number) => (bucket * STATUSES + status) * count + p;

/** One bucket's column of a per-bucket array of the summary (bucketMin, bucketMax, cellStatuses): `count` values, project p at p. */
export function bucketColumn<T extends Float64Array | Uint8Array>(summary: UnitSummary, column: T, bucket: number): T {
  const at = bucketAt(summary.count, 0, bucket);
  return column.subarray(at, at + summary.count) as T;
}

/** One cell's column of a per-cell array of the summary (cellMin, cellMax): `count` values, project p at p. */
export function cellColumn(summary: UnitSummary, column: Float64Array, bucket: number, status: number): Float64Array {
  const at = cellOf(summary.count, 0, bucket, status);
  return column.subarray(at, at + summary.count);
}

function emptySummary(count: number): UnitSummary {
  return {
    count,
    buckets: new Uint8Array(count),
    statuses: new Uint8Array(count),
    cellStatuses: new Uint8Array(count * BUCKETS),
    cellMin: new Float64Array(count * CELLS).fill(Number.NaN),
    cellMax: new Float64Array(count * CELLS).fill(Number.NaN),
    bucketMin: new Float64Array(count * BUCKETS).fill(Number.NaN),
    bucketMax: new Float64Array(count * BUCKETS).fill(Number.NaN),
    minArea: new Float64Array(count).fill(Number.NaN),
    maxArea: new Float64Array(count).fill(Number.NaN),
    maxParking: new Float64Array(count).fill(-Infinity),
    tags: Membership.build(idListsOf(0, () => [])),
  };
}

function addToSummary(summary: UnitSummary, p: number, bedrooms: number, status: number, parking: number, cents: number, area: number): void {
  const bucket = bucketOf(bedrooms);
  summary.buckets[p] |= 1 << bucket;
  summary.statuses[p] |= 1 << status;
  summary.cellStatuses[bucketAt(summary.count, p, bucket)] |= 1 << status;
  const cell = cellOf(summary.count, p, bucket, status);
  if (!Number.isNaN(cents)) {
    if (!(summary.cellMin[cell] <= cents)) summary.cellMin[cell] = cents;
    if (!(summary.cellMax[cell] >= cents)) summary.cellMax[cell] = cents;
    const inBucket = bucketAt(summary.count, p, bucket);
    if (!(summary.bucketMin[inBucket] <= cents)) summary.bucketMin[inBucket] = cents;
    if (!(summary.bucketMax[inBucket] >= cents)) summary.bucketMax[inBucket] = cents;
  }
  if (!(summary.minArea[p] <= area)) summary.minArea[p] = area;
  if (!(summary.maxArea[p] >= area)) summary.maxArea[p] = area;
  if (parking > summary.maxParking[p]) summary.maxParking[p] = parking;
}

/** Item JSON around price_from, and the flat entry, with the same presenter as the routes use. */
function renderItems(rows: SearchProjectRow[], projects: ProjectColumns, links: LinkBuilder): void {
  rows.forEach((row, i) => {
    const item = toProjectListItem(
      { ...row, price_from: null, size_from: Number.isNaN(projects.sizeFrom[i]) ? null : projects.sizeFrom[i] },
      links,
    );
    const [head, tail] = spliceRawProperty(JSON.stringify(item), 'price_from', null, []);
    projects.itemHead.push(head);
    projects.itemTail.push(tail);
    const [beforeCurrency] = spliceRawProperty(tail, 'currency', row.currency, []);
    projects.currencyAt[i] = beforeCurrency.length;
    projects.currencyLength[i] = JSON.stringify(row.currency).length;
    projects.flatItem.push(JSON.stringify({ id: row.id, name: row.name, logo: links(row.logo_path) }));
  });
}

/*
 * Every order as a permutation of the projects, so that a request walks the projects in the order
 * asked for and never sorts. Ranks and values come from the database (collation, timestamps to the
 * microsecond); missing values last in both directions; ties by id ascending.
 */
function sortOrders(rows: SearchProjectRow[], projects: ProjectColumns, rates: CurrencyRates): SortOrders {
  // price_from by value in AED (src/domain/currency.ts); no rate counts as no price.
  const aedPerUnit = Float64Array.from(projects.currencies, (currency) => rates.aedPerUnit(currency) ?? Number.NaN);
  const rateOf = (i: number) => aedPerUnit[projects.currencyIndex[i]];
  const keys: Record<Exclude<SortKey, 'distance'>, (i: number) => number> = {
    name: (i) => rows[i].name_rank,
    price_from: (i) => projects.minBaseCents[i] * rateOf(i),
    size_from: (i) => projects.sizeFrom[i],
    handover_date: (i) => (rows[i].handover_date === null ? Number.NaN : rows[i].handover_rank),
    // Newest first: a larger creation rank comes first.
    newest: (i) => -rows[i].created_rank,
  };
  const indexes = Array.from({ length: projects.count }, (_, i) => i);
  const orders = {} as SortOrders;
  for (const key of SORT_KEYS) {
    if (key === 'distance') continue;
    const value = keys[key];
    const ordered = (direction: 1 | -1) =>
      Int32Array.from(
        [...indexes].sort((a, b) => {
          const [x, y] = [value(a), value(b)];
          const missing = Number(Number.isNaN(x)) - Number(Number.isNaN(y));
          if (missing !== 0) return missing;
          if (key === 'price_from' && !Number.isNaN(x)) {
            // Products of doubles can tie or swap where the exact values do not: compared exactly.
            const order = compareAedValue(projects.minBaseCents[a], rateOf(a), projects.minBaseCents[b], rateOf(b));
            if (order !== 0) return order * direction;
          } else if (x !== y && !Number.isNaN(x)) return x < y ? -direction : direction;
          return projects.id[a] - projects.id[b];
        }),
      );
    orders[key] = { ascending: ordered(1), descending: ordered(-1) };
  }
  return orders;
}
