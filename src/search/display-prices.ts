import { conversion, type Conversion, type DisplayCurrency } from '../domain/currency.js';
import type { Snapshot } from './snapshot.js';

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

export function displayPrices(snapshot: Snapshot, priceVector: number, display: DisplayCurrency): DisplayPrices {
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
