/** Display helpers shared by the pages. */
export function money(amount: number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return 'Price on request';
  try {
    return new Intl.NumberFormat('en-AE', { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);
  } catch {
    return `${currency} ${Math.round(amount).toLocaleString('en-AE')}`;
  }
}

export function area(m2: number | null | undefined): string {
  return m2 === null || m2 === undefined ? '—' : `${Math.round(m2).toLocaleString('en-AE')} m² (${Math.round(m2 * 10.7639104).toLocaleString('en-AE')} ft²)`;
}

export function date(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleDateString('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' }) : '—';
}

/** "From AED 1,250,000", or "Price on request" when there is no price (never "From Price on request"). */
export function priceFrom(amount: number | null | undefined, currency: string): string {
  return amount === null || amount === undefined ? 'Price on request' : `From ${money(amount, currency)}`;
}

/** "1 unit", "4 units". */
export function unitCount(count: number): string {
  return `${count} unit${count === 1 ? '' : 's'}`;
}

export function bedrooms(count: number): string {
  return count === 0 ? 'Studio' : count >= 5 ? '5+ bedrooms' : `${count} bedroom${count === 1 ? '' : 's'}`;
}

/** Unit statuses in visitors' words (the API's 2 is "EOI": the developer takes expressions of interest before sales open). */
export const UNIT_STATUS: Record<number, string> = { 1: 'Announced', 2: 'Expression of interest', 3: 'Start of sales', 4: 'On sale', 5: 'Out of stock' };
export const PAYMENT_STAGE: Record<number, string> = { 1: 'Down payment', 2: 'During construction', 3: 'On completion' };

/** A file link the browser can load: only absolute http(s) URLs (the demo stores bare paths). */
export function imageUrl(url: string | null | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** Out of stock (unit status 5) cannot be applied for: no Apply button, and its form answers 404. */
export function canApply(unit: { status: number }): boolean {
  return unit.status !== 5;
}

/** A payment-plan share as a width class (w5 … w100, steps of 5): no inline style, so a strict CSP holds. */
export function widthClass(percent: number): string {
  return `w${Math.min(100, Math.max(5, Math.round(percent / 5) * 5))}`;
}

/** A price in a few characters for a map marker: `AED 1.2M`, `AED 368K`. */
export function moneyShort(amount: number, currency: string): string {
  const figure = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: amount >= 1e6 ? 1 : 0 }).format(amount);
  return `${currency} ${figure}`;
}
