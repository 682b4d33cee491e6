import { describe, expect, it } from 'vitest';
import { MAX_SCOPES, ScopeCache, developersKey, type ScopeView } from '../src/search/scopes.js';

/*
 * The per-snapshot cache of visibility scopes (src/search/scopes.ts): one scope per set of contracted
 * developers, the least recently used out past MAX_SCOPES. The visibility rule itself is held by the
 * search and detail differential tests; this holds the cache's bookkeeping.
 */
const view = (): ScopeView => ({ visible: new Uint8Array(1) });

/** Asks `cache` for the ids' scope; true when it had to be made. */
function made(cache: ScopeCache, ids: readonly number[]): boolean {
  let called = false;
  cache.get(ids, () => {
    called = true;
    return view();
  });
  return called;
}

describe('ScopeCache', () => {
  it('keeps one scope per set of developers, whatever array holds them', () => {
    const cache = new ScopeCache();
    expect(made(cache, [1, 2])).toBe(true);
    expect(made(cache, [1, 2])).toBe(false);
    expect(made(cache, [1, 3])).toBe(true);
    expect(cache.size).toBe(2);
  });

  it('lets the least recently used scope go, counting a scope asked twice in a row as used', () => {
    const cache = new ScopeCache();
    const a = [1];
    const b = [2];
    // A, B, A, B: B is the newest, A the least recently used of the two.
    for (const ids of [a, b, a, b]) made(cache, ids);
    for (let k = 0; k < MAX_SCOPES - 1; k++) made(cache, [100 + k]);
    expect(cache.size).toBe(MAX_SCOPES);
    expect(made(cache, b)).toBe(false);
    expect(made(cache, a)).toBe(true);
  });

  it('keeps a scope asked again before the others, through a run of new ones', () => {
    const cache = new ScopeCache();
    made(cache, [1]);
    for (let k = 0; k < MAX_SCOPES - 1; k++) made(cache, [100 + k]);
    // [1] is the oldest; asked again it is the newest, so the next new scope pushes out [100].
    expect(made(cache, [1])).toBe(false);
    made(cache, [999]);
    expect(made(cache, [1])).toBe(false);
    expect(made(cache, [100])).toBe(true);
  });

  it('names a set of developers by its ids, the same string for the same array', () => {
    const ids = [3, 1, 2];
    expect(developersKey(ids)).toBe('3,1,2');
    expect(developersKey(ids)).toBe(developersKey(ids));
    expect(developersKey([])).toBe('');
  });
});
