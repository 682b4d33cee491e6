import type { Snapshot } from './snapshot.js';
import { perObject } from '../lib/per-object.js';

/*
 * The `search` filter on a snapshot: which projects' name or developer name (both lower-cased as the
 * database lower-cases, lowerLikeDatabase) contain the term. Every project's name is kept joined in
 * one string per snapshot, each followed by NUL, which no stored text can hold (the import refuses
 * it). A term of three or more code units is looked up in a trigram index of that string: each
 * trigram's positions, ascending. The term occurs at p exactly when each trigram of a cover of the term
 * (offsets 0, 3, 6, ... and the last three units) occurs at p plus its offset, so the positions are
 * found by intersecting a few sorted lists, with no name read and no scan of the whole text: a scan's
 * cost is the text's length, which grows faster than the catalogue (longer names, "Phase 12", and a
 * text out of the processor's cache at 4×L; docs/performance.md, "Name search from a trigram index").
 * Shorter terms scan the text with one native indexOf. Developer names are few (a dozen for thousands
 * of projects): each distinct one is tested once, and a project matches through its developer's slot. A term containing NUL matches
 * nothing, as it did per string.
 */
const SEPARATOR = '\u0000';

interface Names {
  text: string;
  /** Project i's name is text.slice(start[i], start[i + 1] - 1). */
  start: Int32Array;
  /** The distinct developer names (lower-cased), and each project's among them. */
  developers: string[];
  developerSlot: Int32Array;
  /** Made on the first search with a term of three or more code units. */
  trigrams?: Trigrams;
}

/** Where each trigram of the joined names occurs (trigrams holding the NUL separator left out). */
interface Trigrams {
  /** Trigram (trigramKey) -> its id. */
  ids: Map<number, number>;
  /** Trigram id's positions: positions[first[id]] up to positions[first[id + 1]], ascending. */
  first: Int32Array;
  positions: Int32Array;
}

/** Three UTF-16 code units as one number (below 2^48, so exact as a double). */
const trigramKey = (text: string, at: number) => text.charCodeAt(at) * 4_294_967_296 + text.charCodeAt(at + 1) * 65_536 + text.charCodeAt(at + 2);

function trigramsOf(text: string): Trigrams {
  const ids = new Map<number, number>();
  const idAt = new Int32Array(Math.max(0, text.length - 2)).fill(-1);
  let counts = new Int32Array(1024);
  for (let at = 0; at + 2 < text.length; at++) {
    if (text.charCodeAt(at) === 0 || text.charCodeAt(at + 1) === 0 || text.charCodeAt(at + 2) === 0) continue;
    const key = trigramKey(text, at);
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
      if (id === counts.length) {
        const grown = new Int32Array(counts.length * 2);
        grown.set(counts);
        counts = grown;
      }
    }
    idAt[at] = id;
    counts[id]++;
  }
  const first = new Int32Array(ids.size + 1);
  for (let id = 0; id < ids.size; id++) first[id + 1] = first[id] + counts[id];
  const next = first.slice(0, ids.size);
  const positions = new Int32Array(first[ids.size]);
  for (let at = 0; at < idAt.length; at++) if (idAt[at] >= 0) positions[next[idAt[at]]++] = at;
  return { ids, first, positions };
}

/** The first index in [from, to) whose position is at least `target` (to if none), galloping from `from`. */
function seek(positions: Int32Array, from: number, to: number, target: number): number {
  if (from >= to || positions[from] >= target) return from;
  let below = from;
  let step = 1;
  let probe = from + 1;
  while (probe < to && positions[probe] < target) {
    below = probe;
    step *= 2;
    probe = below + step;
  }
  let low = below + 1;
  let high = Math.min(probe, to);
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Every position of `term` (three or more code units, no NUL) in the joined names, ascending: the
 * shortest list of the cover's trigrams drives, and each other list is sought forward for the same
 * start (the starts only grow, so each list is read once at most).
 */
function occurrences(trigrams: Trigrams, term: string): number[] {
  const { ids, first, positions } = trigrams;
  const offsets: number[] = [];
  for (let offset = 0; offset + 3 <= term.length; offset += 3) offsets.push(offset);
  if (offsets[offsets.length - 1] + 3 < term.length) offsets.push(term.length - 3);
  const lists: { offset: number; at: number; end: number }[] = [];
  for (const offset of offsets) {
    const id = ids.get(trigramKey(term, offset));
    if (id === undefined) return [];
    lists.push({ offset, at: first[id], end: first[id + 1] });
  }
  lists.sort((a, b) => a.end - a.at - (b.end - b.at));
  const [driver, ...others] = lists;
  const found: number[] = [];
  drive: for (let d = driver.at; d < driver.end; d++) {
    const start = positions[d] - driver.offset;
    for (const list of others) {
      const wanted = start + list.offset;
      list.at = seek(positions, list.at, list.end, wanted);
      if (list.at === list.end) break drive;
      if (positions[list.at] !== wanted) continue drive;
    }
    found.push(start);
  }
  return found;
}

/** What the filter reads of a snapshot's projects. */
export type ProjectNames = Pick<Snapshot['projects'], 'nameLower' | 'developerLower' | 'count'>;

/** Kept per snapshot (by its projects' columns, which are the snapshot's own). */
const namesOf = perObject(({ nameLower, developerLower, count }: ProjectNames): Names => {
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
  return { text: parts.join(''), start, developers: [...slots.keys()], developerSlot };
});

/** 1 for each project (snapshot index) whose name or developer name contains `term` (lower-cased). */
export function projectsNamed(projects: ProjectNames, term: string): Uint8Array {
  const found = new Uint8Array(projects.count);
  if (term === '') return found.fill(1);
  if (term.includes(SEPARATOR)) return found;
  const names = namesOf(projects);
  const { text, start, developers, developerSlot } = names;
  const developerMatches = Uint8Array.from(developers, (name) => +name.includes(term));
  if (developerMatches.includes(1)) for (let i = 0; i < found.length; i++) found[i] = developerMatches[developerSlot[i]];
  if (term.length >= 3) {
    names.trigrams ??= trigramsOf(text);
    const at = occurrences(names.trigrams, term);
    let next = 0;
    markProjects(found, start, (from) => {
      while (next < at.length && at[next] < from) next++;
      return next < at.length ? at[next] : -1;
    });
  } else {
    markProjects(found, start, (from) => text.indexOf(term, from));
  }
  return found;
}

/**
 * Marks the project of each occurrence, where `occurrence(from)` is the first at or after `from` (-1
 * when none): one is asked past each project found, since its other occurrences change nothing.
 */
function markProjects(found: Uint8Array, start: Int32Array, occurrence: (from: number) => number): void {
  const count = found.length;
  // The occurrences come in order, so each project is looked for from the one after the last found:
  // galloping forward stays among near positions, where a binary search over all of `start` read a
  // far one at each step (at 20,000 projects, ~15 cache misses an occurrence).
  let low = 0;
  for (let at = occurrence(0); at >= 0; at = occurrence(start[low])) {
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
    low += 1;
  }
}
