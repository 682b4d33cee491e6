import { Type } from '@sinclair/typebox';
import { OID, textParsers } from '../db/type-parsers.mjs';
import type { LinkBuilder } from '../contract/links.js';
import { toFileObject } from '../contract/presenters/files.js';
import { toUnitProjectModel } from '../contract/presenters/units.js';
import { schemaSerializer } from '../contract/schema-serializer.js';
import { FileObject } from '../contract/schemas/projects.js';
import { UnitProjectModel, UnitTag } from '../contract/schemas/units.js';
import type { FileRow } from '../queries/project-detail.js';
import type { SearchUnitRow } from '../queries/search-catalogue.js';
import type { UnitDetailRows } from '../queries/unit-details.js';
import type { UnitModelRow } from '../queries/units.js';

/*
 * GET /units/{id} prepared in the snapshot, compactly: the answer is ~3.8 KB, most of it the unit's
 * project (with its developer and area), which is the same for every unit of the project. So the
 * project's part is JSON text once per project, and each unit keeps only its own columns (typed
 * arrays, indexed like the snapshot's units) and references to texts shared by many units: its plan
 * file, its tags and their links' timestamps. src/search/find-unit.ts joins the texts per request and
 * fills in the key-dependent price; on L (~245,000 units) the whole costs a few tens of MB instead of
 * the ~900 MB of one text per unit.
 *
 * Every text is written by the route's own serializer (schemaSerializer) from the rows the SQL path
 * reads with the same expressions (src/queries/unit-details.ts), so the answer is the SQL path's byte
 * for byte (test/unit-detail-differential.test.ts).
 */
export interface UnitDetails {
  /** Unit id by unit index (the snapshot's unit order: by project, then by id). */
  id: Int32Array;
  /** Unit indexes by ascending id; undefined when the unit order already is by id. */
  byId: Int32Array | undefined;
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
  /**
   * The unit's `project` JSON of project index p: its head, the block `"company":…,"author":…,"area":…`
   * (an index into blocks: one per developer, author and area, ~800 for L's 5,000 projects, ~45 % of
   * the text) and its tail.
   */
  projectHeads: Texts;
  projectBlock: Int32Array;
  projectTails: Texts;
  blocks: Texts;
}

/*
 * Texts kept joined into one string per kind, with offsets, rather than as one string each: the
 * serializer builds a text by concatenation, and V8 keeps such a text as a tree of its pieces (~5x
 * its length; ~90 MB for L's project texts) until something flattens it. A joined string is flat and
 * has one header; a request takes its slice (textAt).
 */
export interface Texts {
  text: string;
  /** Text i is text.slice(at[i], at[i + 1]). */
  at: Int32Array;
}

export function textAt(texts: Texts, i: number): string {
  return texts.text.slice(texts.at[i], texts.at[i + 1]);
}

/**
 * A project's text in two steps: its own properties, with its developer, author and area left as
 * nulls (`"company":null,"author":null,"area":null`, where the text is cut), then the block they stand
 * for (`{"company":…,"author":…,"area":…}`), once per developer, author and area. The same schemas, so
 * the joined text is the one the UnitProjectModel serializer writes (test/unit-detail-differential.test.ts).
 */
const serializeShell = schemaSerializer(Type.Object({ ...UnitProjectModel.properties, company: Type.Null(), author: Type.Null(), area: Type.Null() }));
const serializeBlock = schemaSerializer(Type.Pick(UnitProjectModel, ['company', 'author', 'area']));
const SHELL_BLOCK = '"company":null,"author":null,"area":null';
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
 * The unit details of a snapshot. `unitRows` are the search's unit rows (readSearchUnits), walked in
 * the same order as the snapshot's unit columns; `indexOf` gives a project's index by id.
 */
export function buildUnitDetails(
  unitRows: SearchUnitRow[],
  rows: UnitDetailRows,
  indexOf: Map<number, number>,
  counts: { projects: number; units: number },
  links: LinkBuilder,
): UnitDetails {
  const count = counts.units;
  const id = new Int32Array(count);
  const furnishing = new Uint8Array(count);
  const floor = new Int32Array(count);
  const planFileIds = new Int32Array(count);
  const createdMs = new Float64Array(count);
  const updatedMs = new Float64Array(count);
  const numberTexts = new Joined(count);
  const timestamps = new Timestamps();
  let k = 0;
  for (const row of unitRows) {
    const unitNumbers = JSON.parse(row.numbers) as string[];
    // `id,furnishing,floor,plan_file_id,created_at,updated_at` per unit, `;` between units: read in
    // place (splitting made ~1 M short-lived strings and arrays on L).
    const fields = new FieldReader(row.details);
    for (let j = 0; j < unitNumbers.length; j++) {
      id[k] = fields.integer();
      furnishing[k] = fields.integer();
      floor[k] = fields.integer();
      planFileIds[k] = fields.integer();
      createdMs[k] = timestamps.ms(fields.text());
      updatedMs[k] = timestamps.ms(fields.text());
      numberTexts.add(JSON.stringify(unitNumbers[j]));
      k++;
    }
  }
  if (k !== count) throw new Error(`unit details: ${k} units, the search holds ${count}`);
  const files = new Joined(rows.planFiles.length);
  const fileIndex = new Map<number, number>();
  for (const row of rows.planFiles) {
    fileIndex.set(row.id, fileIndex.size);
    files.add(serializeFile(toFileObject(row.file, links)));
  }
  const projects = projectTexts(rows.projects, indexOf, links);
  const details: UnitDetails = {
    id,
    byId: idOrder(id),
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
    tagParts: new Map(rows.tags.map((tag) => [tag.id, `,"preference_id":${tag.id},"preference":${serializeTag(tag)}`])),
    ...projects,
  };
  addLinks(details, rows.links);
  return details;
}

/** Reads the fields of a text like `12,-3,b;4,5,c` in order: integers and texts up to the next `,` or `;`. */
class FieldReader {
  private at = 0;

  constructor(private readonly source: string) {}

  integer(): number {
    const { source } = this;
    let at = this.at;
    const negative = source.charCodeAt(at) === 45;
    if (negative) at++;
    let value = 0;
    for (let code = source.charCodeAt(at); code >= 48 && code <= 57; code = source.charCodeAt(++at)) value = value * 10 + (code - 48);
    this.at = at + 1;
    return negative ? -value : value;
  }

  /** Past the last field. */
  get done(): boolean {
    return this.at >= this.source.length;
  }

  text(): string {
    const { source } = this;
    let end = this.at;
    for (let code = source.charCodeAt(end); code !== 44 && code !== 59 && end < source.length; code = source.charCodeAt(++end));
    const value = source.slice(this.at, end);
    this.at = end + 1;
    return value;
  }
}

/** Each project's text as head, shared block and tail (UnitDetails), by project index. */
function projectTexts(rows: UnitDetailRows['projects'], indexOf: Map<number, number>, links: LinkBuilder) {
  const heads = new Joined(indexOf.size);
  const tails = new Joined(indexOf.size);
  const blocks = new Joined(indexOf.size);
  const blockIndex = new Map<string, number>();
  const projectBlock = new Int32Array(indexOf.size);
  const byId = new Map(rows.map((row) => [row.id, row.project]));
  for (const [projectId, p] of indexOf) {
    if (p !== heads.count) throw new Error('unit details: project indexes out of order');
    const project = byId.get(projectId);
    if (!project) throw new Error(`unit details: no unit project ${projectId}`);
    const model = toUnitProjectModel<FileRow, UnitModelRow['project']>(project, links);
    const text = serializeShell({ ...model, company: null, author: null, area: null });
    // Unescaped, the marker can only be the properties themselves (a `"` inside a string is escaped).
    const at = text.indexOf(SHELL_BLOCK);
    if (at < 0 || text.indexOf(SHELL_BLOCK, at + 1) >= 0) throw new Error(`unit details: project ${projectId}'s text has not one shared block`);
    heads.add(text.slice(0, at));
    tails.add(text.slice(at + SHELL_BLOCK.length));
    const key = `${project.company_id} ${project.author_id} ${project.area_id}`;
    let index = blockIndex.get(key);
    if (index === undefined) {
      blockIndex.set(key, (index = blockIndex.size));
      blocks.add(serializeBlock(model).slice(1, -1));
    }
    projectBlock[p] = index;
  }
  return { projectHeads: heads.done(), projectBlock, projectTails: tails.done(), blocks: blocks.done() };
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
    return { text: this.texts.join(''), at: this.offsets.subarray(0, this.texts.length + 1) };
  }
}

/** The unit indexes by ascending id, or undefined when they already are. */
function idOrder(id: Int32Array): Int32Array | undefined {
  let sorted = true;
  for (let k = 1; k < id.length && sorted; k++) sorted = id[k - 1] < id[k];
  if (sorted) return undefined;
  return Int32Array.from(id.keys()).sort((a, b) => id[a] - id[b]);
}

/** The index of the unit with this id, or -1 when the snapshot does not hold it. */
export function unitIndexOf(details: UnitDetails, unitId: number): number {
  const { id, byId } = details;
  let low = 0;
  let high = id.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const k = byId ? byId[middle] : middle;
    const value = id[k];
    if (value === unitId) return k;
    if (value < unitId) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** The tag links (readUnitTagLinks' texts) of the units the snapshot holds, grouped by unit, by link id. */
function addLinks(details: UnitDetails, groups: UnitDetailRows['links']): void {
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
    const fields = new FieldReader(group.links);
    while (!fields.done) {
      const k = unitIndexOf(details, fields.integer());
      const linkId = fields.integer();
      const tagId = fields.integer();
      // A link of a unit the snapshot does not hold (deleted, or of an unpublished project).
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
