import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayPrefix, extractApiKey, generateApiKey, hashApiKey, isWellFormedApiKey } from '../src/domain/api-key.js';
import { isOriginAllowed, requestHost } from '../src/domain/origin.js';
import { isValidPriceVector, priceFactor } from '../src/domain/pricing.js';
import { ConfigError, loadConfig } from '../src/config.js';

describe('api keys', () => {
  it('generates ck_ + 64 lowercase hex from a secure source, never twice the same', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^ck_[0-9a-f]{64}$/);
  });

  it('hashes with SHA-256 and shows only a prefix', () => {
    const key = `ck_${'ab'.repeat(32)}`;
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toBe(hashApiKey(`ck_${'ba'.repeat(32)}`));
    expect(displayPrefix(key)).toBe('ck_ababab');
  });

  it('checks the format strictly', () => {
    expect(isWellFormedApiKey(`ck_${'a'.repeat(64)}`)).toBe(true);
    expect(isWellFormedApiKey(`ck_${'a'.repeat(63)}`)).toBe(false);
    expect(isWellFormedApiKey(`ck_${'a'.repeat(65)}`)).toBe(false);
    expect(isWellFormedApiKey(`CK_${'a'.repeat(64)}`)).toBe(false);
    expect(isWellFormedApiKey(`ck_${'g'.repeat(64)}`)).toBe(false);
  });

  it('reads Bearer, bare Authorization, then X-API-Key', () => {
    expect(extractApiKey('Bearer k1', 'k2')).toBe('k1');
    expect(extractApiKey('k1', 'k2')).toBe('k1');
    expect(extractApiKey('Basic abc', 'k2')).toBe('k2');
    expect(extractApiKey('Token abc', undefined)).toBeUndefined();
    expect(extractApiKey('Bearer ', 'k2')).toBe('k2');
    expect(extractApiKey(undefined, ' k2 ')).toBe('k2');
    expect(extractApiKey(undefined, undefined)).toBeUndefined();
  });
});

describe('origin check', () => {
  it('takes the host of Origin, else of Referer', () => {
    expect(requestHost('https://a.ae:8443', 'https://b.ae/x')).toBe('a.ae');
    expect(requestHost(undefined, 'https://b.ae/x?y=1')).toBe('b.ae');
    expect(requestHost('https://user:pw@evil.com', undefined)).toBe('evil.com');
    expect(requestHost('null', undefined)).toBeUndefined();
    expect(requestHost(undefined, undefined)).toBeUndefined();
  });

  it('matches listed domains exactly, without wildcards', () => {
    expect(isOriginAllowed(null, undefined, undefined)).toBe(true);
    expect(isOriginAllowed([], undefined, undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], 'https://agency.ae', undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], 'https://www.agency.ae', undefined)).toBe(false);
    expect(isOriginAllowed(['*.agency.ae'], 'https://www.agency.ae', undefined)).toBe(false);
    expect(isOriginAllowed(['agency.ae'], 'https://agency.ae.', undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], undefined, undefined)).toBe(false);
  });
});

describe('price factor', () => {
  it('is 1 + price_vector/100 without float noise', () => {
    expect(priceFactor(0)).toBe(1);
    expect(priceFactor(12.5)).toBe(1.125);
    expect(priceFactor(7.1)).toBe(1.071);
    expect(priceFactor(-7.3)).toBe(0.927);
    expect(priceFactor(100)).toBe(2);
  });

  it('accepts vectors greater than -100 and at most 100', () => {
    expect(isValidPriceVector(-100)).toBe(false);
    expect(isValidPriceVector(-99.99)).toBe(true);
    expect(isValidPriceVector(100)).toBe(true);
    expect(isValidPriceVector(100.01)).toBe(false);
    expect(isValidPriceVector(Number.NaN)).toBe(false);
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080, host: '0.0.0.0', databaseUrl: undefined, databaseReadUrls: [], databaseReadMaxLagS: undefined, dataDir: './data', staticBaseUrl: undefined, publicBaseUrl: undefined,
      amenitiesRadiusM: undefined, facilityLinkRadiusM: 10000, logLevel: 'info',
    });
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
