import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FT2_PER_M2, keyPricing } from '../src/domain/pricing.js';
import type { UnitFilters } from '../src/domain/project-filters.js';
import { binsOf, pricePerAreaMasks, WORDS } from '../src/search/price-per-area-bins.js';
import { BUCKETS, bucketOf } from '../src/search/snapshot.js';
import { priceVectorArb } from './helpers/project-scenarios.js';

/*
 * The per-area price ranges (src/search/price-per-area-bins.ts) against the exact rule of each unit
 * (pricing.ts comparePerArea on the unit's key price, as unit-matcher.ts tests a unit): a unit in a
 * range `inside` the bounds passes them, and a unit that passes them is in a `possible` range. Each unit
 * is a project of its own here, so a project's ranges are its unit's. Bounds are drawn at units' own key
 * prices per area and a hair either side, over tiny and ordinary areas, with random price vectors.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261127);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 300);

const popCount = (bits: number) => {
  let count = 0;
  for (let rest = bits >>> 0; rest !== 0; rest = (rest & (rest - 1)) >>> 0) count++;
  return count;
};

const unitArb = fc.record({
  cents: fc.oneof(fc.constant(Number.NaN), fc.integer({ min: 0, max: 5e10 }), fc.integer({ min: 1, max: 2_000 })),
  area: fc.oneof(fc.constantFrom(0, 0.01, 0.02, 0.37, 1, 55.5, 120.25), fc.double({ min: 0.01, max: 5_000, noNaN: true })),
  bedrooms: fc.integer({ min: 0, max: 7 }),
});

describe('price per area ranges', () => {
  it('a unit in a range inside the bounds passes them; a unit that passes them is in a possible range', () => {
    let inside = 0;
    let passed = 0;
    fc.assert(
      fc.property(
        fc.array(unitArb, { minLength: 1, maxLength: 300 }),
        priceVectorArb,
        fc.boolean(),
        fc.subarray(['min', 'max'] as const, { minLength: 1 }),
        fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
        fc.constantFrom(-1e-9, 0, 0, 1e-9, 0.01, -0.01, 0.3),
        (units, priceVector, perFt2, ends, picks, nudge) => {
          const pricing = keyPricing(priceVector);
          const baseCents = Float64Array.from(units, (unit) => unit.cents);
          const area = Float64Array.from(units, (unit) => unit.area);
          const unitStart = Int32Array.from({ length: units.length + 1 }, (_, i) => i);
          const bedrooms = Int32Array.from(units, (unit) => unit.bedrooms);
          const bins = binsOf(baseCents, area, bedrooms, unitStart, units.length);
          const priced = units.map((unit, u) => u).filter((u) => !Number.isNaN(baseCents[u]) && area[u] > 0);
          const scale = perFt2 ? FT2_PER_M2 : 1;
          const boundAt = (pick: number) => {
            if (priced.length === 0) return 12_345.67;
            const u = priced[pick % priced.length];
            return (pricing.keyCents(baseCents[u]) / 100 / area[u] / scale) * (1 + nudge);
          };
          const range: { min?: number; max?: number } = {};
          const [a, b] = picks.map(boundAt).sort((x, y) => x - y);
          if (ends.includes('min')) range.min = a;
          if (ends.includes('max')) range.max = b;
          const filters: UnitFilters = perFt2 ? { pricePerFt2: range } : { pricePerM2: range };
          const masks = pricePerAreaMasks(bins, filters, pricing.factor);
          for (let u = 0; u < units.length; u++) {
            const exact =
              !Number.isNaN(baseCents[u]) &&
              area[u] > 0 &&
              (range.min === undefined || pricing.comparePerArea(pricing.keyCents(baseCents[u]), area[u], range.min, perFt2) >= 0) &&
              (range.max === undefined || pricing.comparePerArea(pricing.keyCents(baseCents[u]), area[u], range.max, perFt2) <= 0);
            const at = (u * BUCKETS + bucketOf(bedrooms[u])) * WORDS;
            const held = bins.held.subarray(at, at + WORDS);
            const meets = (mask: Int32Array) => held.some((bits, w) => (bits & mask[w]) !== 0);
            // One range when it has a price and an area, in its bucket's words; the project's (its only
            // unit's) other buckets hold nothing; its ranges in any bucket are its bucket's.
            const ranges = (words: Uint32Array) => words.reduce((sum, bits) => sum + popCount(bits), 0);
            expect(ranges(held)).toBe(Number.isNaN(baseCents[u]) || !(area[u] > 0) ? 0 : 1);
            expect(ranges(bins.held.subarray(u * BUCKETS * WORDS, (u + 1) * BUCKETS * WORDS))).toBe(ranges(held));
            expect([...bins.heldInAny.subarray(u * WORDS, (u + 1) * WORDS)]).toEqual([...held]);
            if (meets(masks.inside)) {
              inside++;
              expect(exact, `unit ${u} (${baseCents[u]} cents, ${area[u]} m²) in an inside range fails ${JSON.stringify(filters)}`).toBe(true);
            }
            if (exact) {
              passed++;
              expect(meets(masks.possible), `unit ${u} passes ${JSON.stringify(filters)} outside every possible range`).toBe(true);
            }
          }
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // The property is not vacuous: ranges inside the bounds were found, and units passed.
    expect(inside).toBeGreaterThan(NUM_RUNS);
    expect(passed).toBeGreaterThan(NUM_RUNS);
  });

  it('values the doubles cannot hold (a price over an area of 1e-300, a bound of 1e307) leave a range possible, not inside', () => {
    const pricing = keyPricing(0);
    const bins = binsOf(Float64Array.of(1e10, 100_000), Float64Array.of(1e-300, 50), new Int32Array(2), Int32Array.of(0, 1, 2), 2);
    for (const range of [{ min: 1e307 }, { max: 1e308 }, { min: 1e307, max: 1e308 }]) {
      const masks = pricePerAreaMasks(bins, { pricePerM2: range }, pricing.factor);
      const held = bins.held.subarray(0, WORDS);
      // The unit passes the exact rule (1e8 AED over 1e-300 m²: ~1e308 per m², above 1e307 and below 1e308).
      const exact =
        (range.min === undefined || pricing.comparePerArea(pricing.keyCents(1e10), 1e-300, range.min, false) >= 0) &&
        (range.max === undefined || pricing.comparePerArea(pricing.keyCents(1e10), 1e-300, range.max, false) <= 0);
      if (exact) expect(held.some((bits, w) => (bits & masks.possible[w]) !== 0), JSON.stringify(range)).toBe(true);
      expect(held.some((bits, w) => (bits & masks.inside[w]) !== 0) && !exact, JSON.stringify(range)).toBe(false);
    }
  });

  it('a unit without a price or an area is in no range', () => {
    const bins = binsOf(Float64Array.of(Number.NaN, 100_000, 100_000), Float64Array.of(50, 0, 50), Int32Array.of(1, 1, 1), Int32Array.of(0, 1, 2, 3), 3);
    expect([0, 1, 2].map((p) => bins.held.subarray(p * BUCKETS * WORDS, (p + 1) * BUCKETS * WORDS).some((bits) => bits !== 0))).toEqual([false, false, true]);
    expect([0, 1, 2].map((p) => bins.heldInAny.subarray(p * WORDS, (p + 1) * WORDS).some((bits) => bits !== 0))).toEqual([false, false, true]);
  });
});
