import type { IdListsBuilder } from './id-lists.js';

/*
 * Reads the texts the database aggregates for the snapshot (string_agg of a row's columns, rows
 * between `;`) field by field, in place: no string or array per field, where split() made several per
 * row (most of the snapshot build's garbage on L). Each read leaves the reader past the field's
 * separator, except a row's `;`, which the reading of lists stops at.
 */
export class TextFields {
  private at = 0;

  constructor(private readonly source: string) {}

  /** Past the last field. */
  get done(): boolean {
    return this.at >= this.source.length;
  }

  /** An integer (optionally negative), then past its separator. */
  integer(): number {
    const { source } = this;
    let at = this.at;
    const negative = source.charCodeAt(at) === 45;
    if (negative) at++;
    let value = 0;
    for (let code = source.charCodeAt(at); code >= 48 && code <= 57; code = source.charCodeAt(++at)) value = value * 10 + (code - 48);
    this.at = at + 1;
    return negative ? -value : value;
  }

  /**
   * numeric(16, 2) as text always has its two decimals: without the point it is the whole cents
   * (NaN for `-`, no price). Digits summed while exact (15 at most, below 2^53); longer, as Number reads them.
   */
  cents(): number {
    const { source } = this;
    const begin = this.at;
    let at = begin;
    if (source.charCodeAt(at) === 45 && source.charCodeAt(at + 1) === 32) {
      this.at = at + 2;
      return Number.NaN;
    }
    let value = 0;
    let digits = 0;
    for (let code = source.charCodeAt(at); (code >= 48 && code <= 57) || code === 46 || code === 45; code = source.charCodeAt(++at)) {
      if (code >= 48) {
        value = value * 10 + (code - 48);
        digits++;
      }
    }
    this.at = at + 1;
    if (digits > 15 || source.charCodeAt(begin) === 45) return Number(source.slice(begin, at).replace('.', ''));
    return value;
  }

  /** A float8 text (`55.5`, `1e-05`) up to a space, as Number reads it. */
  number(): number {
    const { source } = this;
    const begin = this.at;
    let at = begin;
    while (at < source.length && source.charCodeAt(at) !== 32 && source.charCodeAt(at) !== 59) at++;
    // Past a space; a `;` (or the end) stays for the next reader to stop at.
    this.at = source.charCodeAt(at) === 32 ? at + 1 : at;
    return Number(source.slice(begin, at));
  }

  /** A text up to the next `,` or `;`, then past it. */
  text(): string {
    const { source } = this;
    let end = this.at;
    for (let code = source.charCodeAt(end); code !== 44 && code !== 59 && end < source.length; code = source.charCodeAt(++end));
    const value = source.slice(this.at, end);
    this.at = end + 1;
    return value;
  }

  /** Comma-separated integers up to the end of the row (none: an empty field), added to `lists`; then past the `;`. */
  ids(lists: IdListsBuilder): void {
    const { source } = this;
    let at = this.at;
    while (at < source.length && source.charCodeAt(at) !== 59) {
      let value = 0;
      const negative = source.charCodeAt(at) === 45;
      if (negative) at++;
      for (let code = source.charCodeAt(at); code >= 48 && code <= 57; code = source.charCodeAt(++at)) value = value * 10 + (code - 48);
      lists.add(negative ? -value : value);
      if (source.charCodeAt(at) === 44) at++;
    }
    this.at = at + 1;
  }
}
