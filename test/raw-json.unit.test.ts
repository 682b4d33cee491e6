import { describe, expect, it } from 'vitest';
import { EMPTY_NEARBY_FACILITIES, nearbyFacilitiesJsonParts } from '../src/contract/nearby-facilities.js';
import { RawJsonError, spliceRawProperty } from '../src/contract/json-splice.js';

describe('spliceRawProperty', () => {
  const placeholder = { a: [], b: [] };

  it('replaces the placeholder value of the property with the raw text', () => {
    const serialized = JSON.stringify({ status: 'success', data: { id: 1, block: placeholder, after: true } });
    const out = spliceRawProperty(serialized, 'block', placeholder, ['{"a":[1],', '"b":[{"x":"y"}]}']).join('');
    expect(JSON.parse(out)).toEqual({ status: 'success', data: { id: 1, block: { a: [1], b: [{ x: 'y' }] }, after: true } });
  });

  it('is not fooled by the same text inside a string value (quotes there are escaped)', () => {
    const payload = { note: '"block":{"a":[],"b":[]}', block: placeholder };
    const out = spliceRawProperty(JSON.stringify(payload), 'block', placeholder, ['1']).join('');
    expect(JSON.parse(out)).toEqual({ note: '"block":{"a":[],"b":[]}', block: 1 });
  });

  it('fails loudly when the property is missing or appears twice', () => {
    expect(() => spliceRawProperty(JSON.stringify({ other: placeholder }), 'block', placeholder, ['1'])).toThrow(RawJsonError);
    const twice = JSON.stringify({ x: { block: placeholder }, y: { block: placeholder } });
    expect(() => spliceRawProperty(twice, 'block', placeholder, ['1'])).toThrow(RawJsonError);
  });
});

describe('nearbyFacilitiesJsonParts', () => {
  it('puts every category in the schema order, missing ones as [], each category\u2019s entries as given', () => {
    const text = nearbyFacilitiesJsonParts([
      { category: 'transport', entries_json: '{"distance":12.5,"facility":{"source_id":"T1","name":"Metro"}},{"distance":40.25,"facility":{"source_id":"T2"}}' },
      { category: 'education', entries_json: '{"distance":3,"facility":{"source_id":"S1"}}' },
    ]).join('');
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(Object.keys(EMPTY_NEARBY_FACILITIES));
    expect(parsed.transport).toEqual([
      { distance: 12.5, facility: { source_id: 'T1', name: 'Metro' } },
      { distance: 40.25, facility: { source_id: 'T2' } },
    ]);
    expect(parsed.education).toEqual([{ distance: 3, facility: { source_id: 'S1' } }]);
    expect(parsed.retail).toEqual([]);
    expect(nearbyFacilitiesJsonParts([]).join('')).toBe(JSON.stringify(EMPTY_NEARBY_FACILITIES));
  });
});
