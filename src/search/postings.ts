import type { IdLists } from './id-lists.js';

/*
 * Per id (a unit tag), the rows that carry it, grouped by group (a project): rows of id `id` in group
 * g are rows[start[slot * (groups + 1) + g] .. start[slot * (groups + 1) + g + 1] - 1], in row order
 * or, when built with an order, by that order (units: by base price, so that a price window is a
 * binary search and a stop instead of a walk of every unit carrying the tag).
 *
 * Why: a search with unit tags visited every unit of every candidate project to find one carrying the
 * tags. Walking only the units of the least common wanted tag visits a fraction of them
 * (docs/performance.md, "Unit summary and tag postings").
 */
export class Postings {
  private constructor(
    private readonly slotOf: Map<number, number>,
    private readonly groups: number,
    private readonly start: Int32Array,
    private readonly rows: Int32Array,
    /** With an order: each position's order value, beside `rows` (NaN last). */
    private readonly keys: Float64Array | undefined,
  ) {}

  /**
   * `groupOf[row]` must not decrease with the row (rows are stored grouped). With `order`, the rows of
   * each (id, group) are sorted by it, ascending, NaN last (else in row order).
   */
  static build(groups: number, groupOf: Int32Array, { start: rowStart, ids }: IdLists, order?: (row: number) => number): Postings {
    const rowCount = rowStart.length - 1;
    const slotOf = new Map<number, number>();
    // Each entry's slot, found once (the two passes below read it instead of hashing the id again).
    const slots = new Int32Array(ids.length);
    for (let entry = 0; entry < ids.length; entry++) {
      let slot = slotOf.get(ids[entry]);
      if (slot === undefined) slotOf.set(ids[entry], (slot = slotOf.size));
      slots[entry] = slot;
    }
    const stride = groups + 1;
    const start = new Int32Array(slotOf.size * stride + 1);
    // Counts per (slot, group), then prefix sums, then the rows in place.
    for (let row = 0; row < rowCount; row++) for (let entry = rowStart[row]; entry < rowStart[row + 1]; entry++) start[slots[entry] * stride + groupOf[row] + 1]++;
    for (let k = 1; k < start.length; k++) start[k] += start[k - 1];
    const fill = start.slice();
    const rows = new Int32Array(start[start.length - 1]);
    for (let row = 0; row < rowCount; row++) for (let entry = rowStart[row]; entry < rowStart[row + 1]; entry++) rows[fill[slots[entry] * stride + groupOf[row]]++] = row;
    let keys: Float64Array | undefined;
    if (order) {
      const key = new Float64Array(rowCount);
      for (let row = 0; row < rowCount; row++) {
        const value = order(row);
        key[row] = Number.isNaN(value) ? Infinity : value;
      }
      const byKey = (a: number, b: number) => key[a] - key[b] || a - b;
      for (let k = 0; k + 1 < start.length; k++) if (start[k + 1] - start[k] > 1) rows.subarray(start[k], start[k + 1]).sort(byKey);
      // The values again, in posting order: a search of a range reads them in a row instead of
      // jumping to each row's value (a cache miss per step on L's 245,532 units).
      keys = new Float64Array(rows.length);
      // NaN stays NaN here (sorted last): it fails every comparison, as an unpriced unit fails every price bound.
      for (let k = 0; k < rows.length; k++) keys[k] = order(rows[k]);
    }
    return new Postings(slotOf, groups, start, rows, keys);
  }

  /** The slots of `ids`; null when one of them is carried by no row. */
  slots(ids: readonly number[]): number[] | null {
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) return null;
      slots.push(slot);
    }
    return slots;
  }

  /** Index in rowsArray of the first row of `slot` in `group` (the end is rangeStart(slot, group + 1)). */
  rangeStart(slot: number, group: number): number {
    return this.start[slot * (this.groups + 1) + group];
  }

  /** How many ids have rows (slots are 0 .. slotCount - 1). */
  get slotCount(): number {
    return this.slotOf.size;
  }

  get rowsArray(): Int32Array {
    return this.rows;
  }

  /** Built with an order: the order value at each position of rowsArray (NaN values last). */
  get keysArray(): Float64Array | undefined {
    return this.keys;
  }

  get bytes(): number {
    return this.start.byteLength + this.rows.byteLength + (this.keys?.byteLength ?? 0);
  }
}
