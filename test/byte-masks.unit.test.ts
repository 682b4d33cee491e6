import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { andInto, countMeeting, countOnes, keepMeeting, keepWhere, markMeeting } from '../src/search/byte-masks.js';

/*
 * The mask loops read as words (src/search/byte-masks.ts) against the byte loops they replace, on
 * random masks of every length around a word's (the tail) and at every byte offset of their buffers
 * (offsets that are not a multiple of four take the byte loop), with NaN, infinities and the bound
 * itself among the values.
 */
const bits = (length: number) => fc.array(fc.constantFrom(0, 1), { minLength: length, maxLength: length });
const at = (values: number[], offset: number) => {
  const bytes = new Uint8Array(values.length + offset + 3);
  bytes.set(values, offset);
  return bytes.subarray(offset, offset + values.length);
};
const case_ = fc.integer({ min: 0, max: 40 }).chain((length) =>
  fc.record({ mask: bits(length), other: bits(length), maskOffset: fc.nat(3), otherOffset: fc.nat(3), values: fc.array(fc.constantFrom(Number.NaN, -Infinity, Infinity, 0, 1, 2, 3, 5.5), { minLength: length, maxLength: length }), bound: fc.constantFrom(0, 1, 2, 3, 5.5, Number.NaN) }),
);

describe('byte masks', () => {
  it('AND, AND NOT, count and the bound tests (keep, count, mark; both directions) equal the byte loops, at every offset and length', () => {
    fc.assert(
      fc.property(case_, ({ mask, other, maskOffset, otherOffset, values, bound }) => {
        const label = JSON.stringify({ mask, other, maskOffset, otherOffset, values, bound });
        const m = at(mask, maskOffset);
        andInto(m, at(other, otherOffset));
        expect(Array.from(m), label).toEqual(mask.map((v, i) => v & other[i]));
        const n = at(mask, maskOffset);
        andInto(n, at(other, otherOffset), true);
        expect(Array.from(n), label).toEqual(mask.map((v, i) => v & (1 - other[i])));
        expect(countOnes(at(mask, maskOffset)), label).toBe(mask.reduce((sum: number, v) => sum + v, 0));
        const column = Float64Array.from(values);
        for (const atLeast of [false, true]) {
          const meets = values.map((value) => +(atLeast ? value >= bound : value <= bound));
          const kept = at(mask, maskOffset);
          keepMeeting(kept, column, atLeast, bound);
          expect(Array.from(kept), `keep ${atLeast} ${label}`).toEqual(mask.map((v, i) => v & meets[i]));
          expect(countMeeting(at(mask, maskOffset), column, atLeast, bound), `count ${atLeast} ${label}`).toBe(mask.reduce((sum: number, v, i) => sum + (v & meets[i]), 0));
          // markMeeting ORs into other's bytes (set ones stay set), at other's own offset.
          const into = at(other, otherOffset);
          markMeeting(into, at(mask, maskOffset), column, atLeast, bound);
          expect(Array.from(into), `mark ${atLeast} ${label}`).toEqual(other.map((v, i) => v | (mask[i] & meets[i])));
        }
        // keepWhere asks only the projects still in, and clears those failing the test (here: other's byte).
        const asked: number[] = [];
        const where = at(mask, maskOffset);
        keepWhere(where, (i) => (asked.push(i), other[i] === 1));
        expect(Array.from(where), label).toEqual(mask.map((v, i) => v & other[i]));
        expect(asked, label).toEqual(mask.flatMap((v, i) => (v === 1 ? [i] : [])));
      }),
      { numRuns: 3_000 },
    );
  });
});
