import type { UnitFilters } from '../domain/project-filters.js';
import { FT2_PER_M2, type KeyPricing } from '../domain/pricing.js';
import { BUCKETS, bucketOf, cellOf, STATUSES, type Snapshot } from './snapshot.js';

/*
 * The unit-level filters of one request: does one and the same live unit of a project satisfy all of
 * them (the SQL's unit EXISTS)? Each project's unit summary rules most projects in or out without
 * visiting their units: it is a pre-test that never rejects a project with a matching unit, and it
 * decides alone when the filters are bedrooms, statuses and at most one price bound (the key price
 * never decreases as the base price grows, so "a unit of these buckets and statuses at most / at least
 * this price" is "the lowest / highest base price of one of these cells is"). Otherwise the units are
 * visited, in a loop over typed arrays with the bounds as plain numbers.
 *
 * Facets need the same question with the bedrooms or the statuses filter left out (bucketsWithMatch,
 * statusesWithMatch).
 */

const ALL_BUCKETS = (1 << BUCKETS) - 1;
const ALL_STATUSES = (1 << STATUSES) - 1;

export class UnitMatcher {
  /** False when the request has no unit-level filter: every project passes (no EXISTS at all). */
  readonly active: boolean;
  private readonly bedrooms: number;
  private readonly statuses: number;
  private readonly hasWindow: boolean;
  private readonly low: number;
  private readonly high: number;
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

  constructor(
    private readonly snapshot: Snapshot,
    private readonly filters: UnitFilters | undefined,
    private readonly pricing: KeyPricing,
  ) {
    this.active = filters !== undefined;
    const f = filters ?? {};
    this.bedrooms =
      f.bedrooms !== undefined || f.bedroomsFiveOrMore
        ? (f.bedrooms ?? []).reduce((mask, value) => mask | (1 << value), 0) | (f.bedroomsFiveOrMore ? 1 << 5 : 0)
        : ALL_BUCKETS;
    this.statuses = f.statuses ? f.statuses.reduce((mask, value) => mask | (1 << value), 0) : ALL_STATUSES;
    const window = f.price ? pricing.baseWindow(f.price) : undefined;
    this.hasWindow = window !== undefined;
    // An absent bound stays infinite (the window's own is 0 below): "one bound" is then plain to see.
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
    const others = f.size !== undefined || f.parkingMin !== undefined || f.tagIds !== undefined || this.perArea;
    this.exact = !others && !(this.low > -Infinity && this.high < Infinity);
  }

  /** One live unit of project p satisfies every unit-level filter. */
  matches(p: number): boolean {
    if (!this.active) return true;
    if (this.impossible) return false;
    const cells = this.cells(p, this.bedrooms, this.statuses, 'any');
    if (this.exact || cells === 0) return cells !== 0;
    return this.othersAllow(p) && this.scan(p, this.bedrooms, this.statuses) !== 0;
  }

  /**
   * matches(p), given bucketsWithMatch(p): one unit satisfies everything when one of those buckets is
   * wanted (the facet pass asks both questions; this spares it the second walk).
   */
  matchesAmongBuckets(buckets: number): boolean {
    return !this.active || (buckets & this.bedrooms) !== 0;
  }

  /** matches(p), given statusesWithMatch(p). */
  matchesAmongStatuses(statuses: number): boolean {
    return !this.active || (statuses & this.statuses) !== 0;
  }

  /** Bits of the buckets in which one unit satisfies every unit-level filter but `bedrooms`. */
  bucketsWithMatch(p: number): number {
    if (this.impossible) return 0;
    if (this.exact) return this.cells(p, ALL_BUCKETS, this.statuses, 'buckets');
    if (this.cells(p, ALL_BUCKETS, this.statuses) === 0 || !this.othersAllow(p)) return 0;
    return this.scan(p, ALL_BUCKETS, this.statuses, 'buckets');
  }

  /** Bits (1 << status) of the statuses of which one unit satisfies every unit-level filter but `statuses`. */
  statusesWithMatch(p: number): number {
    if (this.impossible) return 0;
    if (this.exact) return this.cells(p, this.bedrooms, ALL_STATUSES, 'statuses');
    if (this.cells(p, this.bedrooms, ALL_STATUSES) === 0 || !this.othersAllow(p)) return 0;
    return this.scan(p, this.bedrooms, ALL_STATUSES, 'statuses');
  }

  /**
   * The summary cells (bucket, status) of p within the masks that hold a unit, and when a price is
   * asked a unit whose base price can be in the window: exact for one bound, necessary for two.
   * Returns the bits of the buckets or statuses of those cells (`by`); with `any`, 1 at the first such cell (matches() needs no more).
   */
  private cells(p: number, bedrooms: number, statuses: number, by: 'buckets' | 'statuses' | 'any' = 'buckets'): number {
    const summary = this.snapshot.projects.unitSummary;
    const buckets = summary.buckets[p] & bedrooms;
    let found = 0;
    for (let bucket = 0; buckets >> bucket; bucket++) {
      if (!((buckets >> bucket) & 1)) continue;
      const all = summary.cellStatuses[p * BUCKETS + bucket];
      const present = all & statuses;
      if (present === 0) continue;
      if (!this.hasWindow) {
        if (by === 'any') return 1;
        found |= by === 'buckets' ? 1 << bucket : present;
        continue;
      }
      if (by !== 'statuses' && present === all) {
        // Every unit of the bucket has a wanted status: its cells together are the bucket.
        const inBucket = p * BUCKETS + bucket;
        if (summary.bucketMin[inBucket] <= this.high && summary.bucketMax[inBucket] >= this.low) {
          if (by === 'any') return 1;
          found |= 1 << bucket;
        }
        continue;
      }
      for (let status = 1; status < STATUSES; status++) {
        if (!((present >> status) & 1)) continue;
        const cell = cellOf(p, bucket, status);
        if (summary.cellMin[cell] <= this.high && summary.cellMax[cell] >= this.low) {
          if (by === 'any') return 1;
          found |= by === 'buckets' ? 1 << bucket : 1 << status;
        }
      }
    }
    return found;
  }

  /** False only when no unit of p can satisfy the filters beyond bedrooms, statuses and price (a pre-test). */
  private othersAllow(p: number): boolean {
    const summary = this.snapshot.projects.unitSummary;
    if (summary.maxArea[p] < this.sizeMin || summary.minArea[p] > this.sizeMax) return false;
    if (summary.maxParking[p] < this.parkingMin) return false;
    if (this.tagMask && !summary.tags.hasAll(p, this.tagMask)) return false;
    if (this.perArea && !this.perAreaRangeAllows(p)) return false;
    return true;
  }

  /*
   * A unit's key price per m² is keyCents(base) / area / 100, and keyCents(base) lies within half a
   * cent of base * factor: so it lies within [minRatio * factor - 0.5 / minArea, maxRatio * factor +
   * 0.5 / minArea] / 100 over the project's priced units of positive area (ratio = base / area). Out of
   * the bounds by more than a rounding margin, no unit can match.
   */
  private perAreaRangeAllows(p: number): boolean {
    const summary = this.snapshot.projects.unitSummary;
    const minArea = summary.minPositiveArea[p];
    if (Number.isNaN(minArea)) return false;
    const factor = this.pricing.factor;
    const slack = 0.5 / minArea;
    const highest = (summary.maxRatio[p] * factor + slack) * (1 + 1e-9);
    const lowest = (summary.minRatio[p] * factor - slack) * (1 - 1e-9) - 1e-9;
    const { pricePerM2: perM2, pricePerFt2: perFt2 } = this.filters!;
    const bounds = [
      [perM2?.min, perM2?.max, 1],
      [perFt2?.min, perFt2?.max, FT2_PER_M2],
    ] as const;
    for (const [min, max, scale] of bounds) {
      if (min !== undefined && highest < min * 100 * scale * (1 - 1e-9)) return false;
      if (max !== undefined && lowest > max * 100 * scale * (1 + 1e-9)) return false;
    }
    return true;
  }

  /**
   * Visits the units of p. Without `collect`: 1 at the first unit that satisfies everything, else 0.
   * With it: the bits of the buckets or statuses of all units that do.
   */
  private scan(p: number, bedrooms: number, statuses: number, collect?: 'buckets' | 'statuses'): number {
    const units = this.snapshot.units;
    const start = this.snapshot.projects.unitStart;
    const { low, high, sizeMin, sizeMax, parkingMin, tagMask, hasWindow, perArea } = this;
    const summary = this.snapshot.projects.unitSummary;
    // Collecting stops once every bucket / status the project has at all is found.
    const complete = collect === 'buckets' ? summary.buckets[p] & bedrooms : summary.statuses[p] & statuses;
    let found = 0;
    // With tags, only the units carrying the least common wanted tag can match: walk its list.
    let from = start[p];
    let to = start[p + 1];
    let list: Int32Array | undefined;
    if (this.tagSlots) {
      const postings = units.tagPostings;
      for (const slot of this.tagSlots) {
        const first = postings.rangeStart(slot, p);
        const end = postings.rangeStart(slot, p + 1);
        if (!list || end - first < to - from) [from, to, list] = [first, end, postings.rowsArray];
      }
    }
    for (let k = from; k < to; k++) {
      const u = list ? list[k] : k;
      const bucket = bucketOf(units.bedrooms[u]);
      if (!(bedrooms & (1 << bucket))) continue;
      const status = units.status[u];
      if (!((statuses >> status) & 1)) continue;
      const base = units.baseCents[u];
      if (hasWindow && !(base >= low && base <= high)) continue;
      const area = units.area[u];
      if (!(area >= sizeMin && area <= sizeMax)) continue;
      if (!(units.parking[u] >= parkingMin)) continue;
      if (tagMask && !units.tags.hasAll(u, tagMask)) continue;
      if (perArea && !this.perAreaAllows(base, area)) continue;
      if (!collect) return 1;
      found |= collect === 'buckets' ? 1 << bucket : 1 << status;
      if (found === complete) break;
    }
    return found;
  }

  /** price / area bounds in the key's prices, exact (pricing.ts); needs a price and an area above 0. */
  private perAreaAllows(base: number, area: number): boolean {
    if (Number.isNaN(base) || !(area > 0)) return false;
    const { pricePerM2: perM2, pricePerFt2: perFt2 } = this.filters!;
    const pricing = this.pricing;
    const cents = pricing.keyCents(base);
    if (perM2?.min !== undefined && pricing.comparePerArea(cents, area, perM2.min, false) < 0) return false;
    if (perM2?.max !== undefined && pricing.comparePerArea(cents, area, perM2.max, false) > 0) return false;
    if (perFt2?.min !== undefined && pricing.comparePerArea(cents, area, perFt2.min, true) < 0) return false;
    if (perFt2?.max !== undefined && pricing.comparePerArea(cents, area, perFt2.max, true) > 0) return false;
    return true;
  }
}
