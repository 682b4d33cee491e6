/*
 * Ids per row, flat: row r carries ids[start[r]] .. ids[start[r + 1] - 1] (a unit's tags, a project's
 * features). One pair of typed arrays instead of an array per row: on L's 234,000 units the arrays per
 * unit were a large share of the snapshot build's garbage collection (docs/performance.md, "Snapshot
 * read").
 */
export interface IdLists {
  start: Int32Array;
  ids: Int32Array;
}

/** Rows added in order, each's ids as they come. */
export class IdListsBuilder {
  private readonly start: Int32Array;
  private ids: Int32Array;
  private rows = 0;
  private length = 0;

  constructor(rows: number, expectedIds = rows) {
    this.start = new Int32Array(rows + 1);
    this.ids = new Int32Array(Math.max(16, expectedIds));
  }

  add(id: number): void {
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = id;
  }

  /** Ends the current row (its ids are those added since the previous endRow). */
  endRow(): void {
    this.start[++this.rows] = this.length;
  }

  done(): IdLists {
    if (this.rows !== this.start.length - 1) throw new Error(`id lists: ${this.rows} rows ended of ${this.start.length - 1}`);
    return { start: this.start, ids: this.ids.slice(0, this.length) };
  }
}

/** The lists of `rows` rows from an array of ids per row. */
export function idListsOf(rows: number, idsOf: (row: number) => readonly number[]): IdLists {
  const lists = new IdListsBuilder(rows);
  for (let row = 0; row < rows; row++) {
    for (const id of idsOf(row)) lists.add(id);
    lists.endRow();
  }
  return lists.done();
}
