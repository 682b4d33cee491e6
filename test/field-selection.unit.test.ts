import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFields, selectionKey } from '../src/contract/field-selection.js';

/*
 * `fields` parsing (src/contract/field-selection.ts) keeps each list's selections by their raw text:
 * a kept answer must be what a fresh parse gives, a refused text refused every time, and the
 * selection's key the same for every order and repeat of the same names.
 */

const KNOWN = Object.freeze(['id', 'name', 'media', 'units', 'nearby_facilities']);

/** The rule, written plainly: trimmed names, empties dropped, at least one, every one known. */
function reference(raw: string, known: readonly string[]): { names: string[] } | { error: string } {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) return { error: 'fields must name at least one property' };
  const unknown = [...new Set(names.filter((name) => !known.includes(name)))];
  if (unknown.length > 0) return { error: `fields has unknown names: ${unknown.join(', ')} (known: ${known.join(', ')})` };
  return { names: [...new Set(names)].sort() };
}

function parsed(raw: string, known: readonly string[]): { names: string[] } | { error: string } {
  try {
    return { names: [...parseFields(raw, known)!].sort() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('fields parsing', () => {
  it('answers a text asked again as a fresh parse does, refusals included (random texts, more than the kept ones)', () => {
    const name = fc.constantFrom('id', 'name', 'media', 'units', 'nearby_facilities', 'bogus', '', ' name ', 'Units');
    const raw = fc.array(name, { maxLength: 6 }).map((names) => names.join(','));
    fc.assert(
      fc.property(fc.array(raw, { minLength: 1, maxLength: 40 }), (texts) => {
        // Each text twice: once parsed, once (maybe) from what was kept.
        for (const text of [...texts, ...texts]) expect(parsed(text, KNOWN), JSON.stringify(text)).toEqual(reference(text, KNOWN));
      }),
      { numRuns: 300, seed: 47 },
    );
  });

  it('keeps one selection per text and list, and starts again past its bound', () => {
    const first = parseFields('name,units', KNOWN);
    expect(parseFields('name,units', KNOWN)).toBe(first);
    // Another list of names keeps its own.
    const other = Object.freeze(['name', 'units']);
    expect(parseFields('name,units', other)).not.toBe(first);
    // Past its bound the map starts again: the first text is parsed anew (another set, the same names).
    for (let i = 0; i < 600; i++) parseFields(`name,${' '.repeat(i)}units`, KNOWN);
    const again = parseFields('name,units', KNOWN)!;
    expect(again).not.toBe(first);
    expect([...again].sort()).toEqual(['name', 'units']);
  });

  it('refuses a bad text every time it is asked', () => {
    for (let i = 0; i < 3; i++) expect(() => parseFields('name,bogus', KNOWN)).toThrow('fields has unknown names: bogus');
    for (let i = 0; i < 3; i++) expect(() => parseFields(' , ', KNOWN)).toThrow('fields must name at least one property');
  });

  it('gives one key for every order and repeat of the same names', () => {
    const a = selectionKey(parseFields('units,name', KNOWN)!);
    const b = selectionKey(parseFields('name, units,name', KNOWN)!);
    expect(a).toBe('name,units');
    expect(b).toBe(a);
    expect(selectionKey(parseFields('name', KNOWN)!)).toBe('name');
  });
});
