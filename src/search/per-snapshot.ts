import { perObject, type PerObject } from '../lib/per-object.js';
import type { Snapshot } from './snapshot.js';

/*
 * A value derived from a snapshot (a cache, an index, a table of positions), made the first time it is
 * asked and held by the snapshot alone (a WeakMap entry): a new catalogue starts with none, and the old
 * catalogue's go with the old snapshot. Nothing derived from one catalogue can then answer for another.
 */

export type PerSnapshot<T> = PerObject<Snapshot, T>;

export function perSnapshot<T>(make: (snapshot: Snapshot) => T): PerSnapshot<T> {
  return perObject(make);
}
