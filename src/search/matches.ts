import { countOnes } from './byte-masks.js';

/*
 * A search's matching projects, as its pages need them. The pass over the snapshot leaves one byte per
 * project (1: matches); the list in the sort's order is a walk of the sort order reading that byte.
 * A search asked for the first time shows one page: the walk stops once the page is filled, and the
 * full list is made only when it is asked again (another page of a kept result, the clusters, an MCP
 * tool's view). At scale the full walk and its copy are a large share of a typical search
 * (docs/performance.md, "Pages read off the sort order"), where a page needs a few dozen steps.
 *
 * The bytes are this result's own copy (the pass's buffers are reused by the next search) and are
 * dropped once the full list is made.
 */
export class Matches {
  /** Number of matching projects (the answer's `total`). */
  readonly total: number;
  private marks: Uint8Array | undefined;
  private full: Int32Array | undefined;
  private walked = false;

  private constructor(
    total: number,
    marks: Uint8Array | undefined,
    full: Int32Array | undefined,
    /** Every project's index in the sort's order (marked), or the list itself (listed). */
    private readonly sorted: Int32Array,
    /** Projects in the snapshot. */
    private readonly count: number,
  ) {
    this.total = total;
    this.marks = marks;
    this.full = full;
  }

  /** From the pass's bytes (copied) and the sort order they are to be read in. */
  static marked(marks: Uint8Array, sorted: Int32Array): Matches {
    return new Matches(countOnes(marks), marks.slice(), undefined, sorted, sorted.length);
  }

  /** From the list itself, already in the page order (the distance sort makes it so), of a snapshot of `count` projects. */
  static listed(order: Int32Array, count: number): Matches {
    return new Matches(order.length, undefined, order, order, count);
  }

  /** The matches from `offset` on, at most `limit` of them, in the page order. */
  page(offset: number, limit: number): Int32Array {
    const end = Math.min(this.total, offset + limit);
    if (end <= offset) return new Int32Array(0);
    if (this.full || this.walked) return this.all().subarray(offset, end);
    this.walked = true;
    // The first page asked: the walk stops at the page's last match.
    const marks = this.marks!;
    const { sorted } = this;
    const page = new Int32Array(end - offset);
    let seen = 0;
    for (let k = 0; seen < end; k++) {
      const i = sorted[k];
      if (marks[i] === 0) continue;
      if (seen >= offset) page[seen - offset] = i;
      seen++;
    }
    return page;
  }

  /** Every match, in the page order. */
  all(): Int32Array {
    if (!this.full) {
      const marks = this.marks!;
      const { sorted } = this;
      const order = new Int32Array(this.total);
      let next = 0;
      // Without a branch: each index is written, and kept by counting it (in no order of the
      // projects' own, a branch on the byte was mispredicted about as often as not).
      for (let k = 0; k < sorted.length && next < order.length; k++) {
        const i = sorted[k];
        order[next] = i;
        next += marks[i];
      }
      this.full = order;
      this.marks = undefined;
    }
    return this.full;
  }

  /**
   * Every match in snapshot order, which is id order (the clusters' sums do not depend on the sort):
   * read off the bytes while they are held, else marked from the list and read in one walk of the
   * indexes (a typed array's sort of L's 2,665 Dubai matches cost more than this walk of all 5,000).
   */
  inIdOrder(): Int32Array {
    const members = new Int32Array(this.total);
    let next = 0;
    if (this.marks) {
      const marks = this.marks;
      for (let i = 0; i < marks.length && next < members.length; i++) if (marks[i] === 1) members[next++] = i;
      return members;
    }
    const { count } = this;
    if (idMarks.length < count) idMarks = new Uint8Array(count);
    const full = this.full!;
    for (let k = 0; k < full.length; k++) idMarks[full[k]] = 1;
    for (let i = 0; i < count && next < members.length; i++) {
      if (idMarks[i] === 0) continue;
      idMarks[i] = 0;
      members[next++] = i;
    }
    return members;
  }

  /** Bytes this result holds at most (the result cache's weight): the bytes and the full list. */
  get weight(): number {
    return (this.marks?.byteLength ?? 0) + this.total * 4;
  }
}

/** inIdOrder's marks, grown to the largest snapshot seen (a pass runs to its end without yielding). */
let idMarks = new Uint8Array(0);
