import type { Row } from './bundle-record.js';

/*
 * Exchange rates of the demo catalogue: AED for one unit of the currencies the UAE market sells to,
 * near their market values in November 2026 (USD at the AED peg), taken at one fixed instant so the
 * bundle stays the same from one run to the next.
 */
export const DEMO_RATES_AS_OF = '2026-11-20T12:00:00Z';

export const DEMO_AED_PER_UNIT: Readonly<Record<string, number>> = {
  CNY: 0.5164,
  EUR: 4.241,
  GBP: 4.852,
  INR: 0.04362,
  RUB: 0.04587,
  USD: 3.6725,
};

export function generateCurrencyRates(): Row<'currency_rates'>[] {
  return Object.entries(DEMO_AED_PER_UNIT).map(([currency, aed_per_unit]) => ({ currency, aed_per_unit, as_of: DEMO_RATES_AS_OF }));
}
