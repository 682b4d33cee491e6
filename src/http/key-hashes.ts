import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';

/*
 * The SHA-256 of the keys presented lately, by key. The key cache (key-cache.ts) is keyed by the hash,
 * and hashing a key cost ~2-4 µs of server CPU per request, the largest piece of the service's own
 * work in answering a kept detail body (docs/performance.md, stop 49); an integration presents the same
 * key on every request. Holds at most `max` keys (oldest out): keys that arrive with every request
 * anyway, next to hashes the key cache holds too; a malformed key is never held.
 */
export function keyHashes(max = 256): (key: string) => string | undefined {
  const hashes = new Map<string, string>();
  /** The key's hash, or undefined when the key is not well formed. */
  return (key) => {
    const known = hashes.get(key);
    if (known !== undefined) return known;
    if (!isWellFormedApiKey(key)) return undefined;
    const hash = hashApiKey(key);
    if (hashes.size >= max) hashes.delete(hashes.keys().next().value!);
    hashes.set(key, hash);
    return hash;
  };
}
