import { describe, expect, it } from 'vitest';
import { cachedKeyLookup } from '../src/http/key-cache.js';
import type { KeyRecord } from '../src/queries/api-keys.js';

describe('key lookup cache', () => {
  const record = { id: 1 } as KeyRecord;

  it('serves repeats from memory until the time to live runs out', async () => {
    let calls = 0;
    let time = 0;
    const lookup = cachedKeyLookup(async () => (calls++, record), { ttlMs: 5000, now: () => time });
    await lookup('a');
    await lookup('a');
    expect(calls).toBe(1);
    time = 4999;
    await lookup('a');
    expect(calls).toBe(1);
    time = 5000;
    await lookup('a');
    expect(calls).toBe(2);
  });

  it('lets a revocation show within the time to live', async () => {
    let revoked = false;
    let time = 0;
    const lookup = cachedKeyLookup(async () => (revoked ? undefined : record), { ttlMs: 5000, now: () => time });
    expect(await lookup('a')).toBe(record);
    revoked = true;
    time = 5001;
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
});
