import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectsNamed } from '../src/search/name-search.js';

/*
 * The `search` filter's lookup in the joined names (src/search/name-search.ts: a scan for terms of one or
 * two code units, the trigram index for longer ones) against the rule it replaced, one project at a
 * time: the name or the developer name contains the term. Terms straddling a name and the next text, at
 * the very start and end, repeated and overlapping within one project (a small alphabet: "aaaa" holds
 * "aaa" twice), up to 14 code units (covers of one to five trigrams, the last overlapping), with a
 * character of two code units, empty, with NUL; up to 60 projects, so that the forward gallop from one
 * occurrence's project to the next takes long strides.
 */
const reference = (names: string[], developers: string[], term: string) => names.map((name, i) => (name.includes(term) || developers[i].includes(term) ? 1 : 0));

describe('projectsNamed', () => {
  it('finds what includes() finds on each name, for random names and terms cut from them', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', 'ß', '%', '😀'), maxLength: 16 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 60 }), fc.nat(), fc.nat(), fc.nat(14), (pairs, from, pick, length) => {
        const names = pairs.map(([name]) => name);
        const developers = pairs.map(([, developer]) => developer);
        const all = pairs.flat().join('');
        // Mostly a piece of the joined texts: across a boundary it must not match unless one name holds it.
        const term = all.slice(from % (all.length + 1), (from % (all.length + 1)) + length) || (pick % 2 ? 'a' : '');
        const projects = { nameLower: names, developerLower: developers, count: names.length };
        expect(Array.from(projectsNamed(projects, term)), JSON.stringify({ pairs, term })).toEqual(reference(names, developers, term));
      }),
      { numRuns: 4_000 },
    );
  });

  it('matches across no boundary, and nothing with NUL in the term', () => {
    const projects = { nameLower: ['sun', 'tower'], developerLower: ['set', 'emaar'], count: 2 };
    expect(Array.from(projectsNamed(projects, 'sunset'))).toEqual([0, 0]);
    expect(Array.from(projectsNamed(projects, 'rem'))).toEqual([0, 0]);
    expect(Array.from(projectsNamed(projects, 'r'))).toEqual([0, 1]);
    expect(Array.from(projectsNamed(projects, 'sun\u0000set'))).toEqual([0, 0]);
    expect(Array.from(projectsNamed(projects, ''))).toEqual([1, 1]);
  });
});
