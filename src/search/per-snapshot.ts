import type { Snapshot } from './snapshot.js';

/*
 * A value derived from a snapshot (a cache, an index, a table of positions), made the first time it is
 * asked and held by the snapshot alone (a WeakMap entry): a new catalogue starts with none, and the old
 * catalogue's go with the old snapshot. Nothing derived from one catalogue can then answer for another.
 */

export interface PerObject<K extends object, T> {
  /** The object's value, made now if it has none. */
  (key: K): T;
  /** The object's value if it was made (a lookup must not make a cache just to find it empty). */
  peek(key: K): T | undefined;
}

export type PerSnapshot<T> = PerObject<Snapshot, T>;

export function perSnapshot<T>(make: (snapshot: Snapshot) => T): PerSnapshot<T> {
  return perObject(make);
}

/**
 * The same for any object whose derived values should live as long as it and no longer (a drawn shape's
 * test and cache key: src/search/find-projects.ts, result-cache.ts).
 */
export function perObject<K extends object, T>(make: (key: K) => T): PerObject<K, T> {
  const values = new WeakMap<K, T>();
  const of = (key: K): T => {
    let value = values.get(key);
    if (value === undefined) {
      value = make(key);
      values.set(key, value);
    }
    return value;
  };
  return Object.assign(of, { peek: (key: K) => values.get(key) });
}
