import type { UnitFilters } from '../domain/project-filters.js';
import type { KeyPricing } from '../domain/pricing.js';
import type { Conversion } from '../domain/currency.js';
import type { DisplayPrices } from './display-prices.js';
import { BUCKETS, bucketAt, bucketColumn, bucketOf, cellColumn, cellOf, STATUSES, type Snapshot } from './snapshot.js';
import { pricePerAreaBins, pricePerAreaMasks, WORDS } from './price-per-area-bins.js';
import { priceWindowMasks, tagPriceRanges } from './tag-price-ranges.js';
import { andInto, countMeeting, keepMeeting, markMeeting } from './byte-masks.js';

/*
 * The unit-level filters of one request: does one and the same live unit of a project satisfy all of
 * them (the SQL's unit EXISTS)? Each project's unit summary rules most projects in or out without
 * visiting their units: it is a pre-test that never rejects a project with a matching unit, and it
 * decides alone when the filters are bedrooms, statuses and at most one price bound (the key price
 * never decreases as the base price grows, so "a unit of these buckets and statuses at most / at least
 * this price" is "the lowest / highest base price of one of these cells is"). Otherwise the units are
 * visited, in a loop over typed arrays with the bounds as plain numbers.
 *
 * Facets need the same question with the bedrooms or the statuses filter left out (withMatch).
 */

const ALL_BUCKETS = (1 << BUCKETS) - 1;
/** perAreaVerdict's answers. */
const NO_UNIT = 0;
const A_UNIT = 1;
const SOME_UNIT = 2;
if (WORDS !== 2) throw new Error('perAreaVerdict reads two words of ranges');
const ALL_STATUSES = (1 << STATUSES) - 1;
/** withMatch(p): bits 0-5 are buckets, bits FACET_STATUSES_SHIFT + status are statuses. */
export const FACET_BUCKETS = ALL_BUCKETS;
export const FACET_STATUSES_SHIFT = 8;
/** (withMatch(p) >>> FACET_STATUSES_SHIFT) & FACET_STATUSES: the statuses' bits. */
export const FACET_STATUSES = ALL_STATUSES;

/** What matched inside one project (`match=true`): see UnitMatcher.matching. */
export interface UnitMatch {
  units: number;
  /** Lowest base price in cents; NaN when none of the units has a price. */
  minBaseCents: number;
  /** Smallest area, m²; NaN when there is no unit. */
  minArea: number;
}

/** narrow()'s buffer, zeroed for each use and grown to the largest catalogue seen (a search runs to its end without yielding). */
let cells = new Uint8Array(0);
function cellScratch(count: number): Uint8Array {
  if (cells.length < count) cells = new Uint8Array(count);
  const some = cells.subarray(0, count);
  some.fill(0);
  return some;
}

/** The bedrooms and statuses facets' counts per value (bucket, status), as countFacetsByColumns gives them. */
export interface FacetCountsByColumns {
  buckets: Int32Array;
  statuses: Int32Array;
}

export class UnitMatcher {
  /** False when the request has no unit-level filter: every project passes (no EXISTS at all). */
  readonly active: boolean;
  private readonly bedrooms: number;
  private readonly statuses: number;
  private readonly hasWindow: boolean;
  /** The window of base prices (cents); per project with `currency=` (set by forProject). */
  private low: number;
  private high: number;
  /**
   * With `currency=` and a price filter: the window per currency index (a project without a rate: an
   * empty window), and the conversion of the project being tested (undefined: no rate).
   */
  private readonly lows: Float64Array | undefined;
  private readonly highs: Float64Array | undefined;
  private converted: Conversion | undefined;
  /** The snapshot's projects' currency indexes, read where forProject is called (a field: one load, not three). */
  private readonly currencyIndex: Int32Array;
  private readonly sizeMin: number;
  private readonly sizeMax: number;
  private readonly parkingMin: number;
  private readonly tagMask: Uint32Array | undefined;
  /** The wanted tags' posting slots: units are visited from the least common one's list. */
  private readonly tagSlots: number[] | undefined;
  /** A tag no unit carries was asked for: nothing matches. */
  private readonly impossible: boolean;
  private readonly perArea: boolean;
  /** Only bedrooms, statuses and at most one price bound: the summary decides alone. */
  private readonly exact: boolean;
  /**
   * Which ends the price window has: a cell's bound for an absent end is not read (a window with one
   * bound, the common `price_max` alone, then reads half the summary: each read is a likely cache miss).
   * The test `(!hasHigh || min <= high) && (!hasLow || max >= low)` is written out at its four uses, on
   * bounds copied to locals: a method reading them from `this` cost the six-facet pass 5 %
   * (docs/performance.md, "Facet counts").
   */
  private readonly hasLow: boolean;
  private readonly hasHigh: boolean;
  private readonly checksBedrooms: boolean;
  private readonly checksStatuses: boolean;
  private readonly checksArea: boolean;
  private readonly checksParking: boolean;
  private readonly tagsBeyondList: boolean;
  /** withMatch takes facetBitsByBounds: exact, a one-bound window, no statuses filter. */
  private readonly byBounds: boolean;
  /** The buckets the bedrooms filter asks for (all six without one). */
  private readonly wantedBuckets: Int32Array;
  /**
   * With per-area bounds and no `currency=`: each project's ranges of base price per m², and the
   * ranges inside and possibly inside the bounds (price-per-area-bins.ts).
   */
  private readonly perAreaHeld: Uint32Array | undefined;
  private readonly perAreaHeldInAny: Uint32Array | undefined;
  /** The masks' two words (WORDS is 2: bits 0-31 and 32-63). */
  private readonly insideLow: number = 0;
  private readonly insideHigh: number = 0;
  private readonly possibleLow: number = 0;
  private readonly possibleHigh: number = 0;
  /**
   * With unit tags and a price window and no `currency=`: per tag and project, the ranges of base
   * prices of its units of the tag (at slot * tagPriceStride + p), and the ranges inside and possibly
   * inside the window (tag-price-ranges.ts).
   */
  private readonly tagPriceHeld: Uint32Array | undefined;
  private readonly tagPriceStride: number = 0;
  private readonly tagPriceInside: number = 0;
  private readonly tagPricePossible: number = 0;
  /** One tag and the price window are the only unit-level filters: a unit of the tag in a range inside the window is a match. */
  private readonly tagPriceOnly: boolean = false;
  /** The per-area bounds (and bedrooms) are the only unit-level filters: a unit of a wanted bucket in a range inside them is a match. */
  private readonly perAreaOnly: boolean = false;

  constructor(
    private readonly snapshot: Snapshot,
    private readonly filters: UnitFilters | undefined,
    private readonly pricing: KeyPricing,
    private readonly display?: DisplayPrices,
  ) {
    this.active = filters !== undefined;
    this.currencyIndex = snapshot.projects.currencyIndex;
    const f = filters ?? {};
    this.bedrooms =
      f.bedrooms !== undefined || f.bedroomsFiveOrMore
        ? (f.bedrooms ?? []).reduce((mask, value) => mask | (1 << value), 0) | (f.bedroomsFiveOrMore ? 1 << 5 : 0)
        : ALL_BUCKETS;
    this.statuses = f.statuses ? f.statuses.reduce((mask, value) => mask | (1 << value), 0) : ALL_STATUSES;
    const window = f.price ? pricing.baseWindow(f.price) : undefined;
    this.hasWindow = window !== undefined;
    // An absent bound stays infinite (the window's own is 0 below): a unit's price test compares with both ends, whichever were asked.
    this.low = f.price?.min !== undefined ? window!.min : -Infinity;
    this.high = f.price?.max !== undefined ? window!.max : Infinity;
    this.sizeMin = f.size?.min ?? -Infinity;
    this.sizeMax = f.size?.max ?? Infinity;
    this.parkingMin = f.parkingMin ?? -Infinity;
    const tagMask = f.tagIds ? snapshot.units.tags.mask(f.tagIds) : undefined;
    this.impossible = tagMask === null;
    this.tagMask = tagMask ?? undefined;
    this.tagSlots = (f.tagIds && snapshot.units.tagPostings.slots(f.tagIds)) ?? undefined;
    this.perArea = f.pricePerM2 !== undefined || f.pricePerFt2 !== undefined;
    // Whether the bound was asked, not whether it is finite: `price_max=1e307` is a window of base
    // prices up to Infinity that still leaves out the unpriced units, as SQL's `price <= x` does.
    this.hasLow = f.price?.min !== undefined;
    this.hasHigh = f.price?.max !== undefined;
    // Which unit columns a unit's test must read: each read is a cache miss on L's units, so a
    // filter that is absent reads nothing (statuses are 1 to 5 and areas and parking never null, by
    // the schema's constraints: an absent filter's test could only pass).
    this.checksBedrooms = this.bedrooms !== ALL_BUCKETS;
    this.checksStatuses = f.statuses !== undefined;
    this.checksArea = f.size !== undefined || this.perArea;
    this.checksParking = f.parkingMin !== undefined;
    // The list walked is one wanted tag's: only further wanted tags need the unit's tag bits.
    this.tagsBeyondList = (f.tagIds?.length ?? 0) > 1;
    const others = f.size !== undefined || f.parkingMin !== undefined || f.tagIds !== undefined || this.perArea;
    this.exact = !others && !(this.hasLow && this.hasHigh);
    this.byBounds = this.exact && this.hasWindow && !this.checksStatuses;
    if (display && (this.hasWindow || this.perArea)) {
      const count = display.from.length;
      this.lows = new Float64Array(count);
      this.highs = new Float64Array(count);
      for (let k = 0; k < count; k++) {
        const rule = display.from[k];
        const own = rule && f.price ? rule.baseWindow(f.price) : undefined;
        this.lows[k] = !rule ? Infinity : this.hasLow ? own!.min : -Infinity;
        this.highs[k] = !rule ? -Infinity : this.hasHigh ? own!.max : Infinity;
      }
    }
    this.wantedBuckets = Int32Array.from({ length: BUCKETS }, (_, bucket) => bucket).filter((bucket) => (this.bedrooms >> bucket) & 1);
    if (this.perArea && !display) {
      const bins = pricePerAreaBins(snapshot);
      const masks = pricePerAreaMasks(bins, f, pricing.factor);
      this.perAreaHeld = bins.held;
      this.perAreaHeldInAny = bins.heldInAny;
      [this.insideLow, this.insideHigh] = masks.inside;
      [this.possibleLow, this.possibleHigh] = masks.possible;
      this.perAreaOnly = !this.checksStatuses && !this.hasWindow && f.size === undefined && !this.checksParking && f.tagIds === undefined;
    }
    if (this.tagSlots && this.hasWindow && !display) {
      const ranges = tagPriceRanges(snapshot);
      const masks = priceWindowMasks(ranges, this.low, this.high);
      this.tagPriceHeld = ranges.held;
      this.tagPriceStride = ranges.projectCount;
      this.tagPriceInside = masks.inside;
      this.tagPricePossible = masks.possible;
      this.tagPriceOnly =
        this.tagSlots.length === 1 && !this.checksBedrooms && !this.checksStatuses && f.size === undefined && !this.checksParking && !this.perArea;
    }
  }

  /** One live unit of project p satisfies every unit-level filter. */
  matches(p: number): boolean {
    if (!this.active) return true;
    if (this.impossible) return false;
    if (this.lows !== undefined && this.currencyIndex[p] !== this.windowOf) this.forProject(p);
    if (this.tagPriceHeld !== undefined) {
      // One read per wanted tag decides most projects (tag-price-ranges.ts).
      const held = this.tagPriceHeld;
      const slots = this.tagSlots!;
      for (let k = 0; k < slots.length; k++) if ((held[slots[k] * this.tagPriceStride + p] & this.tagPricePossible) === 0) return false;
      if (this.tagPriceOnly && (held[slots[0] * this.tagPriceStride + p] & this.tagPriceInside) !== 0) return true;
    }
    if (this.perAreaHeld !== undefined) {
      // The project's ranges (one cache line) decide most projects (price-per-area-bins.ts).
      const verdict = this.perAreaVerdict(p, this.checksBedrooms);
      if (verdict === NO_UNIT) return false;
      if (this.perAreaOnly && verdict === A_UNIT) return true;
    }
    if (!this.anyCell(p)) return false;
    return this.exact || (this.othersAllow(p) && this.anyUnit(p));
  }

  /**
   * matches() over every project at once, column by column: clears mask[p] for each project p whose
   * summary has no cell that can hold a match (anyCell, the test every match passes), reading each
   * wanted bucket's (or cell's) column front to back. True when that decides (`exact`): every project
   * left in then matches. False: the ones left in may still fail, and matches(p) must be asked of them.
   * With `currency=` and a price window (a window per project currency) nothing is cleared.
   */
  private narrow(mask: Uint8Array): boolean {
    if (!this.active) return true;
    if (this.impossible) {
      mask.fill(0);
      return true;
    }
    // A window per project currency; or ranges that matches() reads first and that turn more projects
    // away than the cells (tag-price-ranges.ts, price-per-area-bins.ts): left to matches().
    if (this.lows !== undefined || this.tagPriceHeld !== undefined || this.perAreaHeld !== undefined) return false;
    const summary = this.snapshot.projects.unitSummary;
    const { count } = summary;
    const { statuses, checksStatuses, hasLow, hasHigh, low, high, wantedBuckets } = this;
    const priced = this.hasWindow && (hasLow || hasHigh);
    if (!checksStatuses && !priced) {
      const { buckets } = summary;
      const bedrooms = this.bedrooms;
      for (let p = 0; p < count; p++) mask[p] &= +((buckets[p] & bedrooms) !== 0);
      return this.exact;
    }
    if (priced && !checksStatuses && wantedBuckets.length === 1) {
      // One bucket's bound decides (the typical search's `bedrooms=2&price_max=`): straight into the
      // mask, without the union's scratch bytes and their second pass.
      if (hasHigh) keepMeeting(mask, bucketColumn(summary, summary.bucketMin, wantedBuckets[0]), false, high);
      if (hasLow) keepMeeting(mask, bucketColumn(summary, summary.bucketMax, wantedBuckets[0]), true, low);
      return this.exact;
    }
    // 1 where a wanted cell can hold a match, over the wanted buckets (and statuses).
    const some = cellScratch(count);
    for (let k = 0; k < wantedBuckets.length; k++) {
      const bucket = wantedBuckets[k];
      if (!priced) {
        const column = bucketColumn(summary, summary.cellStatuses, bucket);
        for (let p = 0; p < count; p++) some[p] |= +((column[p] & statuses) !== 0);
        continue;
      }
      // A cell (or bucket) without a priced unit holds NaN, which fails either bound, as it should.
      for (let status = 0; status < (checksStatuses ? STATUSES : 1); status++) {
        if (checksStatuses && !((statuses >> status) & 1)) continue;
        const mins = checksStatuses ? cellColumn(summary, summary.cellMin, bucket, status) : bucketColumn(summary, summary.bucketMin, bucket);
        const maxes = checksStatuses ? cellColumn(summary, summary.cellMax, bucket, status) : bucketColumn(summary, summary.bucketMax, bucket);
        if (!hasLow) for (let p = 0; p < count; p++) some[p] |= +(mins[p] <= high);
        else if (!hasHigh) for (let p = 0; p < count; p++) some[p] |= +(maxes[p] >= low);
        // Both comparisons made, without a branch between them (which the data would mispredict).
        else for (let p = 0; p < count; p++) some[p] |= +(mins[p] <= high) & +(maxes[p] >= low);
      }
    }
    andInto(mask, some);
    return this.exact;
  }

  /** Clears mask[p] for each project p that matches() rejects: the column form, then matches(p) of those left when it does not decide. */
  keepMatching(mask: Uint8Array): void {
    if (this.narrow(mask)) return;
    for (let p = 0; p < mask.length; p++) if (mask[p] === 1 && !this.matches(p)) mask[p] = 0;
  }

  /**
   * For the bedrooms and statuses facets, in one walk: the buckets in which one unit satisfies every
   * unit-level filter but `bedrooms` (bits 0-5, FACET_BUCKETS), and the statuses of which one unit
   * satisfies every unit-level filter but `statuses` (bit 8 + status, FACET_STATUSES_SHIFT). One walk
   * for both halves the cost of the facet pass's unit work (each asked apart walked the cells, or the
   * units, again).
   */
  withMatch(p: number): number {
    if (this.impossible) return 0;
    if (this.lows !== undefined && this.currencyIndex[p] !== this.windowOf) this.forProject(p);
    if (this.byBounds) return this.facetBitsByBounds(p);
    const possible = this.cellsForFacets(p);
    if (this.exact || possible === 0) return possible;
    // Over every bucket, not the wanted ones: the bedrooms facet counts the others (matches asks the wanted ones first).
    if (this.perAreaHeld !== undefined && this.perAreaVerdict(p, false) === NO_UNIT) return 0;
    if (!this.othersAllow(p)) return 0;
    return this.scanForFacets(p, possible);
  }

  /**
   * `match=true` (what-matched.ts): over the live units of p that satisfy every unit-level filter, how
   * many, their lowest base price and their smallest area, written into `into`. Without unit-level
   * filters, the project's own figures (every live unit). Otherwise every unit of p is visited with the
   * tests anyUnit applies (not from a tag's posting list: it holds the same units, but anyUnit may skip
   * the one tag it walks, which a full walk must test). Called for the page's projects only.
   */
  matching(p: number, into: UnitMatch): UnitMatch {
    const { unitStart, minBaseCents, sizeFrom } = this.snapshot.projects;
    if (!this.active) {
      into.units = unitStart[p + 1] - unitStart[p];
      into.minBaseCents = minBaseCents[p];
      into.minArea = sizeFrom[p];
      return into;
    }
    let count = 0;
    let lowest = Number.NaN;
    let smallest = Number.NaN;
    if (!this.impossible) {
      if (this.lows !== undefined && this.currencyIndex[p] !== this.windowOf) this.forProject(p);
      const units = this.snapshot.units;
      const { bedrooms, statuses, checksBedrooms, checksStatuses, tagMask } = this;
      const listTag = tagMask !== undefined && !this.tagsBeyondList;
      for (let u = unitStart[p]; u < unitStart[p + 1]; u++) {
        if (checksBedrooms && !(bedrooms & (1 << bucketOf(units.bedrooms[u])))) continue;
        if (checksStatuses && !((statuses >> units.status[u]) & 1)) continue;
        if (listTag && !units.tags.hasAll(u, tagMask)) continue;
        const base = units.baseCents[u];
        if (!this.unitPassesBeyondCell(u, base)) continue;
        count++;
        // While `lowest` is NaN the test holds: the first priced unit sets it; an unpriced one (NaN) never does.
        if (!(lowest <= base) && !Number.isNaN(base)) lowest = base;
        if (!(smallest <= units.area[u])) smallest = units.area[u];
      }
    }
    into.units = count;
    into.minBaseCents = lowest;
    into.minArea = smallest;
    return into;
  }

  /** The currency (index) whose window forProject set last: -1, none yet. */
  private windowOf = -1;

  /**
   * With `currency=`: the window and conversion of p's currency, called when it is not the one set
   * last (three in four neighbouring projects share one on L with 25 % foreign). The callers test that
   * inline: the call per project cost more than the test, and setting the window for every project
   * without a test measured slower still (docs/performance.md, "Display currency window").
   */
  private forProject(p: number): void {
    const k = this.currencyIndex[p];
    this.windowOf = k;
    this.low = this.lows![k];
    this.high = this.highs![k];
    this.converted = this.display!.from[k];
  }

  /**
   * withMatch(p) when the summary decides, no statuses filter is asked and the window has one bound
   * (`byBounds`: the typical search with a price limit and its filter panel). Then a bucket counts when
   * its lowest (highest) price meets the bound, and a status when the cell of a wanted bucket and that
   * status does: a fixed set of reads with no test of which cells are present, since an empty cell's
   * bound is NaN and fails the test as it should (as does a cell of unpriced units, which a price bound
   * excludes). Branch-free, where a walk of the present cells branches on data at every cell
   * (docs/performance.md, "Facet counts").
   */
  private facetBitsByBounds(p: number): number {
    const { count, bucketMin, bucketMax, cellMin, cellMax } = this.snapshot.projects.unitSummary;
    const { low, high, hasLow, wantedBuckets } = this;
    let found = 0;
    // Status s of a bucket's cells is `count` further than status s - 1 (the per-cell columns).
    if (hasLow) {
      for (let bucket = 0; bucket < BUCKETS; bucket++) found |= +(bucketMax[bucketAt(count, p, bucket)] >= low) << bucket;
      for (let k = 0; k < wantedBuckets.length; k++) {
        const cell = cellOf(count, p, wantedBuckets[k], 0);
        for (let status = 1; status < STATUSES; status++) found |= +(cellMax[cell + status * count] >= low) << (FACET_STATUSES_SHIFT + status);
      }
    } else {
      for (let bucket = 0; bucket < BUCKETS; bucket++) found |= +(bucketMin[bucketAt(count, p, bucket)] <= high) << bucket;
      for (let k = 0; k < wantedBuckets.length; k++) {
        const cell = cellOf(count, p, wantedBuckets[k], 0);
        for (let status = 1; status < STATUSES; status++) found |= +(cellMin[cell + status * count] <= high) << (FACET_STATUSES_SHIFT + status);
      }
    }
    return found;
  }

  /**
   * The bedrooms and statuses facets over the projects p with rest[p] = 1, when no facet's own
   * project-level filter is asked and facetBitsByBounds would answer each project (undefined otherwise:
   * ask withMatch per project): a bucket counts the projects whose bucket meets the bound, a status
   * those with a wanted bucket's cell of that status meeting it (facetBitsByBounds' bits, counted per
   * bit), and matched[p] is set where a wanted bucket meets it (matchesAmong). Each column is read
   * front to back and summed, where per project the eleven reads went to eleven places and the bits
   * were written and read back.
   */
  countFacetsByColumns(rest: Uint8Array, matched: Uint8Array, buckets: boolean, statuses: boolean): FacetCountsByColumns | undefined {
    // One wanted bucket (a bedrooms filter of one value): with several, a project's statuses are the
    // union over its wanted buckets, which costs more in columns than per project (measured).
    if (!this.byBounds || this.lows !== undefined || this.impossible || this.wantedBuckets.length !== 1) return undefined;
    const summary = this.snapshot.projects.unitSummary;
    const { hasLow } = this;
    const wanted = this.wantedBuckets[0];
    const bound = hasLow ? this.low : this.high;
    const prices = hasLow ? summary.bucketMax : summary.bucketMin;
    const cellPrices = hasLow ? summary.cellMax : summary.cellMin;
    markMeeting(matched, rest, bucketColumn(summary, prices, wanted), hasLow, bound);
    const counts: FacetCountsByColumns = { buckets: new Int32Array(BUCKETS), statuses: new Int32Array(STATUSES) };
    if (buckets) for (let bucket = 0; bucket < BUCKETS; bucket++) counts.buckets[bucket] = countMeeting(rest, bucketColumn(summary, prices, bucket), hasLow, bound);
    if (statuses) for (let status = 1; status < STATUSES; status++) counts.statuses[status] = countMeeting(rest, cellColumn(summary, cellPrices, wanted, status), hasLow, bound);
    return counts;
  }

  /** matches(p), given withMatch(p): one unit satisfies everything when it is in a wanted bucket. */
  matchesAmong(withMatch: number): boolean {
    return !this.active || (withMatch & this.bedrooms) !== 0;
  }

  /**
   * withMatch(p) from the summary cells alone: exact when the summary decides (see `exact`), else the
   * buckets and statuses of the cells where a match is possible (a scan can only find fewer).
   */
  private cellsForFacets(p: number): number {
    const summary = this.snapshot.projects.unitSummary;
    const { bedrooms, statuses, hasWindow, low, high, hasLow, hasHigh } = this;
    let buckets = summary.buckets[p];
    let found = 0;
    while (buckets !== 0) {
      const bucket = 31 - Math.clz32(buckets & -buckets);
      buckets &= buckets - 1;
      const all = summary.cellStatuses[bucketAt(summary.count, p, bucket)];
      const wantedBucket = (bedrooms >> bucket) & 1;
      if (!hasWindow) {
        if (all & statuses) found |= 1 << bucket;
        if (wantedBucket) found |= all << FACET_STATUSES_SHIFT;
        continue;
      }
      if (!wantedBucket && (all & statuses) === all) {
        // Only the bucket's bit is asked, and every unit of it has a wanted status: the bucket's bounds decide.
        const inBucket = bucketAt(summary.count, p, bucket);
        if ((!hasHigh || summary.bucketMin[inBucket] <= high) && (!hasLow || summary.bucketMax[inBucket] >= low)) found |= 1 << bucket;
        continue;
      }
      let present = all;
      while (present !== 0) {
        const status = 31 - Math.clz32(present & -present);
        present &= present - 1;
        const cell = cellOf(summary.count, p, bucket, status);
        if (!((!hasHigh || summary.cellMin[cell] <= high) && (!hasLow || summary.cellMax[cell] >= low))) continue;
        if ((statuses >> status) & 1) found |= 1 << bucket;
        if (wantedBucket) found |= 1 << (FACET_STATUSES_SHIFT + status);
      }
    }
    return found;
  }

  /** withMatch(p) by visiting the units; `possible` is cellsForFacets(p), which it cannot exceed. */
  private scanForFacets(p: number, possible: number): number {
    const units = this.snapshot.units;
    const { bedrooms, statuses, high } = this;
    let found = 0;
    this.selectUnits(p);
    const { from, to, list, keys } = this;
    for (let k = from; k < to; k++) {
      const u = list ? list[k] : k;
      const base = keys ? keys[k] : units.baseCents[u];
      if (keys && !(base <= high)) break;
      const bucket = bucketOf(units.bedrooms[u]);
      const status = units.status[u];
      // Counts for the bedrooms facet when its status is wanted, for the statuses facet when its bucket is.
      const forBuckets = (statuses >> status) & 1;
      const forStatuses = (bedrooms >> bucket) & 1;
      if (!(forBuckets | forStatuses)) continue;
      if (!this.unitPassesBeyondCell(u, base)) continue;
      if (forBuckets) found |= 1 << bucket;
      if (forStatuses) found |= 1 << (FACET_STATUSES_SHIFT + status);
      if (found === possible) break;
    }
    return found;
  }

  /** The units of p to visit, set by selectUnits (fields, not a returned tuple: no allocation per project). */
  private from = 0;
  private to = 0;
  private list: Int32Array | undefined;
  /**
   * With a price window, the walked posting list's base prices (by position; the list is by price):
   * the first unit above the window ends the walk. Undefined on a walk of the project's rows.
   */
  private keys: Float64Array | undefined;

  /**
   * Rows from..to-1 of the unit columns of p, or with unit tags, of the least common wanted tag's
   * posting list (only its units can match; then `list` maps a position to the unit row).
   */
  private selectUnits(p: number): void {
    const start = this.snapshot.projects.unitStart;
    this.from = start[p];
    this.to = start[p + 1];
    this.list = undefined;
    this.keys = undefined;
    if (!this.tagSlots) return;
    const postings = this.snapshot.units.tagPostings;
    for (const slot of this.tagSlots) {
      const first = postings.rangeStart(slot, p);
      const end = postings.rangeStart(slot, p + 1);
      if (!this.list || end - first < this.to - this.from) {
        this.from = first;
        this.to = end;
        this.list = postings.rowsArray;
      }
    }
    // A posting list is by base price: skip to the first unit at or above the window's low end (the
    // walk stops past its high end, see `sorted`).
    if (!this.hasWindow) return;
    this.keys = postings.keysArray!;
    if (this.hasLow) this.from = this.firstAtLeast(this.keys, this.from, this.to, this.low);
  }

  /** The first position in from..to-1 whose base price (`keys`; unpriced units, NaN, are last) is >= low; `to` when none. */
  private firstAtLeast(keys: Float64Array, from: number, to: number, low: number): number {
    while (from < to) {
      const middle = (from + to) >>> 1;
      if (keys[middle] < low) from = middle + 1;
      else to = middle;
    }
    return from;
  }

  /**
   * One summary cell (bucket, status) of p within the wanted buckets and statuses holds a unit, and
   * when a price is asked, a unit whose base price can be in the window: exact for one bound,
   * necessary for two.
   */
  private anyCell(p: number): boolean {
    const summary = this.snapshot.projects.unitSummary;
    const { statuses, hasWindow, low, high, hasLow, hasHigh } = this;
    let buckets = summary.buckets[p] & this.bedrooms;
    while (buckets !== 0) {
      const bucket = 31 - Math.clz32(buckets & -buckets);
      buckets &= buckets - 1;
      const all = summary.cellStatuses[bucketAt(summary.count, p, bucket)];
      let present = all & statuses;
      if (present === 0) continue;
      if (!hasWindow) return true;
      if (present === all) {
        // Every unit of the bucket has a wanted status: its cells together are the bucket.
        const inBucket = bucketAt(summary.count, p, bucket);
        if ((!hasHigh || summary.bucketMin[inBucket] <= high) && (!hasLow || summary.bucketMax[inBucket] >= low)) return true;
        continue;
      }
      while (present !== 0) {
        const status = 31 - Math.clz32(present & -present);
        present &= present - 1;
        const cell = cellOf(summary.count, p, bucket, status);
        if ((!hasHigh || summary.cellMin[cell] <= high) && (!hasLow || summary.cellMax[cell] >= low)) return true;
      }
    }
    return false;
  }

  /** False only when no unit of p can satisfy the filters beyond bedrooms, statuses and price (a pre-test). */
  private othersAllow(p: number): boolean {
    const summary = this.snapshot.projects.unitSummary;
    if (summary.maxArea[p] < this.sizeMin || summary.minArea[p] > this.sizeMax) return false;
    if (summary.maxParking[p] < this.parkingMin) return false;
    if (this.tagMask && !summary.tags.hasAll(p, this.tagMask)) return false;
    return true;
  }

  /**
   * From the ranges of p's units (price-per-area-bins.ts), in the wanted bedroom buckets or in any:
   * NO_UNIT can pass the per-area bounds, A_UNIT does (the other unit-level filters not looked at), or
   * SOME_UNIT may.
   */
  private perAreaVerdict(p: number, wantedBucketsOnly: boolean): number {
    let low = 0;
    let high = 0;
    if (!wantedBucketsOnly) {
      low = this.perAreaHeldInAny![p * 2];
      high = this.perAreaHeldInAny![p * 2 + 1];
    } else {
      const held = this.perAreaHeld!;
      const { wantedBuckets } = this;
      for (let k = 0; k < wantedBuckets.length; k++) {
        const at = (p * BUCKETS + wantedBuckets[k]) * 2;
        low |= held[at];
        high |= held[at + 1];
      }
    }
    if (((low & this.possibleLow) | (high & this.possibleHigh)) === 0) return NO_UNIT;
    return ((low & this.insideLow) | (high & this.insideHigh)) !== 0 ? A_UNIT : SOME_UNIT;
  }

  /** Visits the units of p: one satisfies every unit-level filter. */
  private anyUnit(p: number): boolean {
    const units = this.snapshot.units;
    const { bedrooms, statuses, high, checksBedrooms, checksStatuses } = this;
    this.selectUnits(p);
    const { from, to, list, keys } = this;
    for (let k = from; k < to; k++) {
      const u = list ? list[k] : k;
      const base = keys ? keys[k] : units.baseCents[u];
      if (keys && !(base <= high)) break;
      if (checksBedrooms && !(bedrooms & (1 << bucketOf(units.bedrooms[u])))) continue;
      if (checksStatuses && !((statuses >> units.status[u]) & 1)) continue;
      if (this.unitPassesBeyondCell(u, base)) return true;
    }
    return false;
  }

  /** Unit u (of base price `base`) satisfies every unit-level filter but bedrooms and statuses (its cell's coordinates). */
  private unitPassesBeyondCell(u: number, base: number): boolean {
    if (this.hasWindow && !(base >= this.low && base <= this.high)) return false;
    const units = this.snapshot.units;
    if (this.checksArea) {
      const area = units.area[u];
      if (!(area >= this.sizeMin && area <= this.sizeMax)) return false;
      if (this.perArea && !this.perAreaAllows(base, area)) return false;
    }
    if (this.checksParking && !(units.parking[u] >= this.parkingMin)) return false;
    return !this.tagsBeyondList || units.tags.hasAll(u, this.tagMask!);
  }

  /** price / area bounds in the key's prices, exact (pricing.ts); needs a price and an area above 0. */
  private perAreaAllows(base: number, area: number): boolean {
    if (Number.isNaN(base) || !(area > 0)) return false;
    const { pricePerM2: perM2, pricePerFt2: perFt2 } = this.filters!;
    const pricing = this.pricing;
    // With `currency=`: the converted price in the asked currency's minor units (no rate: never matches).
    if (this.display && !this.converted) return false;
    const cents = this.converted ? this.converted.minor(base) : pricing.keyCents(base);
    const scale = this.converted ? this.converted.minorPerUnit : 100;
    if (perM2?.min !== undefined && pricing.comparePerArea(cents, area, perM2.min, false, scale) < 0) return false;
    if (perM2?.max !== undefined && pricing.comparePerArea(cents, area, perM2.max, false, scale) > 0) return false;
    if (perFt2?.min !== undefined && pricing.comparePerArea(cents, area, perFt2.min, true, scale) < 0) return false;
    if (perFt2?.max !== undefined && pricing.comparePerArea(cents, area, perFt2.max, true, scale) > 0) return false;
    return true;
  }
}
