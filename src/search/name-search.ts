import type { Snapshot } from './snapshot.js';

/*
 * The `search` filter on a snapshot: which projects' name or developer name (both lower-cased as the
 * database lower-cases, lowerLikeDatabase) contain the term. Every project's two names are kept joined
 * in one string per snapshot, each followed by NUL, which no stored text can hold (the import refuses
 * it): one native indexOf over that string finds the matches, where testing every project's two
 * strings read as many scattered heap objects as there are projects, and its cost grew faster than the
 * catalogue (docs/performance.md). A term containing NUL matches nothing, as it did per string.
 */
const SEPARATOR = '\u0000';

interface Names {
  text: string;
  /** Project i's names are text.slice(start[i], start[i + 1]). */
  start: Int32Array;
}

/** What the filter reads of a snapshot's projects. */
export type ProjectNames = Pick<Snapshot['projects'], 'nameLower' | 'developerLower' | 'count'>;

/** Kept per snapshot (by its name column, which is the snapshot's own). */
const joined = new WeakMap<string[], Names>();

function namesOf(projects: ProjectNames): Names {
  let names = joined.get(projects.nameLower);
  if (!names) {
    const { nameLower, developerLower, count } = projects;
    const parts: string[] = [];
    const start = new Int32Array(count + 1);
    let length = 0;
    for (let i = 0; i < count; i++) {
      start[i] = length;
      parts.push(nameLower[i], SEPARATOR, developerLower[i], SEPARATOR);
      length += nameLower[i].length + developerLower[i].length + 2;
    }
    start[count] = length;
    names = { text: parts.join(''), start };
    joined.set(nameLower, names);
  }
  return names;
}

/** 1 for each project (snapshot index) whose name or developer name contains `term` (lower-cased). */
export function projectsNamed(projects: ProjectNames, term: string): Uint8Array {
  const found = new Uint8Array(projects.count);
  if (term === '') return found.fill(1);
  if (term.includes(SEPARATOR)) return found;
  const { text, start } = namesOf(projects);
  let from = 0;
  for (;;) {
    const at = text.indexOf(term, from);
    if (at < 0) return found;
    // The project whose names hold position `at`: the last start at or before it.
    let low = 0;
    let high = start.length - 2;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (start[middle] <= at) low = middle;
      else high = middle - 1;
    }
    found[low] = 1;
    // Its other occurrences change nothing: go on from the next project's names.
    from = start[low + 1];
  }
}
