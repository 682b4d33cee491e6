import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { detailCacheBounds } from '../src/details/detail-cache-budget.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080, host: '0.0.0.0', databaseUrl: undefined, databaseReadUrls: [], databaseReadMaxLagS: undefined, dataDir: './data', staticBaseUrl: undefined, publicBaseUrl: undefined,
      amenitiesRadiusM: undefined, facilityLinkRadiusM: 10000, nearbyInMemory: false, detailCacheMb: 328, heapGrowthPercent: 30, logLevel: 'info', rateLimit: undefined,
      webhooks: { allowPrivateTargets: false, timeoutMs: 10_000, retryBaseMs: 5_000, retryForMs: 72 * 3600_000, worker: true },
      metrics: undefined, shutdownDrainS: 10, shutdownGraceS: 20,
    });
  });

  it('takes HEAP_GROWTH_PERCENT from 0 (V8 chooses) to 100', () => {
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '100' }).heapGrowthPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '15' }).heapGrowthPercent).toBe(15);
  });

  it('keeps the nearby block in memory only when NEARBY_IN_MEMORY is true', () => {
    expect(loadConfig({ NEARBY_IN_MEMORY: 'true' }).nearbyInMemory).toBe(true);
    expect(loadConfig({ NEARBY_IN_MEMORY: 'false' }).nearbyInMemory).toBe(false);
    expect(() => loadConfig({ NEARBY_IN_MEMORY: 'yes please' })).toThrow(ConfigError);
  });

  it('splits DETAIL_CACHE_MB over the detail caches by their shares, within the budget', () => {
    const MB = 1024 * 1024;
    // The default is the bounds the caches had before the budget.
    expect(detailCacheBounds(loadConfig({}).detailCacheMb)).toEqual({
      compressedProjects: 64 * MB, compressedUnits: 32 * MB, identityProjects: 32 * MB, identityUnits: 16 * MB, unitPages: 64 * MB,
      nearbyLinks: 32 * MB, nearbyFull: 64 * MB, nearbySummary: 8 * MB, projectTexts: 16 * MB,
    });
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1024 * 1024, noNaN: true }), (mb) => {
        const bounds = Object.values(detailCacheBounds(loadConfig({ DETAIL_CACHE_MB: String(mb) }).detailCacheMb));
        expect(bounds.every((bytes) => Number.isSafeInteger(bytes) && bytes >= 1)).toBe(true);
        expect(bounds.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThanOrEqual(Math.max(mb * MB, bounds.length));
      }),
    );
    const half = detailCacheBounds(164);
    expect(half.unitPages).toBe(32 * MB);
    expect(half.nearbySummary).toBe(4 * MB);
  });

  it('takes PUBLIC_BASE_URL without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/v1/' }).publicBaseUrl).toBe('https://api.example.com/v1');
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['STATIC_BASE_URL', 'not a url'],
    ['PUBLIC_BASE_URL', 'api.example.com'],
    ['PUBLIC_BASE_URL', 'ftp://api.example.com'],
    ['PUBLIC_BASE_URL', 'https://exa mple.com'],
    ['AMENITIEST_RADIUS', '-5'],
    ['AMENITIEST_RADIUS', 'far'],
    ['FACILITY_LINK_RADIUS_M', '0'],
    ['LOG_LEVEL', 'loud'],
    ['DETAIL_CACHE_MB', '0'],
    ['DETAIL_CACHE_MB', 'lots'],
    ['DETAIL_CACHE_MB', '1e301'],
    ['DETAIL_CACHE_MB', '2000000'],
    ['HEAP_GROWTH_PERCENT', '-1'],
    ['HEAP_GROWTH_PERCENT', '12.5'],
    ['HEAP_GROWTH_PERCENT', 'some'],
    ['HEAP_GROWTH_PERCENT', '101'],
  ])('stops on a bad %s (%s), naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
