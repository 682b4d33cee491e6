/*
 * The bundle's times count from a fixed day (2026-01-01), never from now, so regenerating it gives the
 * same bytes whenever it runs.
 */

const EPOCH_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** RFC 3339 timestamp `days` (may be fractional or negative) after 2026-01-01T00:00:00Z. */
const tsCache = new Map<number, string>();
export function ts(days: number): string {
  const seconds = Math.round((days * DAY_MS) / 1000);
  let value = tsCache.get(seconds);
  if (value === undefined) {
    value = new Date(EPOCH_MS + seconds * 1000).toISOString();
    if (tsCache.size < 100_000) tsCache.set(seconds, value);
  }
  return value;
}

export function dateOnly(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString();
}
