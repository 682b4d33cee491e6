import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashApiKey, isWellFormedApiKey } from '../src/domain/api-key.js';
import { keyHashes } from '../src/http/key-hashes.js';

/*
 * The per-app memo of key hashes (src/http/key-hashes.ts) against the rule it saves work on: for any
 * sequence of presented keys, well formed or not, repeated or not, past its bound or within it, it
 * answers what isWellFormedApiKey and hashApiKey answer.
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

describe('keyHashes', () => {
  it('answers as isWellFormedApiKey and hashApiKey for any sequence of keys, within and past its bound', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(wellFormed, malformed), { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (keys, picks, max) => {
        const hashOf = keyHashes(max);
        for (const pick of [0, ...picks]) {
          const key = keys[pick % keys.length];
          expect(hashOf(key)).toBe(isWellFormedApiKey(key) ? hashApiKey(key) : undefined);
        }
      }),
      { numRuns: 300, seed: 49 },
    );
  });
});
