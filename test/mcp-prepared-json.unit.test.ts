import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyPrepared, withPreparedJson } from '../src/http/mcp/prepared-json.js';

/*
 * stringifyPrepared (the MCP answer's serializer, which writes a search page's items as their prepared
 * text) against JSON.stringify, the reference, over random JSON values where random objects and arrays
 * carry their own JSON text, including strings that look like the placeholder.
 */

const lookalike = fc.constantFrom('\u0000prepared-json-', '\u0000prepared-json-00-0', '"\u0000', '\\u0000prepared');
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), lookalike, tie('object'), tie('array')),
  object: fc.dictionary(fc.oneof(fc.string(), lookalike), tie('value'), { maxKeys: 4 }),
  array: fc.array(tie('value'), { maxLength: 4 }),
})).value;

/** Registers the JSON text of every object and array `pick` chooses, deepest first. */
function prepare(value: unknown, pick: () => boolean): number {
  if (typeof value !== 'object' || value === null) return 0;
  let registered = 0;
  for (const item of Object.values(value)) registered += prepare(item, pick);
  if (pick()) {
    withPreparedJson(value, JSON.stringify(value));
    registered += 1;
  }
  return registered;
}

describe('stringifyPrepared', () => {
  it('writes what JSON.stringify writes, whichever objects carry their prepared text', () => {
    let withPrepared = 0;
    fc.assert(
      fc.property(value, fc.infiniteStream(fc.boolean()), (input, picks) => {
        const expected = JSON.stringify(input);
        const iterator = picks[Symbol.iterator]();
        if (prepare(input, () => iterator.next().value === true) > 0) withPrepared += 1;
        expect(stringifyPrepared(input)).toBe(expected);
      }),
      { seed: 20261126, numRuns: 500 },
    );
    expect(withPrepared).toBeGreaterThan(100);
  });

  it('uses the registered text as it is (not the object serialized again)', () => {
    const items = withPreparedJson([{ id: 1, price: 1.5 }], '[ {"id":1,"price":1.50} ]');
    expect(stringifyPrepared({ result: { structuredContent: { items }, text: 'x' }, id: 7 })).toBe('{"result":{"structuredContent":{"items":[ {"id":1,"price":1.50} ]},"text":"x"},"id":7}');
  });
});
