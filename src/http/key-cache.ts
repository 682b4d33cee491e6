import { keyCacheRequests } from '../metrics/instruments.js';
import type { ChangeSignal } from '../changes/change-signal.js';
import type { KeyLookup } from './auth.js';

/*
 * A per-process memo of key lookups. Every request needs the key record (key, licence, contracts,
 * author), and most requests of an integration repeat the same key, so this saves a round trip per
 * request. Misses are cached too, so a bot repeating a bad key does not reach the database each time.
 *
 * Freshness: with `changes`, every change signal (a key, contract, licence, company or user written
 * anywhere, by any process: src/changes/) empties the cache, and while the signal's listener is away
 * the cache is not used at all. The time to live (1 s in the server) bounds the rest: nothing is
 * served older than `ttlMs` even if a signal went astray.
 */
export interface KeyCacheOptions {
  ttlMs: number;
  changes?: Pick<ChangeSignal, 'subscribe' | 'listening'>;
  maxEntries?: number;
  now?: () => number;
}

export function cachedKeyLookup(lookup: KeyLookup, options: KeyCacheOptions): KeyLookup {
  const { ttlMs, changes, maxEntries = 10_000, now = Date.now } = options;
  const entries = new Map<string, { expires: number; value: ReturnType<KeyLookup> }>();
  // In-flight lookups go too: one that started before the change may have read the state before it.
  changes?.subscribe(() => entries.clear());

  return (keyHash) => {
    if (changes && !changes.listening) {
      keyCacheRequests.inc({ result: 'bypass' });
      return lookup(keyHash);
    }
    const time = now();
    const hit = entries.get(keyHash);
    if (hit && hit.expires > time) {
      keyCacheRequests.inc({ result: 'hit' });
      return hit.value;
    }
    if (hit) entries.delete(keyHash);
    keyCacheRequests.inc({ result: 'miss' });

    const value = lookup(keyHash);
    // A failed lookup (database down) must not be remembered.
    value.catch(() => {
      if (entries.get(keyHash)?.value === value) entries.delete(keyHash);
    });
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(keyHash, { expires: time + ttlMs, value });
    return value;
  };
}
