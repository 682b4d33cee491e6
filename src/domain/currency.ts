import type { KeyScope } from './key-scope.js';
import { sql, type Expression, type RawBuilder } from 'kysely';
import { ceilFraction, compareFractions, floorFraction, fractionOf, multiply, type Fraction } from './decimal.js';
import { factorSql, keyPriceSql, roundedProduct } from './pricing.js';

/*
 * The conversion rule, in one place (beside the price rule of pricing.ts, which it extends).
 *
 * - Rates: the catalogue's `currency_rates` hold, per currency, AED for one unit of it (`aed_per_unit`,
 *   a positive decimal) and when it was taken (`as_of`). AED is 1 by definition and has no row. A
 *   currency without a row has no rate: nothing is converted from or to it.
 * - A base price b in the source currency S, shown to a key of factor f = 1 + price_vector/100 in the
 *   target currency T, is
 *
 *       round_half_away(b * f * rate(S) / rate(T), minor(T))
 *
 *   computed exactly (no intermediate rounding: the factor, the conversion and the rounding happen
 *   once, on the exact rational), rounded half away from zero to T's minor unit: minor(T) is the
 *   number of decimals of the currency as the platform's CLDR data gives it (Intl): 2 for AED, USD,
 *   EUR, GBP, RUB, INR, CNY; 0 for JPY; 3 for KWD.
 * - S = T is no conversion (rate(S) / rate(T) = 1) but still rounds to minor(T); for a currency of 2
 *   decimals this is exactly the key price of pricing.ts.
 * - The converted price never decreases as b * rate(S) (the value in AED) grows, so a range of
 *   converted prices is a window of base prices per source currency (baseWindow), and the order by
 *   value in AED is the order in every currency and for every price vector (rounding only makes ties).
 * - Without `currency` (the specified answers), nothing here applies: prices are key prices in the
 *   project's own currency, whatever it is.
 */

export const BASE_CURRENCY = 'AED';

/** ISO 4217 form: three upper-case letters. */
export const CURRENCY_CODE_PATTERN = '^[A-Z]{3}$';
const CURRENCY_CODE = new RegExp(CURRENCY_CODE_PATTERN);

export function isCurrencyCode(value: string): boolean {
  return CURRENCY_CODE.test(value);
}

/** The ISO 4217 codes the platform's Intl knows (CLDR): a rate must name one of them. */
let iso4217: ReadonlySet<string> | undefined;
export function isIso4217Code(value: string): boolean {
  iso4217 ??= new Set(Intl.supportedValuesOf('currency'));
  return iso4217.has(value);
}

/** Decimals of the currency's minor unit (CLDR data of the platform's Intl; 2 for an unknown code). */
export function minorUnitDigits(currency: string): number {
  const cached = digitsCache.get(currency);
  if (cached !== undefined) return cached;
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  digitsCache.set(currency, digits);
  return digits;
}
const digitsCache = new Map<string, number>();

/** One stored rate: AED for one unit of `currency`, as stored (numeric read as the number it prints as). */
export interface CurrencyRate {
  currency: string;
  aed_per_unit: number;
  /** RFC 3339. */
  as_of: string;
}

/** The rates of a catalogue, AED included (rate 1, as_of null). */
export class CurrencyRates {
  private readonly byCode: Map<string, CurrencyRate>;

  constructor(rates: readonly CurrencyRate[]) {
    this.byCode = new Map(rates.map((rate) => [rate.currency, rate]));
  }

  /** AED per unit of the currency; 1 for AED; undefined when the currency has no rate. */
  aedPerUnit(currency: string): number | undefined {
    if (currency === BASE_CURRENCY) return 1;
    return this.byCode.get(currency)?.aed_per_unit;
  }

  has(currency: string): boolean {
    return this.aedPerUnit(currency) !== undefined;
  }

  get(currency: string): CurrencyRate | undefined {
    return this.byCode.get(currency);
  }

  /** Every stored rate, by code. */
  list(): CurrencyRate[] {
    return [...this.byCode.values()].sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  }
}

/** The JavaScript form of the rule, for one key, source and target. Amounts in whole cents / minor units. */
export interface Conversion {
  /** Decimals of the target's minor unit. */
  digits: number;
  /** 10^digits: minor units per unit of the target. */
  minorPerUnit: number;
  /** The shown price, in minor units of the target, of a base price in cents (>= 0, integer). */
  minor(baseCents: number): number;
  /** The shown price as a number of the target currency (minor / 10^digits, as JSON prints it). */
  shown(baseCents: number): number;
  /** The base prices (cents, inclusive) whose shown price lies within `range` (in target units). */
  baseWindow(range: { min?: number; max?: number }): { min: number; max: number };
}

/**
 * Converts from `source` (rate sourceAedPerUnit) to `target` (rate targetAedPerUnit) for a key of
 * `priceVector`. Exact: minor = floor((2 N + D) / 2 D) with N / D = cents * f * rS * 10^digits / (100 rT).
 */
export function conversion(priceVector: number, sourceAedPerUnit: number, targetAedPerUnit: number, target: string): Conversion {
  const digits = minorUnitDigits(target);
  const scale = 10n ** BigInt(digits);
  const vector = fractionOf(priceVector);
  const source = fractionOf(sourceAedPerUnit);
  const targetRate = fractionOf(targetAedPerUnit);
  // cents -> minor units of the target: k = (100 + v) / 100 * rS / rT * 10^digits / 100 = kn / kd.
  const k: Fraction = reduce({
    n: (100n * vector.d + vector.n) * source.n * targetRate.d * scale,
    d: 100n * vector.d * source.d * targetRate.n * 100n,
  });
  // Through a scaled bigint quotient: n and d alone may exceed the doubles (a vector of 300 decimals).
  const approx = Number((k.n * APPROX_SCALE) / k.d) / Number(APPROX_SCALE);
  const minorPerUnit = 10 ** digits;

  const exactMinor = (cents: number) => Number((2n * BigInt(cents) * k.n + k.d) / (2n * k.d));
  const minor = (cents: number) => roundedProduct(cents, approx, exactMinor);

  const baseWindow = ({ min, max }: { min?: number; max?: number }) => {
    let low = 0;
    let high = Infinity;
    const scaleFraction = { n: scale, d: 1n };
    if (min !== undefined) {
      // minor >= M  <=>  2 c kn + kd >= 2 kd M  <=>  c >= (2 kd M - kd) / (2 kn), M = ceil(min * 10^digits)
      const m = ceilFraction(multiply(fractionOf(min), scaleFraction));
      low = Math.max(0, Number(ceilFraction({ n: 2n * k.d * m - k.d, d: 2n * k.n })));
    }
    if (max !== undefined) {
      // minor <= M  <=>  2 c kn + kd < 2 kd (M + 1)  <=>  c < (2 kd (M + 1) - kd) / (2 kn), M = floor(max * 10^digits)
      const m = floorFraction(multiply(fractionOf(max), scaleFraction));
      high = Number(ceilFraction({ n: 2n * k.d * (m + 1n) - k.d, d: 2n * k.n }) - 1n);
    }
    return { min: low, max: high };
  };

  return { digits, minorPerUnit, minor, shown: (cents) => minor(cents) / minorPerUnit, baseWindow };
}

const APPROX_SCALE = 10n ** 20n;

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

function reduce({ n, d }: Fraction): Fraction {
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/**
 * Orders two base prices (cents) of currencies of rates ra and rb by value in AED (cents * rate):
 * doubles decide unless they are too close, then the exact product does.
 */
export function compareAedValue(aCents: number, aRate: number, bCents: number, bRate: number): number {
  const a = aCents * aRate;
  const b = bCents * bRate;
  if (Math.abs(a - b) > Math.max(Math.abs(a), Math.abs(b)) * 1e-12) return a < b ? -1 : 1;
  return compareFractions(multiply(fractionOf(aCents), fractionOf(aRate)), multiply(fractionOf(bCents), fractionOf(bRate)));
}

/*
 * The same rule in SQL (exact numeric arithmetic): div() truncates an exact quotient, which for
 * positive values is the floor of the JavaScript form above.
 */

/** AED per unit of the currency in `currency` (an SQL text expression): 1 for AED, NULL without a rate. */
export function aedPerUnitSql(currency: Expression<string> | RawBuilder<string>): RawBuilder<number | null> {
  return sql<number | null>`(CASE WHEN ${currency} = 'AED' THEN 1::numeric ELSE (SELECT cr.aed_per_unit FROM currency_rates cr WHERE cr.currency = ${currency}) END)`;
}

/**
 * A base price shown in the target currency: NULL when the base price is NULL or either rate is
 * missing. `digits` is minorUnitDigits(target).
 */
export function convertedPriceSql(
  basePrice: Expression<number | null> | RawBuilder<number | null>,
  priceVector: number,
  sourceRate: RawBuilder<number | null>,
  targetRate: RawBuilder<number | null>,
  digits: number | RawBuilder<number>,
): RawBuilder<number | null> {
  const scale = sql`power(10::numeric, ${digits}::int)`;
  return sql<number | null>`round(div(2 * ${basePrice} * ${factorSql(priceVector)} * ${sourceRate} * ${scale} + ${targetRate}, 2 * ${targetRate}) / ${scale}, ${digits}::int)`;
}

/*
 * An offer's price (POST /units/{id}/applications). The offer's currency (AED or USD, as specified)
 * may differ from the unit's: then, when both have a rate, the offer price is the unit's base price
 * converted by the rule above (key's factor applied once), and what was converted is kept beside it.
 * Without a rate the specified answer stands (the unit's key price, under the offer's currency) and
 * the conversion says `converted: false`, never silently.
 */
export interface OfferConversion {
  unit_currency: string;
  /** The unit's price in the key's prices, in the unit's currency. */
  unit_price: number | null;
  converted: boolean;
  /** Offer currency per unit currency (rate(S) / rate(T), to 12 significant digits); null when not converted. */
  rate: number | null;
  /** The older as_of of the rates used (AED has none); null when not converted. */
  rate_as_of: string | null;
}

export interface OfferPrice {
  price: number | null;
  /** Null when the offer is in the unit's own currency: nothing to convert. */
  conversion: OfferConversion | null;
}

export function offerPrice(
  unit: { baseCents: number | null; keyPrice: number | null; currency: string },
  offerCurrency: string,
  priceVector: number,
  rates: CurrencyRates,
): OfferPrice {
  if (unit.currency === offerCurrency) return { price: unit.keyPrice, conversion: null };
  const from = rates.aedPerUnit(unit.currency);
  const to = rates.aedPerUnit(offerCurrency);
  const notConverted = { unit_currency: unit.currency, unit_price: unit.keyPrice, converted: false, rate: null, rate_as_of: null };
  if (from === undefined || to === undefined) return { price: unit.keyPrice, conversion: notConverted };
  const asOfs = [rates.get(unit.currency)?.as_of, rates.get(offerCurrency)?.as_of].filter((at): at is string => at !== undefined).sort();
  const price = unit.baseCents === null ? null : conversion(priceVector, from, to, offerCurrency).shown(unit.baseCents);
  return {
    price,
    conversion: { ...notConverted, converted: true, rate: Number((from / to).toPrecision(12)), rate_as_of: asOfs[0] ?? null },
  };
}

/** The currency a read asks prices in (`currency=`), with its minor unit. */
export interface DisplayCurrency {
  currency: string;
  digits: number;
}

export function displayCurrency(currency: string): DisplayCurrency {
  return { currency, digits: minorUnitDigits(currency) };
}

/**
 * A base price of the project aliased p as a read shows it: the key price in the project's currency
 * without `currency` (the specified answer), converted to the asked currency with it; a project whose
 * currency has no rate keeps its key price (and its currency, shownCurrencySql).
 */
export function shownPriceSql(
  basePrice: Expression<number | null> | RawBuilder<number | null>,
  priceVector: number,
  display: DisplayCurrency | undefined,
): RawBuilder<number | null> {
  if (!display) return keyPriceSql(basePrice, priceVector);
  const source = aedPerUnitSql(sql.ref('p.currency'));
  return sql<number | null>`(CASE WHEN ${source} IS NULL THEN ${keyPriceSql(basePrice, priceVector)} ELSE ${convertedPriceSql(basePrice, priceVector, source, targetRateSql(display), display.digits)} END)`;
}

/** The `currency` a read shows for the project aliased p (see shownPriceSql). */
export function shownCurrencySql(display: DisplayCurrency | undefined): RawBuilder<string> {
  if (!display) return sql<string>`p.currency`;
  return sql<string>`(CASE WHEN ${aedPerUnitSql(sql.ref('p.currency'))} IS NULL THEN p.currency ELSE ${display.currency}::text END)`;
}

/** A base price of the project aliased p converted to the asked currency: NULL without a rate (price bounds leave it out). */
export function convertedOnlySql(basePrice: Expression<number | null> | RawBuilder<number | null>, priceVector: number, display: DisplayCurrency): RawBuilder<number | null> {
  return convertedPriceSql(basePrice, priceVector, aedPerUnitSql(sql.ref('p.currency')), targetRateSql(display), display.digits);
}

/** The value in AED of a base price of the project aliased p (exact; NULL without a rate): the price sort's key. */
export function aedValueSql(basePrice: Expression<number | null> | RawBuilder<number | null>): RawBuilder<number | null> {
  return sql<number | null>`(${basePrice} * ${aedPerUnitSql(sql.ref('p.currency'))})`;
}

function targetRateSql(display: DisplayCurrency): RawBuilder<number | null> {
  return aedPerUnitSql(sql<string>`${display.currency}::text`);
}

/** What a priced read is given: the key's scope and, with `currency=`, the currency to show prices in. */
export type ReadScope = KeyScope & { display?: DisplayCurrency };
