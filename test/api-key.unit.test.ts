import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayPrefix, extractApiKey, generateApiKey, hashApiKey, isWellFormedApiKey } from '../src/domain/api-key.js';

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
