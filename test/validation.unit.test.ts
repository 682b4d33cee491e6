import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileValidator } from '../src/http/validation.js';

/*
 * The check for values that cannot be stored as sent (src/http/validation.ts, unstorableValue) on a
 * part the schema lets through whole (as a GeoJSON member is): the first such value depth first, in
 * the body's own order, named by its path; a pointer is made only for it. The answers below are the
 * ones the walk gave before it stopped making a pointer for every value it passed.
 */
const anything = compileValidator(Type.Object({}, { additionalProperties: true }), 'body');

describe('request validation: unstorable values, first found depth first', () => {
  it.each([
    [{ 'a/b': { '~': ['ok', 'x\u0000'] } }, 'a/b.~[1] must not contain NUL characters (U+0000)'],
    [{ first: 'ok', second: { deep: [1, 2, { n: 'ok' }, '\ud800'] }, third: 'x\u0000' }, 'second.deep[3] must be valid Unicode (it contains a lone surrogate)'],
    [{ list: [[], {}, [[['\udc00']]]] }, 'list[2][0][0][0] must be valid Unicode (it contains a lone surrogate)'],
    [{ '': { '0': 'a\u0000' } }, '[0] must not contain NUL characters (U+0000)'],
    [{ ok: ['fine', { also: 'fine' }], n: 5, empty: {}, none: [] }, undefined],
  ])('%j: %s', (body, message) => {
    expect(anything(body)).toBe(message);
  });
});
