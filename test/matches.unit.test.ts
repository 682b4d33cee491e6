import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Matches } from '../src/search/matches.js';

/*
 * A search's matches read off the sort order as pages ask (src/search/matches.ts: the first page's walk
 * stops at its last match, later asks make the full list) against the list made the straightforward
 * way: the sort order filtered by the marks, then sliced. Random marks (none, all, sparse), random sort
 * orders, and random sequences of pages (past the end, empty, overlapping), with the full list and the
 * id order asked in between; the marks given are changed after construction, as the search's reused
 * buffer is by the next search, which must not change the result.
 */
const catalogue = fc.integer({ min: 0, max: 80 }).chain((count) =>
  fc.record({
    marks: fc.array(fc.constantFrom(0, 1), { minLength: count, maxLength: count }),
    sorted: fc.shuffledSubarray(
      Array.from({ length: count }, (_, i) => i),
      { minLength: count, maxLength: count },
    ),
  }),
);
const ask = fc.oneof(
  fc.record({ page: fc.tuple(fc.nat(90), fc.integer({ min: 1, max: 30 })) }),
  fc.constant({ all: true as const }),
  fc.constant({ ids: true as const }),
);

describe('Matches', () => {
  it('pages, the full list and the id order are those of the filtered sort order, whatever is asked first', () => {
    fc.assert(
      fc.property(catalogue, fc.array(ask, { minLength: 1, maxLength: 6 }), ({ marks, sorted }, asks) => {
        const bytes = Uint8Array.from(marks);
        const expected = sorted.filter((i) => marks[i] === 1);
        const matches = Matches.marked(bytes, Int32Array.from(sorted));
        bytes.fill(1); // the pass's buffer, reused by the next search
        expect(matches.total).toBe(expected.length);
        for (const asked of asks) {
          if ('page' in asked) {
            const [offset, limit] = asked.page;
            expect(Array.from(matches.page(offset, limit)), JSON.stringify({ marks, sorted, asks })).toEqual(expected.slice(offset, offset + limit));
          } else if ('all' in asked) {
            expect(Array.from(matches.all())).toEqual(expected);
          } else {
            expect(Array.from(matches.inIdOrder())).toEqual([...expected].sort((a, b) => a - b));
          }
        }
        expect(matches.weight).toBeGreaterThanOrEqual(expected.length * 4);
      }),
      { numRuns: 3_000 },
    );
  });

  it('a list given in its order is paged as it is', () => {
    const matches = Matches.listed(Int32Array.from([4, 2, 9, 0]), 12);
    expect(matches.total).toBe(4);
    expect(Array.from(matches.page(1, 2))).toEqual([2, 9]);
    expect(Array.from(matches.page(3, 5))).toEqual([0]);
    expect(Array.from(matches.inIdOrder())).toEqual([0, 2, 4, 9]);
  });
});
