import { resultCacheRequests } from '../metrics/instruments.js';
import { LRUCache } from 'lru-cache';
import type { LngLatShape } from '../domain/geo.js';
import type { ProjectsPage } from '../domain/project-filters.js';
import type { ProjectFacets } from '../contract/schemas/projects.js';
import type { Matches } from './matches.js';
import { developersKey } from './scopes.js';
import { perObject } from '../lib/per-object.js';

/*
 * Results of GET /projects searches, per snapshot: what a search found (every matching project, in
 * the order asked for, and the facet counts) under a key naming everything that decides it, so that
 * the same search asked again, for any page, is a slice of a list instead of a pass over the units.
 * Search engines keep the same kind of cache for the same reason (Solr's queryResultCache,
 * Elasticsearch's shard request cache): result pages, filter panels and "next page" links repeat the
 * same searches, and a catalogue that changes only by import keeps them valid until the next import.
 *
 * Valid by construction: the cache belongs to one snapshot (a new snapshot starts empty), and its key
 * holds the visibility scope, the price vector, every filter, the sort, the facets asked for and the
 * amenities radius. Paging (limit, offset) is not in the key: it is applied to the cached list.
 *
 * Measured (docs/performance.md, "Search result cache"): on L, a cached search costs the HTTP
 * request and the page's items; a search seen for the first time costs the full pass.
 * Bounded by entries and bytes, least recently used first out; a result is kept from the second time
 * its search is asked (see `seen`).
 */
export interface FoundList {
  /** The matching projects, in the page order. */
  matches: Matches;
  facets?: ProjectFacets;
  /**
   * The route's serialized response with an empty items array: its total and facets are the same for
   * every page, so it is serialized once and the page's items are spliced into it (a hit then costs
   * no serialization at all: the facet counts are ~100 objects).
   */
  rendered?: string;
}

/*
 * What is worked out from a search's result and is the same for every request asking it again (a page
 * with `match=true`, the clusters at a zoom, an MCP tool's parsed page, the hash of a page's body for
 * its ETag): kept with the result, under a name that says what it is and everything else it depends
 * on. The result's key holds the scope, the key's prices, the currency and every filter. Weakly held:
 * it goes with the result when the cache drops it or the snapshot is replaced; a result that was never
 * kept keeps nothing for long. Each shelf has its own bound, so that many small things of one kind
 * (the body hashes of every page asked) do not crowd out another (the clusters at each zoom).
 */
/** The shelves: what pages and views make (match pages, clusters, MCP pages), and the pages' body hashes. */
export type Shelf = 'views' | 'body hashes';
const shelves = new Map<Shelf, WeakMap<FoundList, Map<string, unknown>>>();
/** Per result and shelf: the first few pages and views asked are the ones asked again. */
const DERIVED_PER_RESULT = 32;

/** `make()` for the result `found` under `name` (on `shelf`), made once while the result is kept. */
export function derivedOnce<T>(found: FoundList, name: string, make: () => T, shelf: Shelf = 'views'): T {
  let derived = shelves.get(shelf);
  if (!derived) shelves.set(shelf, (derived = new WeakMap()));
  let kept = derived.get(found);
  if (!kept) derived.set(found, (kept = new Map()));
  if (kept.has(name)) return kept.get(name) as T;
  const value = make();
  if (kept.size < DERIVED_PER_RESULT) kept.set(name, value);
  return value;
}

/** At most this many searches per snapshot... */
export const RESULT_CACHE_ENTRIES = 2_000;
/** ...and at most this many bytes of them (a list of every L project is ~17 kB); scripts/search-model-size.ts weighs it when full. */
export const RESULT_CACHE_BYTES = 8 * 1024 * 1024;

/** Keys of searches seen once (the doorkeeper below): at most this many bytes of them (~13,000 typical keys). */
export const RESULT_CACHE_SEEN_BYTES = 4 * 1024 * 1024;

export class ResultCache {
  private readonly lists: LRUCache<string, FoundList>;

  constructor(entries = RESULT_CACHE_ENTRIES, bytes = RESULT_CACHE_BYTES) {
    this.lists = new LRUCache<string, FoundList>({
      max: entries,
      maxSize: bytes,
      // The matches (their bytes and list at most: matches.ts), the key (two bytes per UTF-16 unit) and the facet counts (measured: ~4 kB of objects
      // for six facets on L; scripts/search-model-size.ts fills the cache and weighs it), and the
      // rendered envelope (a few hundred bytes, ~2 kB with six facets).
      sizeCalculation: (found, key) => found.matches.weight + key.length * 2 + (found.facets ? 4_096 : 0) + 1_024,
    });
  }

  /**
   * Searches seen once, by key only: a result is kept from its second sighting on (the "doorkeeper"
   * of TinyLFU caches such as Caffeine). Searches asked only once (a crawler's, a slider dragged
   * through every price) then neither push out the repeated ones nor churn the heap with lists nobody
   * reads again: with every search kept, the bench's never-repeated scenarios raised the service's
   * peak RSS by ~50 MB.
   */
  private readonly seen = new LRUCache<string, true>({
    max: 2 * RESULT_CACHE_ENTRIES,
    // Keys are bounded in bytes too: a drawn shape's key is up to ~40 kB (1,000 vertices), and 4,000
    // such searches asked once would otherwise hold ~150 MB of keys.
    maxSize: RESULT_CACHE_SEEN_BYTES,
    sizeCalculation: (_seen, key) => key.length * 2 + 64,
  });

  get(key: string): FoundList | undefined {
    const found = this.lists.get(key);
    resultCacheRequests.count(found ? 'hit' : 'miss');
    return found;
  }

  /** A search just worked out: kept when it was seen before, else only noted. */
  offer(key: string, found: FoundList): void {
    if (this.seen.has(key)) {
      this.seen.delete(key);
      // The full list now (the next ask would make it): its weight is then what the entry holds for
      // as long as it is kept (the size is taken once, here), without the bytes it was made from.
      found.matches.all();
      this.lists.set(key, found);
    } else {
      this.seen.set(key, true);
    }
  }

  get size(): number {
    return this.lists.size;
  }

  /** Bytes of the keys seen once, as counted against RESULT_CACHE_SEEN_BYTES (tests). */
  get seenBytes(): number {
    return this.seen.calculatedSize;
  }
}

/**
 * The key of a search: everything that decides its list and counts, nothing of the page. The filters
 * are the parsed ones (so `bedrooms=2,3` and `bedrooms=3,2` may differ in text yet be cached apart, never
 * confused: a key is only ever equal for equal parsed filters).
 */
export function searchKey(
  developerIds: readonly number[],
  priceVector: number,
  page: Pick<ProjectsPage, 'filters' | 'sort' | 'facets'>,
  amenitiesRadiusM: number | undefined,
  currency?: string,
): string {
  // A drawn shape by its key, written once per shape (its hundreds of coordinates were most of the key's cost).
  const { polygon, ...filters } = page.filters;
  const key = [developersKey(developerIds), priceVector, amenitiesRadiusM ?? null, page.sort, page.facets, filters, polygon ? shapeKey(polygon) : null];
  // `currency=` changes the matches of price bounds, and the prices and codes of every page: what is kept
  // with a result (derivedOnce: match pages, body hashes) relies on the key holding everything a page's
  // body depends on besides the page itself (offset, limit, match, fields), so it is in the key always.
  return JSON.stringify(currency === undefined ? key : [...key, currency]);
}

/** JSON of a drawn shape, once per shape object (a shape asked again is the same object: src/contract/parsed-shapes.ts). */
const shapeKey = perObject((shape: LngLatShape) => JSON.stringify(shape));
