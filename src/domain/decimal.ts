/*
 * Exact decimals for the few places where JavaScript must agree with PostgreSQL's numeric: a decimal
 * text (as String(number) writes it, e.g. `-7.3`, `1e-7`, `12345.67`) as the fraction n/d of bigints.
 */
export interface Fraction {
  n: bigint;
  /** Always positive. */
  d: bigint;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** `-12.5e-3` -> -125/10000, exactly. */
export function parseDecimal(text: string): Fraction {
  const match = DECIMAL.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal: ${text}`);
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? 0) - fraction.length;
  let n = BigInt(`${whole}${fraction}` || '0');
  let d = 1n;
  if (exponent >= 0) n *= 10n ** BigInt(exponent);
  else d = 10n ** BigInt(-exponent);
  return { n: sign === '-' ? -n : n, d };
}

/** The exact value of a finite double, as PostgreSQL reads `String(value)::numeric`. */
export function fractionOf(value: number): Fraction {
  return parseDecimal(String(value));
}

export function compareFractions(a: Fraction, b: Fraction): number {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function multiply(a: Fraction, b: Fraction): Fraction {
  return { n: a.n * b.n, d: a.d * b.d };
}

/** Largest integer <= n/d. */
export function floorFraction({ n, d }: Fraction): bigint {
  const q = n / d;
  return n < 0n && q * d !== n ? q - 1n : q;
}

/** Smallest integer >= n/d. */
export function ceilFraction({ n, d }: Fraction): bigint {
  const q = n / d;
  return n > 0n && q * d !== n ? q + 1n : q;
}

/**
 * Compares two decimals known as text and as the nearest double. Rounding to a double never reverses
 * an order, so different doubles decide; only equal doubles need the exact comparison.
 */
export function compareDecimalTexts(aText: string, aValue: number, bText: string, bValue: number): number {
  if (aValue < bValue) return -1;
  if (aValue > bValue) return 1;
  return compareFractions(parseDecimal(aText), parseDecimal(bText));
}
