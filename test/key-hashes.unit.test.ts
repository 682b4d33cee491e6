import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashApiKey, isWellFormedApiKey } from '../src/domain/api-key.js';
import { keyHashes } from '../src/http/key-hashes.js';
import type { Change } from '../src/changes/change-kinds.js';

/*
 * The per-app memo of key hashes (src/http/key-hashes.ts): it answers what isWellFormedApiKey and
 * hashApiKey answer, for any sequence of keys, and holds only keys remembered after their record was
 * found, at most `max` of them, none past a change signal.
 */
const hex = fc.constantFrom(...'0123456789abcdef');
const randomKey = fc.array(hex, { minLength: 64, maxLength: 64 }).map((digits) => `ck_${digits.join('')}`);
// Keys one digit apart (anywhere), so that a memo reading part of a key would answer for another.
const base = 'ck_' + '0123456789abcdef'.repeat(4);
const wellFormed = fc.oneof(randomKey, fc.tuple(fc.integer({ min: 3, max: 66 }), hex).map(([at, digit]) => base.slice(0, at) + digit + base.slice(at + 1)));
// Near misses: a digit too many or too few, upper case, another prefix, spaces around.
const malformed = fc.oneof(
  wellFormed.map((key) => `${key}0`),
  wellFormed.map((key) => key.slice(0, -1)),
  wellFormed.map((key) => key.toUpperCase()),
  wellFormed.map((key) => `xk${key.slice(2)}`),
  wellFormed.map((key) => ` ${key}`),
  fc.string(),
);

/** A change signal the test fires itself (an access change: a key written somewhere). */
function signal() {
  const listeners: ((change: Change) => void)[] = [];
  return {
    subscribe(listener: (change: Change) => void) {
      listeners.push(listener);
      return () => {};
    },
    fire: () => listeners.forEach((listener) => listener({ kind: 'access' })),
  };
}

describe('keyHashes', () => {
  it('answers as isWellFormedApiKey and hashApiKey for any sequence of keys, remembered or not, within and past its bound', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(wellFormed, malformed), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.boolean()), { maxLength: 200 }),
        fc.integer({ min: 1, max: 8 }),
        (keys, steps, max) => {
          const changes = signal();
          const hashes = keyHashes({ max, changes });
          for (const [pick, found, change] of steps) {
            const key = keys[pick % keys.length];
            const hash = hashes.of(key);
            expect(hash).toBe(isWellFormedApiKey(key) ? hashApiKey(key) : undefined);
            // As authenticate does: remembered once the key's record was found (a well-formed key only).
            if (hash !== undefined && found) hashes.remember(key, hash);
            if (change) changes.fire();
            expect(hashes.size).toBeLessThanOrEqual(max);
          }
        },
      ),
      { numRuns: 300, seed: 49 },
    );
  });

  it('holds no key it was only asked about, at most max remembered, the least recently used out, none after a change signal', () => {
    const changes = signal();
    const hashes = keyHashes({ max: 2, changes });
    const [a, b, c] = ['a', 'b', 'c'].map((digit) => `ck_${digit.repeat(64)}`);
    for (const key of [a, b, c, 'ck_short']) hashes.of(key);
    expect(hashes.size).toBe(0);
    hashes.remember(a, hashApiKey(a));
    hashes.remember(b, hashApiKey(b));
    // a asked again: b is now the least recently used, and goes when c comes.
    expect(hashes.of(a)).toBe(hashApiKey(a));
    hashes.remember(c, hashApiKey(c));
    expect(hashes.size).toBe(2);
    // A key held is never written again; one let go is taken anew: b (with a marker) was let go, c is held.
    hashes.remember(b, 'marker');
    expect(hashes.of(b)).toBe('marker');
    hashes.remember(c, 'marker');
    expect(hashes.of(c)).toBe(hashApiKey(c));
    changes.fire();
    expect(hashes.size).toBe(0);
  });
});
