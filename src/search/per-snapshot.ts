import type { Snapshot } from './snapshot.js';

/*
 * A value derived from a snapshot (a cache, an index, a table of positions), made the first time it is
 * asked and held by the snapshot alone (a WeakMap entry): a new catalogue starts with none, and the old
 * catalogue's go with the old snapshot. Nothing derived from one catalogue can then answer for another.
 */

export interface PerSnapshot<T> {
  /** The snapshot's value, made now if it has none. */
  (snapshot: Snapshot): T;
  /** The snapshot's value if it was made (a lookup must not make a cache just to find it empty). */
  peek(snapshot: Snapshot): T | undefined;
}

export function perSnapshot<T>(make: (snapshot: Snapshot) => T): PerSnapshot<T> {
  const values = new WeakMap<Snapshot, T>();
  const of = (snapshot: Snapshot): T => {
    let value = values.get(snapshot);
    if (value === undefined) {
      value = make(snapshot);
      values.set(snapshot, value);
    }
    return value;
  };
  return Object.assign(of, { peek: (snapshot: Snapshot) => values.get(snapshot) });
}
