import { displayCurrency, type CurrencyRates, type DisplayCurrency } from '../domain/currency.js';
import { unratedCurrencyMessage } from '../domain/error-catalogue.js';
import { badRequest } from './errors.js';

/** The `currency=` of a priced read, checked against the catalogue's rates: 400 naming an unrated code. */
export function displayCurrencyOf(currency: string | undefined, rates: CurrencyRates): DisplayCurrency | undefined {
  if (currency === undefined) return undefined;
  if (!rates.has(currency)) throw badRequest(unratedCurrencyMessage(currency));
  return displayCurrency(currency);
}
