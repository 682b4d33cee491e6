import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080, host: '0.0.0.0', databaseUrl: undefined, databaseReadUrls: [], databaseReadMaxLagS: undefined, dataDir: './data', staticBaseUrl: undefined, publicBaseUrl: undefined,
      amenitiesRadiusM: undefined, facilityLinkRadiusM: 10000, nearbyInMemory: false, logLevel: 'info', rateLimit: undefined,
      webhooks: { allowPrivateTargets: false, timeoutMs: 10_000, retryBaseMs: 5_000, retryForMs: 72 * 3600_000, worker: true },
      metrics: undefined, shutdownDrainS: 10, shutdownGraceS: 20,
    });
  });

  it('keeps the nearby block in memory only when NEARBY_IN_MEMORY is true', () => {
    expect(loadConfig({ NEARBY_IN_MEMORY: 'true' }).nearbyInMemory).toBe(true);
    expect(loadConfig({ NEARBY_IN_MEMORY: 'false' }).nearbyInMemory).toBe(false);
    expect(() => loadConfig({ NEARBY_IN_MEMORY: 'yes please' })).toThrow(ConfigError);
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
  ])('stops on a bad %s (%s), naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
