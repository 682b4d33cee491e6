import { LRUCache } from 'lru-cache';
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
  /** Milliseconds, an integer; Infinity: no time limit (the embedded database's, src/service/server.ts). */
  ttlMs: number;
  changes?: Pick<ChangeSignal, 'subscribe' | 'listening'>;
  maxEntries?: number;
  /** The clock the time to live is read on (tests move it by hand; lru-cache takes a start at 0 as none, so a test clock starts above 0). */
  now?: () => number;
}

export function cachedKeyLookup(lookup: KeyLookup, options: KeyCacheOptions): KeyLookup {
  const { ttlMs, changes, maxEntries = 10_000, now = () => performance.now() } = options;
  // Least recently used out at the bound; ttl 0 is lru-cache's none. ttlResolution 0: the clock is read on each get, not kept for
  // a millisecond by a timer (lru-cache's default), so an entry is stale the moment its time is up.
  const entries = new LRUCache<string, { value: ReturnType<KeyLookup> }>({ max: maxEntries, ttl: Number.isFinite(ttlMs) ? ttlMs : 0, ttlResolution: 0, perf: { now } });
  // In-flight lookups go too: one that started before the change may have read the state before it.
  changes?.subscribe(() => entries.clear());

  return (keyHash) => {
    if (changes && !changes.listening) {
      keyCacheRequests.count('bypass');
      return lookup(keyHash);
    }
    const hit = entries.get(keyHash);
    if (hit) {
      keyCacheRequests.count('hit');
      return hit.value;
    }
    keyCacheRequests.count('miss');

    const value = lookup(keyHash);
    const entry = { value };
    // A failed lookup (database down) must not be remembered.
    value.catch(() => {
      if (entries.peek(keyHash) === entry) entries.delete(keyHash);
    });
    entries.set(keyHash, entry);
    return value;
  };
}
