import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyPricing } from '../src/domain/pricing.js';
import { centsToNumber, decimal, shownCents } from './helpers/projects-reference.js';

/*
 * The JavaScript form of the price rule (pricing.ts, used by the in-memory search) against the exact
 * rational arithmetic of the naive reference: the key price of every base price, and the base-price
 * window of a key-price range, which must hold exactly the base prices whose key price is in range.
 */

const priceVector = fc.oneof(
  fc.constantFrom(0, 100, -99.99, 12.5, -7.3, 33.333, 0.1, -50, 1.1),
  fc.integer({ min: -9999, max: 10000 }).map((hundredths) => hundredths / 100),
  fc.double({ min: -99.999, max: 100, noNaN: true }).filter((value) => value > -100),
);
const baseCents = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom(0, 1, 50, 99, 150, 2 ** 52));

describe('key prices in JavaScript', () => {
  it('keyCents equals the exact rule (half away from zero, to the cent)', () => {
    fc.assert(
      fc.property(priceVector, baseCents, (vector, cents) => {
        expect(keyPricing(vector).keyCents(cents)).toBe(Number(shownCents(BigInt(cents), String(vector))));
      }),
      { seed: 1124, numRuns: 20_000 },
    );
  });

  it('baseWindow holds exactly the base prices whose key price is within the bounds', () => {
    fc.assert(
      fc.property(priceVector, fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), (vector, cents, delta, asMax) => {
        const pricing = keyPricing(vector);
        // A bound at a shown price (nudged by a cent or not), as partners send them.
        const bound = centsToNumber(BigInt(Math.max(0, pricing.keyCents(cents) + delta)));
        const window = pricing.baseWindow(asMax ? { max: bound } : { min: bound });
        const inRange = (base: number) => {
          const shown = shownCents(BigInt(base), String(vector));
          const exactBound = decimal(String(bound));
          return asMax ? shown * exactBound.d <= exactBound.n * 100n : shown * exactBound.d >= exactBound.n * 100n;
        };
        const edge = asMax ? window.max : window.min;
        // The window's edge is in range and its neighbour outside is not.
        if (Number.isFinite(edge) && edge >= 0) expect(inRange(edge)).toBe(true);
        const outside = asMax ? window.max + 1 : window.min - 1;
        if (outside >= 0 && Number.isFinite(outside)) expect(inRange(outside)).toBe(false);
      }),
      { seed: 1125, numRuns: 20_000 },
    );
  });
});
