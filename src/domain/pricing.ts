import { sql, type Expression, type RawBuilder } from 'kysely';

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
