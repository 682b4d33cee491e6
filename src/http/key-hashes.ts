import { LRUCache } from 'lru-cache';
import type { ChangeSignal } from '../changes/change-signal.js';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';

/*
 * The SHA-256 of the keys that opened an active key's record lately, by key. The key cache
 * (key-cache.ts) is keyed by the hash, and an integration presents the same key on every request:
 * hashing it again was among the largest pieces of the service's own work in answering a kept detail
 * body (docs/performance.md, "Per-request work kept").
 *
 * What it holds: raw keys, which arrive with every request anyway, but only keys that were found active
 * (`remember` is called after the lookup), so unknown keys can neither be held nor push known ones out;
 * at most `max`, least recently used out; and none past a change signal (a key revoked, deleted or
 * changed anywhere), like the key cache, so a revoked key's text is dropped with the first signal.
 */
export interface KeyHashes {
  /** The key's hash (kept or made now), or undefined when the key is not well formed. */
  of(key: string): string | undefined;
  /** Keep the hash of a key whose record was found active. */
  remember(key: string, hash: string): void;
  /** How many keys are held (tests). */
  readonly size: number;
}

export function keyHashes(options: { max?: number; changes?: Pick<ChangeSignal, 'subscribe'> } = {}): KeyHashes {
  const hashes = new LRUCache<string, string>({ max: options.max ?? 256 });
  options.changes?.subscribe(() => hashes.clear());
  return {
    of(key) {
      const known = hashes.get(key);
      if (known !== undefined) return known;
      return isWellFormedApiKey(key) ? hashApiKey(key) : undefined;
    },
    remember(key, hash) {
      // Most requests present a key already held (and moved up by `of`): nothing to write.
      if (!hashes.has(key)) hashes.set(key, hash);
    },
    get size() {
      return hashes.size;
    },
  };
}
