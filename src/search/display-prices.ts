import { conversion, type Conversion, type DisplayCurrency } from '../domain/currency.js';
import { keyPricing, type KeyPricing } from '../domain/pricing.js';
import type { Snapshot } from './snapshot.js';
import { perSnapshot } from './per-snapshot.js';

/*
 * `currency=` on a snapshot: per currency of the snapshot's projects, the conversion of the rule
 * (src/domain/currency.ts) into the asked currency for the key, or undefined when that currency has no
 * rate (its projects keep their own prices, and price bounds leave them out).
 */
export interface DisplayPrices {
  /** The asked currency as a JSON string (it replaces each converted item's `currency`). */
  json: string;
  /** By the snapshot's currency index. */
  from: (Conversion | undefined)[];
}

/*
 * Kept per snapshot, price vector and currency: the exact conversions (bigint fractions) cost ~17 µs
 * per request on L's 7 currencies, a tenth of a typical search (measured 2026-11-26). A snapshot sees
 * as many entries as its keys have distinct price vectors times the currencies asked for; they go
 * with it.
 */
const kept = perSnapshot(() => new Map<string, DisplayPrices>());

export function displayPrices(snapshot: Snapshot, priceVector: number, display: DisplayCurrency): DisplayPrices {
  const forSnapshot = kept(snapshot);
  const key = `${priceVector} ${display.currency}`;
  let prices = forSnapshot.get(key);
  if (!prices) forSnapshot.set(key, (prices = convertedFrom(snapshot, priceVector, display)));
  return prices;
}

function convertedFrom(snapshot: Snapshot, priceVector: number, display: DisplayCurrency): DisplayPrices {
  const { rates } = snapshot;
  const target = rates.aedPerUnit(display.currency)!;
  return {
    json: JSON.stringify(display.currency),
    from: snapshot.projects.currencies.map((source) => {
      const rate = rates.aedPerUnit(source);
      return rate === undefined ? undefined : conversion(priceVector, rate, target, display.currency);
    }),
  };
}

/**
 * A base price (cents; NaN: none) as GET /projects shows a price of a project: converted when
 * `currency=` has a rate for the project's currency (`converted`, from DisplayPrices.from), else in the
 * key's prices; null without a price. One rule for `price_from`, `match.price_from` and the clusters'.
 */
export function shownPrice(cents: number, pricing: KeyPricing, converted: Conversion | undefined): number | null {
  if (Number.isNaN(cents)) return null;
  return converted ? converted.shown(cents) : pricing.keyCents(cents) / 100;
}

/**
 * shownPrice as JSON text ("null" without a price): the unit details write their prices with it.
 */
export function shownPriceJson(cents: number, pricing: KeyPricing, converted: Conversion | undefined): string {
  return String(shownPrice(cents, pricing, converted));
}

/**
 * keyPricing of a price vector, kept: it reads the vector as an exact fraction (bigints), ~2 µs, a
 * sixth of a unit answer. Keys have few distinct vectors; past MAX_PRICINGS the memo starts over.
 */
export function keyPricingOf(priceVector: number): KeyPricing {
  let pricing = pricings.get(priceVector);
  if (!pricing) {
    if (pricings.size >= MAX_PRICINGS) pricings.clear();
    pricings.set(priceVector, (pricing = keyPricing(priceVector)));
  }
  return pricing;
}

const MAX_PRICINGS = 1_000;
const pricings = new Map<number, KeyPricing>();
