import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idListsOf } from '../src/search/id-lists.js';
import { Postings } from '../src/search/postings.js';
import { priceWindowMasks, rangesOf } from '../src/search/tag-price-ranges.js';

/*
 * The base-price ranges per unit tag and project (src/search/tag-price-ranges.ts) against a direct look
 * at the project's units, as the search uses them: when a project's ranges for a tag meet `inside`, one
 * of its units with that tag has a price in the window; when one of them has, its ranges meet
 * `possible`. Windows are drawn at units' own prices and a cent either side, one end or both, with few
 * distinct prices (equal edges) and many.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261127);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 300);
const TAGS = 5;

const catalogueArb = fc
  .array(
    fc.array(
      fc.record({
        cents: fc.oneof(fc.constant(Number.NaN), fc.integer({ min: 0, max: 5e10 }), fc.constantFrom(100_000, 100_001, 250_000)),
        tags: fc.uniqueArray(fc.integer({ min: 1, max: TAGS }), { maxLength: 3 }),
      }),
      { maxLength: 40 },
    ),
    { minLength: 1, maxLength: 30 },
  )
  .map((projects) => projects.map((units) => [...units]));

describe('base-price ranges per unit tag and project', () => {
  it('inside: a unit of the tag is in the window; a unit of the tag in the window: possible', () => {
    let inside = 0;
    let within = 0;
    fc.assert(
      fc.property(
        catalogueArb,
        fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
        fc.constantFrom(-1, 0, 0, 1),
        fc.subarray(['low', 'high'] as const, { minLength: 1 }),
        (projects, picks, nudge, ends) => {
          const units = projects.flat();
          const projectOf = Int32Array.from(projects.flatMap((list, p) => list.map(() => p)));
          const baseCents = Float64Array.from(units, (unit) => unit.cents);
          const postings = Postings.build(projects.length, projectOf, idListsOf(units.length, (u) => units[u].tags), (u) => baseCents[u]);
          const ranges = rangesOf(baseCents, postings, projects.length);
          const priced = units.filter((unit) => !Number.isNaN(unit.cents)).map((unit) => unit.cents);
          const [a, b] = picks.map((pick) => (priced.length ? priced[pick % priced.length] : 123_456) + nudge).sort((x, y) => x - y);
          const low = ends.includes('low') ? a : -Infinity;
          const high = ends.includes('high') ? b : Infinity;
          const masks = priceWindowMasks(ranges, low, high);
          for (let tag = 1; tag <= TAGS; tag++) {
            const slot = postings.slots([tag])?.[0];
            projects.forEach((list, p) => {
              const found = list.some((unit) => unit.tags.includes(tag) && unit.cents >= low && unit.cents <= high);
              const held = slot === undefined ? 0 : ranges.held[slot * projects.length + p];
              if (slot === undefined) expect(found).toBe(false);
              if ((held & masks.inside) !== 0) {
                inside++;
                expect(found, `project ${p} tag ${tag}: a range inside [${low}, ${high}] but no unit in it`).toBe(true);
              }
              if (found) {
                within++;
                expect(held & masks.possible, `project ${p} tag ${tag}: a unit in [${low}, ${high}] outside every possible range`).not.toBe(0);
              }
            });
          }
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // Not vacuous: both sides were met many times.
    expect(inside).toBeGreaterThan(NUM_RUNS);
    expect(within).toBeGreaterThan(NUM_RUNS);
  });
});
