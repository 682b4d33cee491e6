import { FT2_PER_M2 } from '../domain/pricing.js';
import type { UnitFilters } from '../domain/project-filters.js';
import { perSnapshot } from './per-snapshot.js';
import { quantileEdges, rangeOf } from './quantile-ranges.js';
import { BUCKETS, bucketOf, type Snapshot } from './snapshot.js';

/*
 * The per-area price filters (price_per_m2_*, price_per_ft2_*) decided for most projects without
 * visiting their units. A unit's base price per m² (base cents / area) falls in one of 64 ranges
 * whose edges are quantiles of the catalogue's own units (so each range holds about as many units,
 * whatever the market's spread); each project keeps, per bedroom bucket and over all of them, one bit
 * per range its priced units of positive area fall in. A unit's key price per m² is keyCents(base) /
 * area, and keyCents(base) lies within half a cent of base * factor (pricing.ts), so it lies within
 * range * factor, widened by 0.5 / area, which is at most `slack` (0.5 / the smallest such area in the
 * catalogue). Per request:
 * - `inside`: the ranges all of whose units pass the bounds, whatever their area. A project with a
 *   unit of a wanted bucket in one of them has a match when the per-area bounds and `bedrooms` are the
 *   only unit-level filters.
 * - `possible`: the ranges of which a unit may pass. A project with no unit in one has no match.
 * Either way with a margin (MARGIN, relative and absolute) over the doubles' rounding, so a project
 * on the edge is left to the exact test of each unit (unit-matcher.ts). Without `currency=` only: in
 * another currency the bounds are in the converted prices, and each unit is tested.
 *
 * Why: the walk of a project's units reads their price and area columns, a likely cache miss per
 * project, and without the ranges the price-per-m² search grew faster than the catalogue. The ranges
 * are made the first time a snapshot is asked a per-area bound. 64 ranges rather than 32: a bound
 * falls inside a narrower range, so fewer projects are left to walk (docs/performance.md, "Per-project
 * price ranges").
 */

/** 32-bit words of ranges per project and bucket (unit-matcher.ts reads two). */
export const WORDS = 2;
const BINS = 32 * WORDS;
/** Units sampled to find the ranges' edges: quantiles of a sample, as good as of every unit here. */
const SAMPLE = 8_192;
const MARGIN = 1e-9;

export interface PricePerAreaBins {
  /** edges[b] <= base cents per m² < edges[b + 1] for a unit of range b; edges[0] = -Infinity, edges[BINS] = Infinity. */
  edges: Float64Array;
  /**
   * At (p * BUCKETS + bucket) * WORDS + (b >>> 5), bit b & 31: one of the project's priced units of
   * positive area in that bedroom bucket is in range b.
   */
  held: Uint32Array;
  /** At p * WORDS + (b >>> 5): the same over every bucket (fewer reads when no bedrooms filter is asked). */
  heldInAny: Uint32Array;
  /** 0.5 / the smallest positive area of a priced unit: how far rounding moves a key price per m². */
  slack: number;
}

/** By word, as `held`. */
export interface PricePerAreaMasks {
  inside: Int32Array;
  possible: Int32Array;
}

const ratioOf = (cents: number, area: number) => (!Number.isNaN(cents) && area > 0 ? cents / area : Number.NaN);

export const pricePerAreaBins = perSnapshot(({ units, projects }: Snapshot) =>
  binsOf(units.baseCents, units.area, units.bedrooms, projects.unitStart, projects.count),
);

/** The ranges of units (base cents, area m², bedrooms) and each project's (its units are unitStart[p] .. unitStart[p + 1] - 1). */
export function binsOf(baseCents: Float64Array, area: Float64Array, bedrooms: Int32Array, unitStart: Int32Array, projectCount: number): PricePerAreaBins {
  const count = unitStart[projectCount];
  const step = Math.max(1, Math.floor(count / SAMPLE));
  const sample: number[] = [];
  let smallest = Infinity;
  for (let u = 0; u < count; u++) {
    const ratio = ratioOf(baseCents[u], area[u]);
    if (Number.isNaN(ratio)) continue;
    if (area[u] < smallest) smallest = area[u];
    if (u % step === 0) sample.push(ratio);
  }
  const edges = quantileEdges(sample, BINS);
  const held = new Uint32Array(projectCount * BUCKETS * WORDS);
  const heldInAny = new Uint32Array(projectCount * WORDS);
  for (let p = 0; p < projectCount; p++) {
    for (let u = unitStart[p]; u < unitStart[p + 1]; u++) {
      const ratio = ratioOf(baseCents[u], area[u]);
      if (Number.isNaN(ratio)) continue;
      const range = rangeOf(edges, ratio);
      held[(p * BUCKETS + bucketOf(bedrooms[u])) * WORDS + (range >>> 5)] |= 1 << (range & 31);
      heldInAny[p * WORDS + (range >>> 5)] |= 1 << (range & 31);
    }
  }
  return { edges, held, heldInAny, slack: smallest === Infinity ? 0 : 0.5 / smallest };
}

const below = (x: number) => x - Math.abs(x) * MARGIN - MARGIN;
const above = (x: number) => x + Math.abs(x) * MARGIN + MARGIN;

/** The ranges inside and possibly inside the per-area bounds of `filters` for a key of price factor `factor`. */
export function pricePerAreaMasks(bins: PricePerAreaBins, filters: UnitFilters, factor: number): PricePerAreaMasks {
  // A factor the doubles cannot hold (a price vector of a few hundredths of a denormal): every unit is tested.
  if (!(factor > 0 && Number.isFinite(factor))) return { inside: new Int32Array(WORDS), possible: new Int32Array(WORDS).fill(-1) };
  // The bounds as key cents per m²: a bound per ft² is FT2_PER_M2 times as many per m².
  const { pricePerM2: perM2, pricePerFt2: perFt2 } = filters;
  const lows = [perM2?.min, perFt2?.min === undefined ? undefined : perFt2.min * FT2_PER_M2].filter((bound) => bound !== undefined);
  const highs = [perM2?.max, perFt2?.max === undefined ? undefined : perFt2.max * FT2_PER_M2].filter((bound) => bound !== undefined);
  const low = lows.length ? Math.max(...lows) * 100 : undefined;
  const high = highs.length ? Math.min(...highs) * 100 : undefined;
  const inside = new Int32Array(WORDS);
  const possible = new Int32Array(WORDS);
  for (let b = 0; b < BINS; b++) {
    // Every unit of range b has a key price per m² within [least, most].
    const least = bins.edges[b] * factor - bins.slack;
    const most = bins.edges[b + 1] * factor + bins.slack;
    const aboveLow = low === undefined || below(least) >= above(low);
    const belowHigh = high === undefined || above(most) <= below(high);
    if (aboveLow && belowHigh) inside[b >>> 5] |= 1 << (b & 31);
    // Written as "not surely out", so that a value the doubles cannot hold (Infinity - Infinity is NaN:
    // a bound of 1e307 m² times 100, a price over an area of 1e-300) leaves the range possible, and
    // above as "surely in", so that it leaves it not inside: either way its units are tested.
    const mayReachLow = low === undefined || !(above(most) < below(low));
    const mayReachHigh = high === undefined || !(below(least) > above(high));
    if (mayReachLow && mayReachHigh) possible[b >>> 5] |= 1 << (b & 31);
  }
  return { inside, possible };
}
