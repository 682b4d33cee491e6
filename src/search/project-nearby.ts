import { FACILITY_CATEGORIES, type FacilityCategory } from '../domain/catalogue-codes.js';
import type { NearbyOptions } from '../queries/project-detail.js';
import type { NearbyFacilityTextRow, NearbyLinkRow } from '../queries/project-nearby.js';

/*
 * The nearby block of GET /projects/{id} kept compactly in the snapshot: it is most of the detail
 * (~1.28 MB for a central project of L: ~1,000 facilities of 30 to 50 fields), and the same facility
 * is near many projects (L: 4.4 M links to 50,000 facilities). So each facility's text is kept once,
 * as UTF-8 bytes (full and summary form, as the SQL path writes them: src/queries/project-nearby.ts),
 * and each project's links as typed arrays (facility index and distance) per category, in the block's
 * order. A request writes the block's bytes straight from them (nearbyBlock): no string of the size
 * of the block is ever made. The SQL path (src/queries/project-detail.ts) stays the reference
 * (test/project-detail-differential.test.ts).
 */
export interface NearbyLinks {
  /** Links of project p and category c (FACILITY_CATEGORIES order) at g = p * CATEGORIES + c: linkAt[g] .. linkAt[g] + linkCount[g] - 1. */
  linkAt: Int32Array;
  linkCount: Int32Array;
  /** The facility of each link: an index into the texts (in the snapshot), or its id (nearby-on-demand). */
  facility: Int32Array;
  distance: Float64Array;
  /** Each link's distance as the SQL path writes it, when kept (nearby-on-demand): link i is bytes[at[i]] .. bytes[at[i + 1]]; else float8Text(distance). */
  distanceText?: { bytes: Buffer; at: Int32Array };
}

export interface ProjectNearby extends NearbyLinks {
  /** Facility texts: facility i is full[fullAt[i]] .. full[fullAt[i + 1]] (the same for summary). */
  full: Buffer;
  fullAt: Int32Array;
  summary: Buffer;
  summaryAt: Int32Array;
}

export const CATEGORIES = FACILITY_CATEGORIES.length;
/** A category's index in FACILITY_CATEGORIES; undefined for one the block does not show. */
export const categoryIndex: ReadonlyMap<string, number> = new Map<string, number>(FACILITY_CATEGORIES.map((category, c) => [category, c]));

/** Calls `link` for each `facility_id,distance` of a link row's text (readNearbyLinks), in its order (with the distance's text). */
export function eachLink(text: string, link: (facilityId: number, distance: number, distanceText: string) => void): void {
  let at = 0;
  while (at < text.length) {
    const comma = text.indexOf(',', at);
    let end = text.indexOf(';', comma);
    if (end < 0) end = text.length;
    const distance = text.slice(comma + 1, end);
    link(Number(text.slice(at, comma)), Number(distance), distance);
    at = end + 1;
  }
}

/** Facility texts as one buffer with offsets. */
function joinedBytes(texts: readonly string[]): { bytes: Buffer; at: Int32Array } {
  const at = new Int32Array(texts.length + 1);
  let size = 0;
  texts.forEach((text, i) => {
    at[i] = size;
    size += Buffer.byteLength(text, 'utf8');
  });
  at[texts.length] = size;
  const bytes = Buffer.allocUnsafe(size);
  texts.forEach((text, i) => bytes.write(text, at[i], 'utf8'));
  return { bytes, at };
}

/** Builds the nearby block's compact form from the facility texts and the link rows (readNearbyLinks, in any order and chunks). */
export class ProjectNearbyBuilder {
  private readonly facilityIndex = new Map<number, number>();
  private readonly full: { bytes: Buffer; at: Int32Array };
  private readonly summary: { bytes: Buffer; at: Int32Array };
  private readonly linkAt: Int32Array;
  private readonly linkCount: Int32Array;
  private facility = new Int32Array(1 << 16);
  private distance = new Float64Array(1 << 16);
  private links = 0;

  constructor(
    facilities: readonly NearbyFacilityTextRow[],
    private readonly indexOf: ReadonlyMap<number, number>,
  ) {
    facilities.forEach((row, i) => this.facilityIndex.set(row.id, i));
    this.full = joinedBytes(facilities.map((row) => row.facility_json));
    // Empty when the record has none of the fields: the SQL's concat of '{', NULL and '}'.
    this.summary = joinedBytes(facilities.map((row) => row.summary_json ?? '{}'));
    this.linkAt = new Int32Array(indexOf.size * CATEGORIES);
    this.linkCount = new Int32Array(indexOf.size * CATEGORIES);
  }

  add(rows: readonly NearbyLinkRow[]): void {
    for (const row of rows) {
      const p = this.indexOf.get(row.project_id);
      const c = categoryIndex.get(row.category);
      // A category the block does not show (the SQL path leaves it out too).
      if (p === undefined || c === undefined) continue;
      const g = p * CATEGORIES + c;
      this.linkAt[g] = this.links;
      eachLink(row.links, (facilityId, distance) => {
        const index = this.facilityIndex.get(facilityId);
        if (index === undefined) throw new Error(`project nearby: facility ${facilityId} not read`);
        this.push(index, distance);
      });
      this.linkCount[g] = this.links - this.linkAt[g];
    }
  }

  private push(index: number, distance: number): void {
    if (this.links === this.facility.length) {
      const facility = new Int32Array(this.facility.length * 2);
      facility.set(this.facility);
      this.facility = facility;
      const distances = new Float64Array(this.distance.length * 2);
      distances.set(this.distance);
      this.distance = distances;
    }
    this.facility[this.links] = index;
    this.distance[this.links] = distance;
    this.links++;
  }

  done(): ProjectNearby {
    return {
      full: this.full.bytes,
      fullAt: this.full.at,
      summary: this.summary.bytes,
      summaryAt: this.summary.at,
      linkAt: this.linkAt,
      linkCount: this.linkCount,
      // Copied to their length: the growth leaves up to half unused.
      facility: this.facility.slice(0, this.links),
      distance: this.distance.slice(0, this.links),
    };
  }
}

/**
 * A double as PostgreSQL writes a float8 (PostgreSQL 12+, extra_float_digits 1: the shortest text that
 * reads back as the same double): as JavaScript's, except the exponent form, which PostgreSQL uses
 * below 1e-4 and from 1e15 with at least two exponent digits (`5e-05`, `1.5e+15`), and `-0`.
 */
export function float8Text(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const magnitude = Math.abs(value);
  if (!Number.isFinite(value) || (magnitude >= 1e-4 && magnitude < 1e15)) return String(value);
  const [mantissa, exponent] = value.toExponential().split('e');
  const sign = exponent[0];
  const digits = exponent.slice(1);
  return `${mantissa}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
}

const ENTRY_HEAD = Buffer.from('{"distance":');
const ENTRY_FACILITY = Buffer.from(',"facility":');
const categoryHeads = FACILITY_CATEGORIES.map((category: FacilityCategory, c) => Buffer.from(`${c === 0 ? '{' : '],'}${JSON.stringify(category)}:[`));
const BLOCK_TAIL = Buffer.from(']}');

const NOTHING = Buffer.alloc(0);

/**
 * The links the block of project index p shows, as the SQL path chooses them: per category, those
 * closer than the radius, the nearest `limit` of them; -1 ends each category.
 */
export function shownLinks(links: NearbyLinks, p: number, options: NearbyOptions): number[] {
  const radius = options.amenitiesRadiusM ?? Number.POSITIVE_INFINITY;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const shown: number[] = [];
  for (let c = 0; c < CATEGORIES; c++) {
    const g = p * CATEGORIES + c;
    let taken = 0;
    for (let i = links.linkAt[g], end = i + links.linkCount[g]; i < end && taken < limit; i++) {
      // As the SQL's `distance_m < radius` (a NaN distance is never shown).
      if (!(links.distance[i] < radius)) continue;
      shown.push(i);
      taken++;
    }
    shown.push(-1);
  }
  return shown;
}

/** The block of project index p from the snapshot's compact form (nearbyTexts gives each facility's bytes). */
export function nearbyBlock(nearby: ProjectNearby, p: number, options: NearbyOptions, before: Buffer = NOTHING, after: Buffer = NOTHING, alloc: Alloc = Buffer.allocUnsafe): Buffer {
  const [texts, at] = options.form === 'summary' ? [nearby.summary, nearby.summaryAt] : [nearby.full, nearby.fullAt];
  const { facility } = nearby;
  return writeNearbyBlock(nearby, shownLinks(nearby, p, options), (i) => texts.subarray(at[facility[i]], at[facility[i] + 1]), before, after, alloc);
}

/**
 * `source` written whole into `block` at `offset`; the offset after it. TypedArray#set, not Buffer#copy:
 * a full detail writes ~4 pieces per link (~7,000 for a central project of L), and Buffer#copy's own
 * checks and arguments cost as much as the bytes (docs/performance.md, "Nearby block read on demand").
 * A piece that does not fit throws a RangeError (Buffer#copy would cut it short): the sizes are
 * counted first, and the check after the writing catches a count too large.
 */
function put(block: Buffer, source: Buffer, offset: number): number {
  block.set(source, offset);
  return offset + source.length;
}

/** Where the block's bytes are written (the detail route gives memory it reuses once sent: src/bodies/large-bodies.ts). */
export type Alloc = (size: number) => Buffer;

/**
 * The block as bytes, as nearbyFacilitiesJsonParts writes the SQL path's: the `shown` links (shownLinks)
 * with their distance and facility text (`text` of link i), written between `before` and
 * `after` (the rest of the body) in one allocation: the body is sent as it is.
 */
export function writeNearbyBlock(
  links: NearbyLinks,
  shown: readonly number[],
  text: (link: number) => Buffer,
  before: Buffer = NOTHING,
  after: Buffer = NOTHING,
  alloc: Alloc = Buffer.allocUnsafe,
): Buffer {
  const kept = links.distanceText;
  const distances: string[] = [];
  const texts: Buffer[] = [];
  let size = before.length + BLOCK_TAIL.length + after.length;
  let c = 0;
  let taken = 0;
  size += categoryHeads[0].length;
  for (const i of shown) {
    if (i < 0) {
      c++;
      taken = 0;
      if (c < CATEGORIES) size += categoryHeads[c].length;
      continue;
    }
    let distanceLength: number;
    if (kept) distanceLength = kept.at[i + 1] - kept.at[i];
    else {
      const distance = float8Text(links.distance[i]);
      distances.push(distance);
      distanceLength = distance.length;
    }
    const facility = text(i);
    texts.push(facility);
    size += (taken > 0 ? 1 : 0) + ENTRY_HEAD.length + distanceLength + ENTRY_FACILITY.length + facility.length + 1;
    taken++;
  }
  const block = alloc(size);
  let offset = put(block, before, 0);
  let first = true;
  let d = 0;
  c = 0;
  offset = put(block, categoryHeads[0], offset);
  for (const i of shown) {
    if (i < 0) {
      c++;
      first = true;
      if (c < CATEGORIES) offset = put(block, categoryHeads[c], offset);
      continue;
    }
    if (!first) block[offset++] = 0x2c;
    first = false;
    offset = put(block, ENTRY_HEAD, offset);
    if (kept) {
      // A distance is a few bytes: copied byte by byte, where Buffer#copy of a range would make a view of it.
      const bytes = kept.bytes;
      for (let k = kept.at[i], end = kept.at[i + 1]; k < end; k++) block[offset++] = bytes[k];
    } else offset += block.write(distances[d], offset, 'latin1');
    offset = put(block, ENTRY_FACILITY, offset);
    offset = put(block, texts[d++], offset);
    block[offset++] = 0x7d;
  }
  offset = put(block, BLOCK_TAIL, offset);
  offset = put(block, after, offset);
  if (offset !== size) throw new Error(`project nearby: wrote ${offset} bytes of ${size}`);
  return block;
}
