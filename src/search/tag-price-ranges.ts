import type { Postings } from './postings.js';
import { perSnapshot } from './per-snapshot.js';
import { quantileEdges, rangeOf } from './quantile-ranges.js';
import type { Snapshot } from './snapshot.js';

/*
 * A unit tag with a price window (`unit_preference_ids` with `price_min` / `price_max`) decided for
 * most projects without visiting their units. Base prices fall in 32 ranges whose edges are quantiles
 * of the catalogue's units (quantile-ranges.ts); per unit tag and project, one bit per range the
 * project's priced units of that tag fall in. A key's price window is an exact window of base cents
 * (pricing.ts baseWindow), so per request:
 * - `inside`: the ranges all of whose prices are in the window. A project with a unit of the tag in
 *   one of them has a match when the tag and the window are the only unit-level filters.
 * - `possible`: the ranges of which a price may be in the window. A project with no unit of a wanted
 *   tag in one has no match.
 * The rest are walked (unit-matcher.ts, from the tag's posting list by price). Without
 * `currency=` only (the window then depends on each project's currency).
 *
 * Why: deciding a project from its posting list reads the list's bounds, a binary search of its
 * prices and the summary's cells (a cache miss each once the units outgrow the processor's caches),
 * where this is one read; without it the search grew faster than the catalogue (docs/performance.md,
 * "Per-project price ranges"). Made the first time a snapshot is asked a tag with a price.
 */

const RANGES = 32;
/** Units sampled to find the ranges' edges. */
const SAMPLE = 8_192;

export interface TagPriceRanges {
  edges: Float64Array;
  /** At slot * projectCount + p (slots of the posting lists), bit b: a priced unit of p carrying that tag is in range b. */
  held: Uint32Array;
  projectCount: number;
}

export interface PriceWindowMasks {
  inside: number;
  possible: number;
}

export const tagPriceRanges = perSnapshot(({ units, projects }: Snapshot) => rangesOf(units.baseCents, units.tagPostings, projects.count));

/** The ranges of base prices and each (tag, project)'s, from the tags' posting lists (units by base cents, NaN: no price). */
export function rangesOf(baseCents: Float64Array, postings: Postings, projectCount: number): TagPriceRanges {
  const step = Math.max(1, Math.floor(baseCents.length / SAMPLE));
  const sample: number[] = [];
  for (let u = 0; u < baseCents.length; u += step) if (!Number.isNaN(baseCents[u])) sample.push(baseCents[u]);
  const edges = quantileEdges(sample, RANGES);
  // Each unit's range once (a tagged unit is in several lists); 255: no price.
  const rangeOfUnit = new Uint8Array(baseCents.length).fill(255);
  for (let u = 0; u < baseCents.length; u++) if (!Number.isNaN(baseCents[u])) rangeOfUnit[u] = rangeOf(edges, baseCents[u]);
  const held = new Uint32Array(postings.slotCount * projectCount);
  const rows = postings.rowsArray;
  for (let slot = 0; slot < postings.slotCount; slot++) {
    for (let p = 0; p < projectCount; p++) {
      let bits = 0;
      const end = postings.rangeStart(slot, p + 1);
      for (let k = postings.rangeStart(slot, p); k < end; k++) {
        const range = rangeOfUnit[rows[k]];
        if (range !== 255) bits |= 1 << range;
      }
      held[slot * projectCount + p] = bits >>> 0;
    }
  }
  return { edges, held, projectCount };
}

/** The ranges inside and possibly inside the window of base cents low..high (either may be infinite: no bound). */
export function priceWindowMasks({ edges }: TagPriceRanges, low: number, high: number): PriceWindowMasks {
  let inside = 0;
  let possible = 0;
  for (let b = 0; b < RANGES; b++) {
    // A price of range b is at least edges[b] and below edges[b + 1].
    if (edges[b] >= low && edges[b + 1] <= high) inside |= 1 << b;
    if (edges[b + 1] > low && edges[b] <= high) possible |= 1 << b;
  }
  return { inside, possible };
}
