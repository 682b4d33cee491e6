import { describe, expect, it } from 'vitest';
import { cachedKeyLookup } from '../src/http/key-cache.js';
import type { KeyRecord } from '../src/queries/api-keys.js';

describe('key lookup cache', () => {
  const record = { id: 1 } as KeyRecord;

  it('serves repeats from memory until the time to live runs out', async () => {
    let calls = 0;
    let time = 1_000;
    const lookup = cachedKeyLookup(async () => (calls++, record), { ttlMs: 5000, now: () => time });
    await lookup('a');
    await lookup('a');
    expect(calls).toBe(1);
    // Served while no older than the time to live, looked up again once older.
    time = 6_000;
    await lookup('a');
    expect(calls).toBe(1);
    time = 6_001;
    await lookup('a');
    expect(calls).toBe(2);
    // The new lookup's time counts from now.
    time = 11_001;
    await lookup('a');
    expect(calls).toBe(2);
  });

  it('keeps a record without a time limit when the time to live is Infinity (the embedded database)', async () => {
    let calls = 0;
    let time = 1_000;
    const lookup = cachedKeyLookup(async () => (calls++, record), { ttlMs: Number.POSITIVE_INFINITY, now: () => time });
    await lookup('a');
    time = 1e12;
    await lookup('a');
    expect(calls).toBe(1);
  });

  it('lets a revocation show within the time to live', async () => {
    let revoked = false;
    let time = 1_000;
    const lookup = cachedKeyLookup(async () => (revoked ? undefined : record), { ttlMs: 5000, now: () => time });
    expect(await lookup('a')).toBe(record);
    revoked = true;
    time = 6_001;
    expect(await lookup('a')).toBeUndefined();
  });

  it('does not remember failures', async () => {
    let fail = true;
    const lookup = cachedKeyLookup(async () => {
      if (fail) throw new Error('down');
      return record;
    }, { ttlMs: 5000 });
    await expect(lookup('a')).rejects.toThrow('down');
    await new Promise((resolve) => setImmediate(resolve));
    fail = false;
    expect(await lookup('a')).toBe(record);
  });

  it('stays within its size bound', async () => {
    let calls = 0;
    const lookup = cachedKeyLookup(async () => (calls++, record), { ttlMs: 5000, maxEntries: 2 });
    await lookup('a');
    await lookup('b');
    await lookup('c');
    await lookup('a');
    expect(calls).toBe(4);
  });

  it('keeps the keys used most recently when full', async () => {
    const asked: string[] = [];
    const lookup = cachedKeyLookup(async (hash) => (asked.push(hash), record), { ttlMs: 5000, maxEntries: 2 });
    await lookup('a');
    await lookup('b');
    await lookup('a');
    // 'b' is the least recently used: it goes, 'a' stays.
    await lookup('c');
    await lookup('a');
    expect(asked).toEqual(['a', 'b', 'c']);
    await lookup('b');
    expect(asked).toEqual(['a', 'b', 'c', 'b']);
  });
});
