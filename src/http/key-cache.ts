import type { KeyLookup } from './auth.js';

/*
 * A short-lived, per-process memo of key lookups. Every request needs the key record, and most
 * requests of an integration repeat the same key, so this saves a round trip per request. The time to
 * live bounds how stale an instance can be: a revoked key, a changed price vector or contract takes
 * effect on every instance within `ttlMs`, with no shared state between instances. Misses are cached
 * too, so a bot repeating a bad key does not reach the database each time.
 */
export function cachedKeyLookup(lookup: KeyLookup, options: { ttlMs: number; maxEntries?: number; now?: () => number }): KeyLookup {
  const { ttlMs, maxEntries = 10_000, now = Date.now } = options;
  const entries = new Map<string, { expires: number; value: ReturnType<KeyLookup> }>();

  return (keyHash) => {
    const time = now();
    const hit = entries.get(keyHash);
    if (hit && hit.expires > time) return hit.value;
    if (hit) entries.delete(keyHash);

    const value = lookup(keyHash);
    // A failed lookup (database down) must not be remembered.
    value.catch(() => entries.delete(keyHash));
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(keyHash, { expires: time + ttlMs, value });
    return value;
  };
}
