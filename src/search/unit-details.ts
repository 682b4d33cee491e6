import { OID, textParsers } from '../db/type-parsers.mjs';
import type { LinkBuilder } from '../contract/links.js';
import { toFileObject } from '../contract/presenters/files.js';
import { toUnitProjectModel } from '../contract/presenters/units.js';
import { schemaSerializer } from '../contract/schema-serializer.js';
import { FileObject } from '../contract/schemas/projects.js';
import { UnitProjectModel, UnitTag } from '../contract/schemas/units.js';
import type { FileRow } from '../queries/project-detail.js';
import type { UnitPageRows } from '../queries/unit-details.js';
import { TextFields } from './text-fields.js';
import type { UnitModelRow } from '../queries/units.js';

/*
 * GET /units/{id}'s texts for one project's live units (a page), prepared compactly: each unit keeps
 * only its own columns (typed arrays, indexed like the project's units in the snapshot: by id) and
 * references to texts shared by many units (its plan file, its tags and their links' timestamps), and
 * the project's part of the answer (~2-3 KB of the ~3.8 KB, with its developer and area) is one text.
 * src/search/find-unit.ts joins the texts per request and fills in the key-dependent price.
 *
 * Pages are made when a unit of the project is asked and kept with the snapshot, bounded
 * (src/details/unit-detail-body.ts): the whole catalogue's would cost every snapshot build seconds and
 * tens of MB at scale (docs/performance.md, "Unit pages read per project"), for units most of which
 * are never asked between two imports.
 *
 * Every text is written by the route's own serializer (schemaSerializer) from the rows the SQL path
 * reads with the same expressions (src/queries/unit-details.ts), so the answer is the SQL path's byte
 * for byte (test/unit-detail-differential.test.ts).
 */
export interface UnitDetails {
  /** Unit id by unit index (the project's live units by id, as the snapshot orders them). */
  id: Int32Array;
  furnishing: Uint8Array;
  floor: Int32Array;
  /** The unit's plan file as an index into the files; -1: none. */
  planFile: Int32Array;
  /** Per file: its id, and its JSON (with its link). */
  fileId: Int32Array;
  files: Texts;
  /** unit_number as JSON text. */
  numbers: Texts;
  /** created_at and updated_at as the drivers read them (milliseconds since the epoch; written with toISOString). */
  createdMs: Float64Array;
  updatedMs: Float64Array;
  /** Tag links of unit k, by link id: linkStart[k] .. linkStart[k + 1] - 1. */
  linkStart: Int32Array;
  linkId: Int32Array;
  linkTag: Int32Array;
  /** Index into linkTails: `,"created_at":…,"updated_at":…}` closing the link's JSON. */
  linkTime: Int32Array;
  linkTails: string[];
  /** `,"preference_id":…,"preference":{…}` by tag id: the middle of a link's JSON. */
  tagParts: Map<number, string>;
  /** The unit's `project` JSON. */
  project: string;
}

/*
 * Texts kept joined into one string per kind, with offsets, rather than as one string each: the
 * serializer builds a text by concatenation, and V8 keeps such a text as a tree of its pieces (~5x
 * its length) until something flattens it. A joined string has one header and is made flat
 * (flatText: a join of one text is that text, still a tree); a request takes its slice (textAt).
 */
export interface Texts {
  text: string;
  /** Text i is text.slice(at[i], at[i + 1]). */
  at: Int32Array;
}

export function textAt(texts: Texts, i: number): string {
  return texts.text.slice(texts.at[i], texts.at[i + 1]);
}

const serializeProject = schemaSerializer(UnitProjectModel);
const serializeFile = schemaSerializer(FileObject);
const serializeTag = schemaSerializer(UnitTag);
/** timestamptz text as both drivers read it (src/db/type-parsers.mjs), so the value is the SQL path's. */
const readTimestamp = textParsers[OID.timestamptz];

/** Timestamp texts as milliseconds, each distinct text read once (L: ~900 distinct among ~470,000). */
class Timestamps {
  private readonly read = new Map<string, number>();

  private lastText = '';
  private lastMs = Number.NaN;

  ms(text: string): number {
    // Units written together share a timestamp: compared with the previous one before hashed.
    if (text === this.lastText) return this.lastMs;
    this.lastText = text;
    let ms = this.read.get(text);
    if (ms === undefined) {
      try {
        ms = Date.parse(String(readTimestamp(text)));
      } catch {
        // A value the drivers cannot write either (the SQL path fails the same way when it shows it).
        ms = Number.NaN;
      }
      this.read.set(text, ms);
    }
    this.lastMs = ms;
    return ms;
  }
}

/**
 * A project's page from its rows (readUnitPageRows), or undefined when the project is not published.
 * `intern` returns one string for equal texts (the tags' parts, the same on every page of a snapshot).
 */
export function buildUnitDetails(rows: UnitPageRows, links: LinkBuilder, intern: (text: string) => string = (text) => text): UnitDetails | undefined {
  if (!rows.project) return undefined;
  return { ...pageUnits(rows, links, intern), project: flatText(serializeProject(toUnitProjectModel<FileRow, UnitModelRow['project']>(rows.project, links))) };
}

/**
 * The text, made flat for keeping. The serializer writes by concatenation, and V8 keeps such a text
 * as a tree of its pieces until something flattens it (writing it to a socket does, in place): the
 * warm-up makes pages most of which are never sent, so their project parts would stay trees, well
 * above the flat size (docs/performance.md, "Unit pages read per project"). Reading a
 * text as a number makes V8 flatten it in place (the `flatstr` idiom pino used); the pieces are
 * then garbage. test/unit-page-memory.test.ts holds a page to the bytes it is counted for.
 */
export function flatText(text: string): string {
  lastConverted = Number(text);
  return text;
}

/** Where flatText's conversions go: a value kept is one no compiler may leave uncomputed. */
let lastConverted = 0;

/** The page's units: their own columns, plan files and tag links. */
export function pageUnits(rows: Omit<UnitPageRows, 'project'>, links: LinkBuilder, intern: (text: string) => string = (text) => text): Omit<UnitDetails, 'project'> {
  const unitNumbers = JSON.parse(rows.units.numbers) as string[];
  const count = unitNumbers.length;
  const id = new Int32Array(count);
  const furnishing = new Uint8Array(count);
  const floor = new Int32Array(count);
  const planFileIds = new Int32Array(count);
  const createdMs = new Float64Array(count);
  const updatedMs = new Float64Array(count);
  const numberTexts = new Joined(count);
  const timestamps = new Timestamps();
  // `id,furnishing,floor,plan_file_id,created_at,updated_at` per unit, `;` between units: read in place.
  const fields = new TextFields(rows.units.details);
  for (let k = 0; k < count; k++) {
    id[k] = fields.integer();
    furnishing[k] = fields.integer();
    floor[k] = fields.integer();
    planFileIds[k] = fields.integer();
    createdMs[k] = timestamps.ms(fields.text());
    updatedMs[k] = timestamps.ms(fields.text());
    numberTexts.add(JSON.stringify(unitNumbers[k]));
  }
  if (!fields.done) throw new Error('unit details: more unit columns than unit numbers');
  const files = new Joined(rows.planFiles.length);
  const fileIndex = new Map<number, number>();
  for (const row of rows.planFiles) {
    fileIndex.set(row.id, fileIndex.size);
    files.add(serializeFile(toFileObject(row.file, links)));
  }
  const units: Omit<UnitDetails, 'project'> = {
    id,
    furnishing,
    floor,
    planFile: Int32Array.from(planFileIds, (fileId) => (fileId === 0 ? -1 : fileIndex.get(fileId)!)),
    fileId: Int32Array.from(rows.planFiles, (row) => row.id),
    files: files.done(),
    numbers: numberTexts.done(),
    createdMs,
    updatedMs,
    linkStart: new Int32Array(count + 1),
    linkId: new Int32Array(0),
    linkTag: new Int32Array(0),
    linkTime: new Int32Array(0),
    linkTails: [],
    tagParts: new Map(rows.tags.map((tag) => [tag.id, intern(`,"preference_id":${tag.id},"preference":${serializeTag(tag)}`)])),
  };
  addLinks(units, rows.links);
  return units;
}

/**
 * What a page holds, in bytes (roughly: texts at 2 per character, typed arrays, a fixed overhead; the
 * tags' parts are interned, shared by the pages, and counted by their entries), to bound the pages kept.
 */
export function unitDetailsBytes(details: UnitDetails): number {
  let bytes = 1_000 + (details.project.length + details.files.text.length + details.numbers.text.length) * 2;
  for (const tail of details.linkTails) bytes += tail.length * 2 + 32;
  bytes += details.tagParts.size * 48;
  const arrays = [details.id, details.furnishing, details.floor, details.planFile, details.fileId, details.files.at, details.numbers.at, details.createdMs, details.updatedMs, details.linkStart, details.linkId, details.linkTag, details.linkTime];
  for (const array of arrays) bytes += array.byteLength + 64;
  return bytes;
}

/** Texts added one by one, kept as one joined string and the offsets of each. */
class Joined {
  private readonly texts: string[] = [];
  private readonly offsets: Int32Array;
  private length = 0;

  constructor(count: number) {
    this.offsets = new Int32Array(count + 1);
  }

  get count(): number {
    return this.texts.length;
  }

  add(text: string): void {
    this.offsets[this.texts.length] = this.length;
    this.texts.push(text);
    this.length += text.length;
  }

  done(): Texts {
    this.offsets[this.texts.length] = this.length;
    return { text: flatText(this.texts.join('')), at: this.offsets.subarray(0, this.texts.length + 1) };
  }
}

/** The index of the unit with this id in the page (its ids ascend), or -1. */
function indexInPage(id: Int32Array, unitId: number): number {
  let low = 0;
  let high = id.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = id[middle];
    if (value === unitId) return middle;
    if (value < unitId) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** The tag links (readUnitPageLinks' texts) of the page's units, grouped by unit, by link id. */
function addLinks(details: Omit<UnitDetails, 'project'>, groups: UnitPageRows['links']): void {
  const units = details.id.length;
  let total = 0;
  for (const group of groups) for (let at = group.links.indexOf(';'); at >= 0; at = group.links.indexOf(';', at + 1)) total++;
  total += groups.length;
  const unit = new Int32Array(total);
  const link = new Int32Array(total);
  const tag = new Int32Array(total);
  const time = new Int32Array(total);
  let n = 0;
  for (const group of groups) {
    const index = details.linkTails.length;
    details.linkTails.push(`,"created_at":${JSON.stringify(group.created_at)},"updated_at":${JSON.stringify(group.updated_at)}}`);
    const fields = new TextFields(group.links);
    while (!fields.done) {
      const k = indexInPage(details.id, fields.integer());
      const linkId = fields.integer();
      const tagId = fields.integer();
      // Only links of the page's live units are read; a unit deleted meanwhile cannot be in one read.
      if (k < 0) continue;
      unit[n] = k;
      link[n] = linkId;
      tag[n] = tagId;
      time[n] = index;
      n++;
    }
  }
  const { linkStart } = details;
  for (let i = 0; i < n; i++) linkStart[unit[i] + 1]++;
  for (let k = 0; k < units; k++) linkStart[k + 1] += linkStart[k];
  const next = linkStart.slice(0, units);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[next[unit[i]]++] = i;
  // The links arrive in no particular order (in practice by id): within each unit, by link id, as the
  // SQL path orders them.
  for (let k = 0; k < units; k++) {
    for (let i = linkStart[k] + 1; i < linkStart[k + 1]; i++) {
      if (link[order[i - 1]] > link[order[i]]) {
        order.subarray(linkStart[k], linkStart[k + 1]).sort((a, b) => link[a] - link[b]);
        break;
      }
    }
  }
  details.linkId = new Int32Array(n);
  details.linkTag = new Int32Array(n);
  details.linkTime = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    const i = order[j];
    details.linkId[j] = link[i];
    details.linkTag[j] = tag[i];
    details.linkTime[j] = time[i];
  }
}
