import { DEFAULT_DETAIL_CACHE_MB } from '../config/config.js';

/*
 * One memory budget for what the detail routes keep per snapshot (DETAIL_CACHE_MB): compressed and
 * identity bodies (compressed-once.ts), unit pages (unit-detail-body.ts), the nearby block's links and
 * facility texts (nearby-on-demand.ts) and the project envelopes (project-detail-body.ts). Each cache is
 * bounded by its share of the budget, so the operator sets one number against the process's memory and
 * the caches' bounds add up to it (the process also holds the snapshot itself and the bodies in
 * flight). A smaller budget costs throughput where a cache no longer holds what is asked again
 * (docs/performance.md, "Detail caches under one budget"); nothing it keeps changes an answer.
 *
 * The shares (MB of the default 328) are chosen by what L needs: all of L's unit pages, the bench's
 * 500 projects' facility texts and their Brotli bodies (docs/performance.md, "Memory").
 */

const SHARES = {
  /** Brotli or gzip bodies of GET /projects/{id}. */
  compressedProjects: 64,
  /** Brotli or gzip bodies of GET /units/{id}. */
  compressedUnits: 32,
  /** Identity bodies of GET /projects/{id} up to 256 kB (a lean page), for clients taking no compression. */
  identityProjects: 32,
  identityUnits: 16,
  /** Every unit of a project, prepared (GET /units/{id}). */
  unitPages: 64,
  /** Each project's nearby links (facility id, distance, its text). */
  nearbyLinks: 32,
  /** Each nearby facility's text in the full form, and in the summary form. */
  nearbyFull: 64,
  nearbySummary: 8,
  /** Each project's envelope (everything but the nearby block), per price vector and currency. */
  projectTexts: 16,
} as const;

export type DetailCache = keyof typeof SHARES;
export type DetailCacheBounds = Readonly<Record<DetailCache, number>>;

/** The shares are MB of the default budget, so at the default each cache keeps the bound it had. */
const SHARES_TOTAL = Object.values(SHARES).reduce((sum, mb) => sum + mb, 0);

/**
 * Each cache's bound in bytes for a budget of `totalMb`: its share, rounded down (the sum never exceeds
 * the budget), and at least 1 byte (lru-cache takes positive integers only; 1 byte keeps nothing).
 */
export function detailCacheBounds(totalMb: number = DEFAULT_DETAIL_CACHE_MB): DetailCacheBounds {
  const total = totalMb * 1024 * 1024;
  const bounds = {} as Record<DetailCache, number>;
  for (const [cache, mb] of Object.entries(SHARES) as [DetailCache, number][]) bounds[cache] = Math.max(1, Math.floor((total * mb) / SHARES_TOTAL));
  return bounds;
}
