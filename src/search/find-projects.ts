import { compareDecimalTexts } from '../domain/decimal.js';
import { bedroomsName, isFilterable, UNIT_STATUS_NAMES } from '../domain/code-names.js';
import { haversineM, inBox, type LngLatBox } from '../domain/geo.js';
import { type FacetName, type HandoverBound, type ProjectFilters, type ProjectsPage } from '../domain/project-filters.js';
import type { ReadScope } from '../domain/currency.js';
import type { KeyPricing } from '../domain/pricing.js';
import type { ProjectFacets } from '../contract/schemas/projects.js';
import { BUCKETS, PROJECT_FACET_NAMES, STATUSES, type ProjectFacetName, type Snapshot } from './snapshot.js';
import { appendRawProperty } from '../contract/json-splice.js';
import { projectsNamed } from './name-search.js';
import { displayPrices, keyPricingOf, shownPriceJson, type DisplayPrices } from './display-prices.js';
import { derivedOnce, searchKey, type FoundList } from './result-cache.js';
import { Matches } from './matches.js';
import { andInto, countOnes, keepWhere } from './byte-masks.js';
import { shapeGrid } from './shape-grid.js';
import { keepInBox, latitudeBand } from './box-filter.js';
import { FACET_BUCKETS, FACET_STATUSES, FACET_STATUSES_SHIFT, UnitMatcher } from './unit-matcher.js';
import { visibleScope } from './visibility.js';
import { WhatMatched } from './what-matched.js';
import { perObject } from '../lib/per-object.js';
import { nearFlags } from './near-flags.js';

/*
 * GET /projects on a snapshot: the same filters, with the same meaning, as the SQL of
 * src/queries/projects-sql-reference.ts (kept as the reference of the differential tests), evaluated over the
 * snapshot's columns. Exactness where SQL is exact: price bounds become a window of base prices in
 * whole cents (pricing.ts), payment shares and per-area prices fall back to exact decimals whenever
 * doubles cannot decide, handover instants are compared to the microsecond, and case folding uses the
 * database's own lower().
 */

export interface SearchContext {
  /** AMENITIEST_RADIUS, metres; undefined: every linked facility counts. */
  amenitiesRadiusM: number | undefined;
}

export interface FoundProjects {
  total: number;
  /** JSON text of the items array. */
  items: string;
  facets?: ProjectFacets;
  /** The search's result as kept in the snapshot's result cache (its `rendered` slot is the route's). */
  kept: FoundList;
}

/** Project-level facets that have a filter of their own (`area` has none). */
type ProjectFacet = Exclude<ProjectFacetName, 'area'>;
const PROJECT_FACETS = PROJECT_FACET_NAMES.filter((name): name is ProjectFacet => name !== 'area');

export interface FindOptions {
  /** Keep and reuse results in the snapshot's result cache (result-cache.ts); off: always the full pass. */
  cache?: boolean;
}

/** Every matching project in the page's order (and the facets asked for), from the result cache when it has them. */
export function matchProjects(snapshot: Snapshot, scope: ReadScope, page: ProjectsPage, context: SearchContext, options: FindOptions = {}): FoundList {
  const useCache = options.cache ?? true;
  const key = useCache ? searchKey(scope.contracted_developer_ids, scope.price_vector, page, context.amenitiesRadiusM, scope.display?.currency) : '';
  let found = useCache ? snapshot.results.get(key) : undefined;
  if (!found) {
    const display = scope.display && displayPrices(snapshot, scope.price_vector, scope.display);
    found = search(snapshot, scope, page, keyPricingOf(scope.price_vector), context, display);
    if (useCache) snapshot.results.offer(key, found);
  }
  return found;
}

export function findProjects(snapshot: Snapshot, scope: ReadScope, page: ProjectsPage, context: SearchContext, options: FindOptions = {}): FoundProjects {
  const pricing = keyPricingOf(scope.price_vector);
  // Kept per snapshot, price vector and currency (display-prices.ts): the same object matchProjects used.
  const display = scope.display && displayPrices(snapshot, scope.price_vector, scope.display);
  const found = matchProjects(snapshot, scope, page, context, options);

  const { projects } = snapshot;
  const render = (): string => {
    // `match=true`: the page's items only, after paging (what-matched.ts).
    const matched = page.match ? new WhatMatched(snapshot, page.filters.units, pricing, display) : undefined;
    const items: string[] = [];
    const shown = found.matches.page(page.offset, page.limit);
    for (let k = 0; k < shown.length; k++) {
      const i = shown[k];
      const converted = display?.from[projects.currencyIndex[i]];
      const price = shownPriceJson(projects.minBaseCents[i], pricing, converted);
      let item: string;
      if (converted) {
        // In the asked currency: the converted price, and the asked code in place of the project's.
        const tail = projects.itemTail[i];
        const at = projects.currencyAt[i];
        item = projects.itemHead[i] + price + tail.slice(0, at) + display!.json + tail.slice(at + projects.currencyLength[i]);
      } else {
        item = projects.itemHead[i] + price + projects.itemTail[i];
      }
      items.push(matched ? appendRawProperty(item, 'match', matched.json(i)) : item);
    }
    return `[${items.join(',')}]`;
  };
  // With `match=true` a page walks its projects' units: kept with the search's result, made once.
  const items = page.match ? derivedOnce(found, `match page ${page.offset} ${page.limit}`, render) : render();
  const result: FoundProjects = { total: found.matches.total, items, kept: found };
  if (found.facets) result.facets = found.facets;
  return result;
}

/** Every matching project in the page order, and the facet counts: the full pass over the snapshot. */
function search(snapshot: Snapshot, scope: ReadScope, page: ProjectsPage, pricing: KeyPricing, context: SearchContext, display: DisplayPrices | undefined): FoundList {
  const { projects } = snapshot;
  const visible = visibleScope(snapshot, scope.contracted_developer_ids).visible;
  const tests = compile(snapshot, page.filters, pricing, context, display);

  // With facets, one pass over the projects counts them and notes which match (each project's tests
  // then run once, not once for the counts and again for the page).
  const counted = page.facets.length > 0 ? countFacets(snapshot, visible, tests, page.facets) : undefined;
  // 1: the project is in the result. Without facets the filters run column by column in index order
  // (selected()); the sort's order then only reads this byte per project.
  const matched = counted?.matched ?? selected(visible, tests);

  let matches: Matches;
  if (page.sort.key === 'distance') {
    const { lat, lng } = page.filters.geo!;
    const found: { index: number; distance: number }[] = [];
    for (let i = 0; i < projects.count; i++) {
      if (matched[i] === 1) {
        found.push({ index: i, distance: haversineM(lat, lng, projects.latitude[i], projects.longitude[i]) });
      }
    }
    const direction = page.sort.descending ? -1 : 1;
    found.sort((a, b) => (a.distance !== b.distance ? (a.distance < b.distance ? -direction : direction) : projects.id[a.index] - projects.id[b.index]));
    matches = Matches.listed(Int32Array.from(found, (entry) => entry.index), projects.count);
  } else {
    const orders = snapshot.orders[page.sort.key];
    // The page's projects are read off the sort order when asked (matches.ts).
    matches = Matches.marked(matched, page.sort.descending ? orders.descending : orders.ascending);
  }
  return counted ? { matches, facets: counted.facets } : { matches };
}

/** selected()'s marks, grown to the largest catalogue seen (a search runs to its end without yielding). */
let marks = new Uint8Array(0);
/** countFacets()'s matches as bytes and as a list, grown likewise. */
let facetBuffers = { matched: new Uint8Array(0), found: new Int32Array(0) };

/**
 * The projects that pass every filter, as 1s: the visible ones, narrowed by each project-level
 * filter's column form, then by the unit summary's (which may decide the unit-level filters alone),
 * the units of the projects left, and the drawn shape last. Each stage reads its columns front to back:
 * a pass in the sort's order read every column at random (at 20,000 projects, outside the processor's
 * caches) and called a chain of closures per project. When few projects are left after the
 * project-level filters, the shape (over its box's band) and then the unit-level filters are asked of
 * each of them instead.
 */
function selected(visible: Uint8Array, tests: Tests): Uint8Array {
  if (marks.length < visible.length) marks = new Uint8Array(visible.length);
  const mask = marks.subarray(0, visible.length);
  mask.set(visible);
  narrowAll(mask, tests.own.concat(tests.rest));
  const { units, drawnAfterBox } = tests;
  if (units.active && countOnes(mask) * FEW < mask.length) {
    // Few projects left (a map's area, a name): the drawn shape, then the unit-level filters asked of
    // those left alone, where the unit summary's column form reads every project's bounds.
    drawnAfterBox?.(mask);
    keepWhere(mask, (i) => units.matches(i));
    return mask;
  }
  units.keepMatching(mask);
  drawnAfterBox?.(mask);
  return mask;
}

/**
 * Under 1/FEW of the catalogue left, the remaining filters are asked project by project of those left
 * (narrowAll()'s list, and selected()'s unit-level filters), where a column form reads every project
 * however few are left.
 */
const FEW = 8;

/** A filter's column form: clears mask[i] for each project i that fails it. */
type Narrow = (mask: Uint8Array) => void;

/** A project-level filter: its test of one project, and its column form (the same rule). */
interface ProjectFilter {
  test: (i: number) => boolean;
  narrow: Narrow;
}

/** narrowAll()'s list of the projects left, kept between searches as `marks` is. */
let leftList = new Int32Array(0);

/** How many projects narrowAll() asks each filter about to guess its share. */
const SAMPLE = 64;

/**
 * Clears mask[i] for each project i that fails one of `filters`. With a few filters, column by column.
 * With more, the filters are first ordered by the share of a sample of the projects (every n/64th, or
 * every project of a smaller catalogue) that each lets through, and run column by column until the
 * shares multiplied say at most 1/FEW are left; from there each remaining filter's test runs on the
 * list of those left only. A column pass reads every project however few are left: the bench's "every
 * filter" search (~20 project-level filters) read 20 columns of 20,000 projects at 4×L to keep a few
 * hundred. The order and the switch are guesses, so they change the cost only, never which projects are
 * left. The mask holds 0 or 1 only (the visible bytes, and column forms that clear).
 */
function narrowAll(mask: Uint8Array, filters: readonly ProjectFilter[]): void {
  if (filters.length < 4) {
    for (const filter of filters) filter.narrow(mask);
    return;
  }
  const asked = Math.min(SAMPLE, mask.length);
  const sample: number[] = [];
  for (let j = 0; j < asked; j++) {
    const i = Math.floor((j * mask.length) / asked);
    if (mask[i] === 1) sample.push(i);
  }
  const share = new Map(filters.map((filter) => [filter, sample.filter((i) => filter.test(i)).length / Math.max(1, sample.length)]));
  const ordered = [...filters].sort((a, b) => share.get(a)! - share.get(b)!);
  // The share of the catalogue left, guessed: the sample's visible share, then each filter's.
  let guess = sample.length / Math.max(1, asked);
  for (let k = 0; k < ordered.length; k++) {
    ordered[k].narrow(mask);
    guess *= share.get(ordered[k])!;
    if (guess * FEW > 1 || ordered.length - k - 1 < 2) continue;
    if (leftList.length < mask.length) leftList = new Int32Array(mask.length);
    const left = leftList;
    let count = 0;
    for (let i = 0; i < mask.length; i++) {
      left[count] = i;
      count += mask[i];
    }
    // A wrong guess: columns again from the share counted, and the list tried again once the shares
    // say an eighth.
    if (count * FEW > mask.length) {
      guess = count / mask.length;
      continue;
    }
    for (let f = k + 1; f < ordered.length; f++) {
      const test = ordered[f].test;
      let kept = 0;
      for (let j = 0; j < count; j++) {
        const i = left[j];
        left[kept] = i;
        kept += +test(i);
      }
      count = kept;
    }
    mask.fill(0);
    for (let j = 0; j < count; j++) mask[left[j]] = 1;
    return;
  }
}

/** The column form of a filter answered by a byte per project (1: passes). */
const andBytes =
  (bytes: Uint8Array): Narrow =>
  (mask) =>
    andInto(mask, bytes);

interface Tests {
  /** The facet's own filter, when the request has one. */
  facet: Partial<Record<ProjectFacet, (i: number) => boolean>>;
  /** `facet`'s filters, with their column forms. */
  own: ProjectFilter[];
  /** Every project-level filter that is not a facet's own (nor the drawn shape), with its column form. */
  rest: ProjectFilter[];
  /** The unit-level filters. */
  units: UnitMatcher;
  /**
   * Clears the projects outside the drawn polygon, from a mask that holds none outside its box: the
   * box is among the project-level checks (`rest`), which must have run first (the shape's pass reads
   * the box's band only). Apart, and run after the unit summary's column pass, because the shape's
   * test (a grid read, or a walk of the edges near the point) costs more than the summary's answer for
   * the typical search, which turns most of the box's projects away; on the few-projects path
   * (selected()) it comes first, before the units.
   */
  drawnAfterBox?: Narrow;
}

/*
 * Each drawn shape's test (a grid over the shape's box, backed by the exact test of its rings'
 * latitude lists: shape-grid.ts, geo.ts), made once per shape: a shape asked again is the same object (src/contract/parsed-shapes.ts),
 * so its test goes with it when it is no longer kept.
 */
const drawnShapeGrid = perObject(shapeGrid);

function compile(snapshot: Snapshot, filters: ProjectFilters, pricing: KeyPricing, context: SearchContext, display: DisplayPrices | undefined): Tests {
  const p = snapshot.projects;
  const checks: ((i: number) => boolean)[] = [];
  const facet: Tests['facet'] = {};
  // Each check's column form (keepWhere for those without a cheaper one).
  const columnForms = new Map<(i: number) => boolean, Narrow>();

  if (filters.search !== undefined) {
    const named = projectsNamed(p, lowerLikeDatabase(filters.search, snapshot.lowerCase));
    const check = (i: number) => named[i] === 1;
    checks.push(check);
    columnForms.set(check, andBytes(named));
  }
  const among = (values: number[] | undefined, column: Int32Array) => {
    if (!values) return undefined;
    // A lookup table when the ids are small (they are: companies, types, statuses), ~10x cheaper than Set.has.
    const largest = values.reduce((max, value) => Math.max(max, value), 0);
    if (largest < 1 << 16) {
      const wanted = new Uint8Array(largest + 1);
      for (const value of values) wanted[value] = 1;
      const check = (i: number) => wanted[column[i]] === 1;
      // A value past the table reads undefined: 0 after the bitwise and.
      columnForms.set(check, (mask) => {
        for (let i = 0; i < mask.length; i++) mask[i] &= wanted[column[i]];
      });
      return check;
    }
    const wanted = new Set(values);
    return (i: number) => wanted.has(column[i]);
  };
  const flag = (value: boolean | undefined, column: Uint8Array) => {
    if (value === undefined) return undefined;
    const check = (i: number) => (column[i] === 1) === value;
    columnForms.set(check, (mask) => andInto(mask, column, !value));
    return check;
  };
  const facetTests: Record<ProjectFacet, ((i: number) => boolean) | undefined> = {
    developer: among(filters.developerIds, p.companyId),
    unit_types: among(filters.unitTypes, p.type),
    development_status: among(filters.developmentStatuses, p.developmentStatus),
    is_branded: flag(filters.isBranded, p.isBranded),
    is_resale: flag(filters.isResale, p.isResale),
    is_escrow: flag(filters.isEscrow, p.isEscrow),
  };
  for (const name of PROJECT_FACETS) if (facetTests[name]) facet[name] = facetTests[name];

  if (filters.handoverFrom) {
    const bound = instantOf(filters.handoverFrom);
    checks.push((i) => !Number.isNaN(p.handoverSeconds[i]) && compareInstant(p.handoverSeconds[i], p.handoverMicros[i], bound) >= 0);
  }
  if (filters.handoverTo) {
    const bound = instantOf(filters.handoverTo);
    const inclusive = filters.handoverTo.inclusive;
    checks.push((i) => {
      if (Number.isNaN(p.handoverSeconds[i])) return false;
      const order = compareInstant(p.handoverSeconds[i], p.handoverMicros[i], bound);
      return inclusive ? order <= 0 : order < 0;
    });
  }
  if (filters.paymentMaxPreHandover !== undefined) {
    const bound = filters.paymentMaxPreHandover;
    const text = String(bound);
    checks.push((i) => p.preShareText[i] !== null && compareDecimalTexts(p.preShareText[i]!, p.preShare[i], text, bound) <= 0);
  }
  if (filters.paymentMinAfterHandover !== undefined) {
    const bound = filters.paymentMinAfterHandover;
    const text = String(bound);
    checks.push((i) => p.afterShareText[i] !== null && compareDecimalTexts(p.afterShareText[i]!, p.afterShare[i], text, bound) >= 0);
  }
  if (filters.paymentOnlyPostHandover) checks.push((i) => p.postHandover[i] === 1);
  if (filters.geo) {
    const { box, lat, lng, radiusM } = filters.geo;
    // The same box pre-test as the SQL (BETWEEN, inclusive), then the same great-circle formula.
    const hasLngBox = box.minLng !== undefined && box.maxLng !== undefined;
    checks.push((i) => {
      const plat = p.latitude[i];
      const plng = p.longitude[i];
      if (!(plat >= box.minLat && plat <= box.maxLat) || Number.isNaN(plng)) return false;
      if (hasLngBox && !(plng >= box.minLng! && plng <= box.maxLng!)) return false;
      return haversineM(lat, lng, plat, plng) <= radiusM;
    });
  }
  const inBoxColumn = (box: LngLatBox): Narrow => (mask) => keepInBox(mask, p, box);
  if (filters.bbox) {
    const box = filters.bbox;
    // NaN (no coordinates) fails every comparison: never inside.
    const check = (i: number) => inBox(p.longitude[i], p.latitude[i], box);
    checks.push(check);
    columnForms.set(check, inBoxColumn(box));
  }
  for (const category of filters.nearCategories) {
    const near = nearFlags(snapshot, category, context.amenitiesRadiusM);
    const check = (i: number) => near[i] === 1;
    checks.push(check);
    columnForms.set(check, andBytes(near));
  }
  if (filters.featureIds) {
    const mask = p.features.mask(filters.featureIds);
    checks.push(mask === null ? () => false : (i) => p.features.hasAll(i, mask));
  }
  let drawnAfterBox: Tests['drawnAfterBox'];
  if (filters.polygon) {
    const { box } = filters.polygon;
    const grid = drawnShapeGrid(filters.polygon);
    const check = (i: number) => inBox(p.longitude[i], p.latitude[i], box);
    checks.push(check);
    columnForms.set(check, inBoxColumn(box));
    drawnAfterBox = (mask) => grid.keepInside(mask, latitudeBand(p, box.south, box.north));
  }

  const withColumnForm = (test: (i: number) => boolean): ProjectFilter => ({ test, narrow: columnForms.get(test) ?? ((mask) => keepWhere(mask, test)) });
  return {
    facet,
    own: Object.values(facet).map(withColumnForm),
    rest: checks.map(withColumnForm),
    units: new UnitMatcher(snapshot, filters.units, pricing, display),
    drawnAfterBox,
  };
}

/**
 * The counts of each facet asked for. A project counts for a value of facet F when it passes every
 * filter except F's own and has that value (for unit-level facets: has one unit with that value that
 * passes every other unit-level filter), which is the total the request would have with F's filter
 * replaced by that single value.
 */
function countFacets(snapshot: Snapshot, visible: Uint8Array, tests: Tests, names: FacetName[]): { facets: ProjectFacets; matched: Uint8Array } {
  const p = snapshot.projects;
  const projectFacets = PROJECT_FACET_NAMES.filter((name) => names.includes(name)).map((name) => ({
    name,
    ...snapshot.facetValues[name],
    counts: new Int32Array(snapshot.facetValues[name].values.length),
  }));
  const byName = new Map(projectFacets.map((facet) => [facet.name as FacetName, facet]));
  const ownNames = Object.keys(tests.facet) as ProjectFacet[];
  const ownTests = ownNames.map((name) => tests.facet[name]!);
  // How many projects had each combination of bucket bits, and of status bits, of withMatch: one
  // increment per project, the counts per value worked out at the end (counting bit by bit per project
  // was ~9 % of the six-facet pass).
  const bucketSets = names.includes('bedrooms') ? new Int32Array(1 << BUCKETS) : undefined;
  const statusSets = names.includes('statuses') ? new Int32Array(1 << STATUSES) : undefined;
  // Buffers kept between searches (read by search() before the next one starts), as `marks`.
  if (facetBuffers.matched.length < p.count) facetBuffers = { matched: new Uint8Array(p.count), found: new Int32Array(p.count) };
  /** 1: the project passes every filter (it is in the result). */
  const matched = facetBuffers.matched.subarray(0, p.count).fill(0);
  /** The matches by index, found[0] to found[total - 1]. */
  const found = facetBuffers.found;
  let total = 0;

  // The projects that pass every filter but the facets' own, column by column (as selected()).
  if (marks.length < p.count) marks = new Uint8Array(p.count);
  const rest = marks.subarray(0, p.count);
  rest.set(visible);
  narrowAll(rest, tests.rest);
  // With facets the shape comes before the unit work: withMatch asks more of the summary than matches.
  tests.drawnAfterBox?.(rest);
  // The counts from the summary's columns cost the same however few projects are left: worth it only
  // when many are (the typical search keeps most; a viewport or a drawn shape, few).
  let left = 0;
  for (let i = 0; i < rest.length; i++) left += rest[i];
  const byColumns =
    (bucketSets || statusSets) && ownTests.length === 0 && left * 4 >= rest.length
      ? tests.units.countFacetsByColumns(rest, matched, bucketSets !== undefined, statusSets !== undefined)
      : undefined;
  // Without the bedrooms and statuses facets the unit-level filters are matches() alone: asked in
  // column form (as selected()) of every project left, into `matched`, which the facets' own filters
  // then clear.
  const unitsInColumns = !bucketSets && !statusSets;
  if (unitsInColumns) {
    matched.set(rest);
    tests.units.keepMatching(matched);
  }
  if (byColumns || (unitsInColumns && ownTests.length === 0)) {
    // The matches by index, without a branch (as the sort's walk).
    for (let i = 0; i < rest.length; i++) {
      found[total] = i;
      total += matched[i];
    }
  } else {
    for (let i = 0; i < p.count; i++) {
      if (rest[i] === 0) continue;
      // Failing two facets' own filters counts nowhere; failing one counts for that facet only.
      let failed = -1;
      let failures = 0;
      for (let k = 0; k < ownTests.length; k++) {
        if (!ownTests[k](i)) {
          failed = k;
          if (++failures > 1) break;
        }
      }
      if (failures > 0) {
        const facet = failures === 1 ? byName.get(ownNames[failed]) : undefined;
        if (facet && (unitsInColumns ? matched[i] === 1 : tests.units.matches(i))) facet.counts[facet.of[i]]++;
        matched[i] = 0;
        continue;
      }
      if (unitsInColumns) {
        if (matched[i] === 1) found[total++] = i;
        continue;
      }
      // Without a unit passing every unit-level filter, one may still pass all but bedrooms or statuses.
      const withMatch = tests.units.withMatch(i);
      if (bucketSets) bucketSets[withMatch & FACET_BUCKETS]++;
      if (statusSets) statusSets[(withMatch >>> FACET_STATUSES_SHIFT) & FACET_STATUSES]++;
      if (tests.units.matchesAmong(withMatch)) {
        matched[i] = 1;
        found[total++] = i;
      }
    }
  }
  // Each project-level facet in a loop of its own over the matches: cheaper than every facet per
  // matching project (docs/performance.md, "Facet counts").
  for (const { of, counts } of projectFacets) countValues(of, found, total, counts);

  const facets: Record<string, FacetCount[]> = {};
  const listed = (name: FacetName, values: readonly (number | boolean)[], labels: readonly (string | null)[], counts: Int32Array) =>
    values.flatMap((value, k) => (counts[k] > 0 ? [{ value, label: labels[k], filterable: isFilterable(name, value), count: counts[k] }] : []));
  for (const name of names) {
    if (name === 'bedrooms') facets.bedrooms = listed(name, BEDROOM_VALUES, BEDROOM_LABELS, byColumns?.buckets ?? countsPerBit(bucketSets!, BUCKETS));
    else if (name === 'statuses') facets.statuses = listed(name, STATUS_VALUES, STATUS_LABELS, byColumns?.statuses ?? countsPerBit(statusSets!, STATUSES));
    else facets[name] = listed(name, byName.get(name)!.values, byName.get(name)!.labels, byName.get(name)!.counts);
  }
  return { facets: facets as ProjectFacets, matched };
}

/**
 * counts[v] += the number of k < total with of[found[k]] = v (a value of -1, none, is not counted).
 * Neighbouring matches mostly share a value, so one counter bumped per match waits on its own last
 * bump each time: two sets of counters taken in turn (index 0 of each for none) halve that chain.
 */
function countValues(of: Int32Array, found: Int32Array, total: number, counts: Int32Array): void {
  const size = counts.length + 1;
  const twice = new Int32Array(2 * size);
  let k = 0;
  for (; k + 1 < total; k += 2) {
    twice[of[found[k]] + 1]++;
    twice[size + of[found[k + 1]] + 1]++;
  }
  if (k < total) twice[of[found[k]] + 1]++;
  for (let value = 0; value < counts.length; value++) counts[value] += twice[value + 1] + twice[size + value + 1];
}

interface FacetCount {
  value: number | boolean;
  label: string | null;
  filterable: boolean;
  count: number;
}

const BEDROOM_VALUES = [0, 1, 2, 3, 4, 5];
const BEDROOM_LABELS = BEDROOM_VALUES.map(bedroomsName);
// Bit k of the statuses mask is unit status k (bit 0 unused: statuses are 1 to 5).
const STATUS_VALUES = Array.from({ length: STATUSES }, (_, k) => k);
const STATUS_LABELS = STATUS_VALUES.map((status) => UNIT_STATUS_NAMES[status] ?? null);

/** From the number of projects per combination of bits (sets[bits]), the number per bit. */
function countsPerBit(sets: Int32Array, bits: number): Int32Array {
  const counts = new Int32Array(bits);
  for (let set = 1; set < sets.length; set++) {
    if (sets[set] === 0) continue;
    for (let bit = 0; bit < bits; bit++) if ((set >> bit) & 1) counts[bit] += sets[set];
  }
  return counts;
}

/** lower() of text as the database computes it (code point by code point, see readLowerCaseTable). */
export function lowerLikeDatabase(text: string, table: Map<number, string>): string {
  let lower = '';
  for (const char of text) lower += table.get(char.codePointAt(0)!) ?? char;
  return lower;
}

/** A handover bound (RFC 3339 text from the filter parser) as seconds and microseconds. */
function instantOf(bound: HandoverBound): { seconds: number; micros: number } {
  const match = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/.exec(bound.at);
  if (!match) throw new Error(`unexpected handover bound ${bound.at}`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return { seconds: date.getTime() / 1000, micros: Number((match[7] ?? '').padEnd(6, '0')) };
}

function compareInstant(seconds: number, micros: number, bound: { seconds: number; micros: number }): number {
  if (seconds !== bound.seconds) return seconds < bound.seconds ? -1 : 1;
  return micros === bound.micros ? 0 : micros < bound.micros ? -1 : 1;
}
