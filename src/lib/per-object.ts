/*
 * A value derived from an object, made the first time it is asked and held by the object alone (a
 * WeakMap entry): it lives as long as the object and no longer. Snapshots (src/search/per-snapshot.ts),
 * drawn shapes (their test and cache key: find-projects.ts, result-cache.ts, box-filter.ts), field
 * selections (src/contract/field-selection.ts), a snapshot's joined project names (name-search.ts) and
 * a key's contracted developers as one string (src/search/scopes.ts) use it. src/lib holds such
 * generic helpers below every layer: they know nothing of the catalogue and import nothing of the
 * service.
 */
export interface PerObject<K extends object, T> {
  /** The object's value, made now if it has none. */
  (key: K): T;
  /** The object's value if it was made (a lookup must not make a cache just to find it empty). */
  peek(key: K): T | undefined;
}

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
