import { sql, type Expression, type RawBuilder } from 'kysely';
import { ceilFraction, compareFractions, floorFraction, fractionOf, multiply, parseDecimal } from './decimal.js';

/*
 * The price rule, in one place. A key's price vector is a percentage (> -100, <= 100); every price the
 * API shows is the base price times the factor, rounded half away from zero to 2 decimals in exact
 * decimal arithmetic (PostgreSQL numeric). Filters on prices use the very same expression, so a unit
 * shown at price P is always matched by price_min=P&price_max=P, whatever the vector.
 */
export const FT2_PER_M2 = 10.7639104;

export const PRICE_VECTOR_MIN_EXCLUSIVE = -100;
export const PRICE_VECTOR_MAX = 100;

export function isValidPriceVector(value: number): boolean {
  return Number.isFinite(value) && value > PRICE_VECTOR_MIN_EXCLUSIVE && value <= PRICE_VECTOR_MAX;
}

export function priceFactor(priceVector: number): number {
  // Computed from the decimal string so that e.g. 7.1 gives 1.071, not 1.0710000000000002.
  return Number((1 + priceVector / 100).toFixed(10));
}

/** The factor as an exact SQL numeric. */
export function factorSql(priceVector: number): RawBuilder<number> {
  return sql<number>`(1 + ${String(priceVector)}::numeric / 100)`;
}

/** A base price column shown in the key's prices. */
export function keyPriceSql(basePrice: Expression<number | null> | RawBuilder<number | null>, priceVector: number): RawBuilder<number | null> {
  return sql<number | null>`round(${basePrice} * ${factorSql(priceVector)}, 2)`;
}

/**
 * A lower bound on the base price of any unit whose key price is >= `keyPrice`. It lets the filter use
 * the price index; the exact comparison on keyPriceSql still decides.
 */
export function baseLowerBoundSql(keyPrice: number, priceVector: number): RawBuilder<number> {
  return sql<number>`((${String(keyPrice)}::numeric - 0.005) / ${factorSql(priceVector)})`;
}

/** An upper bound on the base price of any unit whose key price is <= `keyPrice` (see baseLowerBoundSql). */
export function baseUpperBoundSql(keyPrice: number, priceVector: number): RawBuilder<number> {
  return sql<number>`((${String(keyPrice)}::numeric + 0.005) / ${factorSql(priceVector)})`;
}

/*
 * The same rule in JavaScript, for the in-memory search (src/search). Amounts are whole cents held in
 * doubles (exact below 2^53 cents, ~90 trillion): the key price in cents is
 *   round_half_away(base * (100 + v) / 100) = floor((2 * base * fn + fd) / (2 * fd))
 * with (100 + v) / 100 = fn / fd exactly (v as its decimal text, as `String(v)::numeric` reads it), base >= 0.
 */
export interface KeyPricing {
  /** (100 + v) / 100 as the nearest double (for estimates; keyCents is exact). */
  factor: number;
  /** The key price, in cents, of a base price in cents (>= 0); equal to keyPriceSql. */
  keyCents(baseCents: number): number;
  /**
   * The base prices (cents, inclusive) whose key price lies within `range` (in the key's currency
   * units): the key price never decreases as the base price grows, so the set is a window.
   */
  baseWindow(range: { min?: number; max?: number }): { min: number; max: number };
  /**
   * Compares keyCents / 100 with bound * area (area as `float8::numeric`, in ft² when perFt2); with
   * minorPerUnit, an amount in other minor units (a converted price, src/domain/currency.ts).
   */
  comparePerArea(keyCents: number, areaM2: number, bound: number, perFt2: boolean, minorPerUnit?: number): number;
}

const FT2_PER_M2_FRACTION = fractionOf(FT2_PER_M2);

/**
 * round_half_away(amount * factor) for amount >= 0, where `approx` is the factor as the nearest double
 * and `exact` the exact rule: the double product is off by far less than the margin, so only near a
 * half does the exact (bigint) rule have to decide.
 */
export function roundedProduct(amount: number, approx: number, exact: (amount: number) => number): number {
  const x = amount * approx;
  const whole = Math.floor(x);
  const fraction = x - whole;
  if (Math.abs(fraction - 0.5) > x * 1e-14 + 1e-9) return fraction < 0.5 ? whole : whole + 1;
  return exact(amount);
}

export function keyPricing(priceVector: number): KeyPricing {
  const vector = fractionOf(priceVector);
  const fn = 100n * vector.d + vector.n;
  const fd = 100n * vector.d;
  const approx = Number(fn) / Number(fd);

  const exactKeyCents = (baseCents: number) => Number((2n * BigInt(baseCents) * fn + fd) / (2n * fd));
  const keyCents = (baseCents: number) => roundedProduct(baseCents, approx, exactKeyCents);

  const baseWindow = ({ min, max }: { min?: number; max?: number }) => {
    let low = 0;
    let high = Infinity;
    if (min !== undefined) {
      // key >= K  <=>  2 b fn + fd >= 2 fd K  <=>  b >= (2 fd K - fd) / (2 fn), K = ceil(100 min)
      const k = ceilFraction(multiply(fractionOf(min), { n: 100n, d: 1n }));
      low = Math.max(0, Number(ceilFraction({ n: 2n * fd * k - fd, d: 2n * fn })));
    }
    if (max !== undefined) {
      // key <= K  <=>  2 b fn + fd < 2 fd (K + 1)  <=>  b < (2 fd (K + 1) - fd) / (2 fn), K = floor(100 max)
      const k = floorFraction(multiply(fractionOf(max), { n: 100n, d: 1n }));
      high = Number(ceilFraction({ n: 2n * fd * (k + 1n) - fd, d: 2n * fn }) - 1n);
    }
    return { min: low, max: high };
  };

  const comparePerArea = (cents: number, areaM2: number, bound: number, perFt2: boolean, minorPerUnit = 100) => {
    const approxRight = minorPerUnit * bound * areaM2 * (perFt2 ? FT2_PER_M2 : 1);
    const difference = cents - approxRight;
    if (Math.abs(difference) > Math.abs(approxRight) * 1e-14) return difference < 0 ? -1 : 1;
    // PostgreSQL turns a float8 into numeric with 15 significant digits (DBL_DIG).
    let area = parseDecimal(areaM2.toPrecision(15));
    if (perFt2) area = multiply(area, FT2_PER_M2_FRACTION);
    return compareFractions({ n: BigInt(cents), d: 1n }, multiply(multiply(fractionOf(bound), area), { n: BigInt(minorPerUnit), d: 1n }));
  };

  return { factor: approx, keyCents, baseWindow, comparePerArea };
}
