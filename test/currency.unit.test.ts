import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareAedValue, conversion, CurrencyRates, isCurrencyCode, minorUnitDigits } from '../src/domain/currency.js';
import { keyPricing } from '../src/domain/pricing.js';

/*
 * The conversion rule of src/domain/currency.ts in JavaScript, against a naive exact computation
 * written here with bigint rationals (no code shared with the module but the digits of the minor unit).
 */

/** A decimal text as n / d. */
function exact(text: string): { n: bigint; d: bigint } {
  const [whole, fraction = ''] = text.split('.');
  const exponent = text.includes('e') ? Number(text.split('e')[1]) : 0;
  if (exponent !== 0) {
    const mantissa = exact(text.split('e')[0]);
    return exponent > 0 ? { n: mantissa.n * 10n ** BigInt(exponent), d: mantissa.d } : { n: mantissa.n, d: mantissa.d * 10n ** BigInt(-exponent) };
  }
  const negative = whole.startsWith('-');
  const n = BigInt(`${whole.replace('-', '')}${fraction}` || '0');
  return { n: negative ? -n : n, d: 10n ** BigInt(fraction.length) };
}

/** round_half_away(cents / 100 * (1 + v / 100) * rS / rT, digits) in minor units, exactly. */
function naiveMinor(cents: number, vector: number, rS: number, rT: number, digits: number): bigint {
  const v = exact(String(vector));
  const s = exact(String(rS));
  const t = exact(String(rT));
  // value * 10^digits = cents * (100 v.d + v.n) / (100 v.d) / 100 * s.n / s.d * t.d / t.n * 10^digits
  const n = BigInt(cents) * (100n * v.d + v.n) * s.n * t.d * 10n ** BigInt(digits);
  const d = 100n * v.d * 100n * s.d * t.n;
  const twice = 2n * n;
  return (twice + d) / (2n * d);
}

const vectors = fc.oneof(fc.constantFrom(0, 100, -99.99, 12.5, -7.3, 33.333, 7.1), fc.integer({ min: -9999, max: 10000 }).map((h) => h / 100));
const rates = fc.oneof(
  fc.constantFrom(1, 3.6725, 4.0123, 4.6512, 0.0401, 0.04392, 0.5093, 1e-4, 12.5),
  fc.double({ min: 1e-4, max: 1e4, noNaN: true }),
);
// Rates between 1e-3 and 1e3 AED: shown amounts stay below 2^53 minor units for the window test's doubles.
const saneRates = fc.oneof(fc.constantFrom(1, 3.6725, 4.0123, 0.0401, 0.5093), fc.double({ min: 1e-3, max: 1e3, noNaN: true }));
const cents = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom(0, 1, 50, 121813900));
const targets = fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'AED');

describe('the conversion rule in JavaScript', () => {
  it('minor() is the exact rule: factor and conversion applied once, rounded half away to the minor unit', () => {
    fc.assert(
      fc.property(vectors, rates, rates, cents, targets, (vector, rS, rT, base, target) => {
        const digits = minorUnitDigits(target);
        expect(conversion(vector, rS, rT, target).minor(base)).toBe(Number(naiveMinor(base, vector, rS, rT, digits)));
      }),
      { seed: 2201, numRuns: 20_000 },
    );
  });

  it('rounds a half away from zero (an exact half, not a nearest double)', () => {
    // 1.25 EUR at 1 AED per EUR into USD at 2 AED per USD = 0.625 USD -> 0.63.
    expect(conversion(0, 1, 2, 'USD').minor(125)).toBe(63);
    // 10.05 AED into JPY at 0.1 AED per JPY = 100.5 JPY -> 101 (0 decimals).
    expect(conversion(0, 1, 0.1, 'JPY').minor(1005)).toBe(101);
    expect(conversion(0, 1, 0.1, 'JPY').shown(1005)).toBe(101);
  });

  it('is the key price of pricing.ts when nothing is converted (same currency, 2 decimals)', () => {
    fc.assert(
      fc.property(vectors, cents, (vector, base) => {
        expect(conversion(vector, 1, 1, 'AED').minor(base)).toBe(keyPricing(vector).keyCents(base));
      }),
      { seed: 2202, numRuns: 5_000 },
    );
  });

  it('the EUR unit of the issue: 1,218,139 EUR at 4.0123 AED per EUR is 4,887,539.11 AED (and 4,985,289.89 with +2 %)', () => {
    expect(conversion(0, 4.0123, 1, 'AED').shown(121813900)).toBe(4887539.11);
    expect(conversion(2, 4.0123, 1, 'AED').shown(121813900)).toBe(4985289.89);
  });

  it('baseWindow holds exactly the base prices whose converted price is within the bounds', () => {
    fc.assert(
      fc.property(vectors, saneRates, saneRates, fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), targets, (vector, rS, rT, base, delta, asMax, target) => {
        const rule = conversion(vector, rS, rT, target);
        const bound = Math.max(0, rule.minor(base) + delta) / rule.minorPerUnit;
        const window = rule.baseWindow(asMax ? { max: bound } : { min: bound });
        const inRange = (c: number) => (asMax ? rule.minor(c) / rule.minorPerUnit <= bound : rule.minor(c) / rule.minorPerUnit >= bound);
        const edge = asMax ? window.max : window.min;
        if (Number.isFinite(edge) && edge >= 0 && (asMax || edge > 0 || inRange(0))) expect(inRange(edge)).toBe(true);
        const outside = asMax ? window.max + 1 : window.min - 1;
        if (outside >= 0 && Number.isFinite(outside)) expect(inRange(outside)).toBe(false);
      }),
      { seed: 2203, numRuns: 10_000 },
    );
  });

  it('orders by value in AED exactly, even where doubles tie', () => {
    expect(compareAedValue(100, 3.6725, 367, 1)).toBe(1);
    expect(compareAedValue(100, 3.6725, 368, 1)).toBe(-1);
    // 0.1 * 3 vs 0.3: equal as decimals, not as doubles.
    expect(compareAedValue(3, 0.1, 1, 0.3)).toBe(0);
    // 2^52 * 1.0000000000000002 is 2^52 + 0.90…: a double product ties with 2^52 + 1, the exact one is below.
    expect(compareAedValue(2 ** 52, 1.0000000000000002, 2 ** 52 + 1, 1)).toBe(-1);
  });
});

describe('currency codes and rates', () => {
  it('accepts three upper-case letters only', () => {
    expect(isCurrencyCode('USD')).toBe(true);
    for (const bad of ['usd', 'US', 'USDT', 'U5D', '']) expect(isCurrencyCode(bad)).toBe(false);
  });

  it('minor units: 2 for the demo currencies, 0 for JPY, 3 for KWD', () => {
    for (const code of ['AED', 'USD', 'EUR', 'GBP', 'RUB', 'INR', 'CNY']) expect(minorUnitDigits(code)).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('KWD')).toBe(3);
  });

  it('AED is 1 without a row; a currency without a row has no rate', () => {
    const rates = new CurrencyRates([{ currency: 'USD', aed_per_unit: 3.6725, as_of: '2026-11-01T00:00:00.000Z' }]);
    expect(rates.aedPerUnit('AED')).toBe(1);
    expect(rates.aedPerUnit('USD')).toBe(3.6725);
    expect(rates.aedPerUnit('EUR')).toBeUndefined();
    expect(rates.has('EUR')).toBe(false);
  });
});
