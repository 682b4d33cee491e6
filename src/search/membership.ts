import type { IdLists } from './id-lists.js';

/*
 * Which ids each row carries (a unit's tags, a project's features), as bits: every distinct id gets a
 * bit, each row one or more 32-bit words. "Carries all of these ids" is then a mask test per row.
 */
export class Membership {
  private constructor(
    private readonly bitOf: Map<number, number>,
    private readonly words: number,
    private readonly data: Uint32Array,
  ) {}

  static build({ start, ids }: IdLists): Membership {
    const rows = start.length - 1;
    const bitOf = new Map<number, number>();
    // Each entry's bit, found once: the second pass reads it instead of hashing the id again.
    const bits = new Int32Array(ids.length);
    for (let entry = 0; entry < ids.length; entry++) {
      let bit = bitOf.get(ids[entry]);
      if (bit === undefined) bitOf.set(ids[entry], (bit = bitOf.size));
      bits[entry] = bit;
    }
    const words = Math.max(1, Math.ceil(bitOf.size / 32));
    const data = new Uint32Array(rows * words);
    for (let row = 0; row < rows; row++) {
      for (let entry = start[row]; entry < start[row + 1]; entry++) data[row * words + (bits[entry] >>> 5)] |= 1 << (bits[entry] & 31);
    }
    return new Membership(bitOf, words, data);
  }

  /** The mask of `ids`; null when one of them is carried by no row (then no row has them all). */
  mask(ids: readonly number[]): Uint32Array | null {
    const mask = new Uint32Array(this.words);
    for (const id of ids) {
      const bit = this.bitOf.get(id);
      if (bit === undefined) return null;
      mask[bit >>> 5] |= 1 << (bit & 31);
    }
    return mask;
  }

  hasAll(row: number, mask: Uint32Array): boolean {
    const base = row * this.words;
    for (let word = 0; word < mask.length; word++) {
      const wanted = mask[word];
      if (((this.data[base + word] & wanted) >>> 0) !== wanted) return false;
    }
    return true;
  }

  get bytes(): number {
    return this.data.byteLength;
  }
}
