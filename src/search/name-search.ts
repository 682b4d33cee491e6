import type { Snapshot } from './snapshot.js';

/*
 * The `search` filter on a snapshot: which projects' name or developer name (both lower-cased as the
 * database lower-cases, lowerLikeDatabase) contain the term. Every project's name is kept joined in
 * one string per snapshot, each followed by NUL, which no stored text can hold (the import refuses
 * it): one native indexOf over that string finds the matches, where testing every project's string
 * read as many scattered heap objects as there are projects, and its cost grew faster than the
 * catalogue (docs/performance.md). Developer names are few (a dozen for thousands of projects): each
 * distinct one is tested once, and a project matches through its developer's slot. (With them joined
 * in per project the string was 1.6 times as long, and its search grew 5.9 times from L to 4×L where
 * the names alone grow 4.2 times: the longer string no longer fitted the processor's cache.) A term
 * containing NUL matches nothing, as it did per string.
 */
const SEPARATOR = '\u0000';

interface Names {
  text: string;
  /** Project i's name is text.slice(start[i], start[i + 1] - 1). */
  start: Int32Array;
  /** The distinct developer names (lower-cased), and each project's among them. */
  developers: string[];
  developerSlot: Int32Array;
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
    const slots = new Map<string, number>();
    const developerSlot = new Int32Array(count);
    let length = 0;
    for (let i = 0; i < count; i++) {
      start[i] = length;
      parts.push(nameLower[i], SEPARATOR);
      length += nameLower[i].length + 1;
      let slot = slots.get(developerLower[i]);
      if (slot === undefined) slots.set(developerLower[i], (slot = slots.size));
      developerSlot[i] = slot;
    }
    start[count] = length;
    names = { text: parts.join(''), start, developers: [...slots.keys()], developerSlot };
    joined.set(nameLower, names);
  }
  return names;
}

/** 1 for each project (snapshot index) whose name or developer name contains `term` (lower-cased). */
export function projectsNamed(projects: ProjectNames, term: string): Uint8Array {
  const found = new Uint8Array(projects.count);
  if (term === '') return found.fill(1);
  if (term.includes(SEPARATOR)) return found;
  const { text, start, developers, developerSlot } = namesOf(projects);
  const developerMatches = Uint8Array.from(developers, (name) => +name.includes(term));
  if (developerMatches.includes(1)) for (let i = 0; i < found.length; i++) found[i] = developerMatches[developerSlot[i]];
  const count = projects.count;
  let from = 0;
  // The occurrences come in order, so each project is looked for from the one after the last found:
  // galloping forward stays among near positions, where a binary search over all of `start` read a
  // far one at each step (at 20,000 projects, ~15 cache misses an occurrence).
  let low = 0;
  for (;;) {
    const at = text.indexOf(term, from);
    if (at < 0) return found;
    // The project whose name holds position `at`: the last start at or before it (start[low] <= at).
    let step = 1;
    let bound = low + 1;
    while (bound < count && start[bound] <= at) {
      low = bound;
      step *= 2;
      bound = low + step;
    }
    let high = Math.min(bound, count) - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (start[middle] <= at) low = middle;
      else high = middle - 1;
    }
    found[low] = 1;
    // Its other occurrences change nothing: go on from the next project's name.
    from = start[low + 1];
    low += 1;
  }
}
