import { LRUCache } from 'lru-cache';
import { perObject } from '../lib/per-object.js';

/*
 * What one visibility scope (a key's contracted developers) sees of a snapshot, worked out once per
 * snapshot and kept for the next request of any key with the same contracts: the visible projects,
 * and the whole GET /projects/list and GET /companies item arrays as JSON text. Bounded: the least
 * recently used scope goes when more than MAX_SCOPES are held (each costs about one byte per project
 * plus the two texts, ~0.5 MB on the L catalogue with every developer contracted).
 */
export const MAX_SCOPES = 64;

/** What one KeyScope (src/domain/key-scope.ts) sees of a snapshot; keyed by its contracted developers alone. */
export interface ScopeView {
  /** 1 for each visible project index. */
  visible: Uint8Array;
  /** JSON text of the items of GET /projects/list and GET /companies, made on first use. */
  flatList?: string;
  companies?: string;
}

/**
 * A key's contracted developers as one string: the scopes' key, and the search results' (result-cache.ts).
 * Once per array: the key cache (src/http/key-cache.ts) hands every request of a key the same record,
 * so its requests do not join the ids again.
 */
export const developersKey = perObject((developerIds: readonly number[]): string => developerIds.join(','));

export class ScopeCache {
  // lru-cache moves an entry up on get() in place; the least recently used goes past MAX_SCOPES.
  private readonly scopes = new LRUCache<string, ScopeView>({ max: MAX_SCOPES });

  get(developerIds: readonly number[], make: () => ScopeView): ScopeView {
    const key = developersKey(developerIds);
    const found = this.scopes.get(key);
    if (found) return found;
    const scope = make();
    this.scopes.set(key, scope);
    return scope;
  }

  get size(): number {
    return this.scopes.size;
  }
}
