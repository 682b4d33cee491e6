import { LRUCache } from 'lru-cache';
import type { Database } from '../db/database.js';
import type { NearbyForm } from '../contract/nearby-facilities.js';
import { readAtCatalogueVersion } from '../queries/at-catalogue-version.js';
import type { NearbyOptions } from '../queries/project-detail.js';
import { readFacilityTexts, readNearbyLinks } from '../queries/project-nearby.js';
import { CATEGORIES, categoryIndex, eachLink, shownLinks, writeNearbyBlock, type NearbyLinks } from '../search/project-nearby.js';
import type { Snapshot } from '../search/snapshot.js';

/*
 * GET /projects/{id}'s nearby block on demand (the default; NEARBY_IN_MEMORY keeps every project's in
 * each snapshot, ~105 MB on L and seconds of every build). The block is most of a detail (~1.28 MB for
 * a central project of L: ~900 facilities of 30 to 50 fields) and the same facility is near many
 * projects (4.4 M links to 50,000 facilities), so it is not kept per project: a project's links
 * (facility id and distance per category, ~12 bytes each) and each facility's text, once per
 * facility and form, are kept per snapshot as they are asked, and the block is written from them
 * (writeNearbyBlock, as the snapshot's form is). What is missing is read in one REPEATABLE READ
 * transaction with the catalogue version, and used only when that version is the snapshot's: a
 * request sees one catalogue. Before, the block was read with SQL for every body not yet kept, so a
 * client taking no compression had every full detail made by the database (70 req/s on L).
 */

/** Bytes kept per snapshot: every facility's full text on L is ~49 MB, the summaries ~6 MB. */
export const NEARBY_ON_DEMAND_BYTES = { links: 16 * 1024 * 1024, full: 64 * 1024 * 1024, summary: 8 * 1024 * 1024 } as const;

interface Kept {
  links: LRUCache<number, NearbyLinks>;
  texts: Record<NearbyForm, LRUCache<number, Buffer>>;
}

const kept = new WeakMap<Snapshot, Kept>();

function keptOf(snapshot: Snapshot): Kept {
  let entry = kept.get(snapshot);
  if (!entry) {
    const texts = (bytes: number) => new LRUCache<number, Buffer>({ maxSize: bytes, sizeCalculation: (text) => text.length + 64 });
    entry = {
      links: new LRUCache<number, NearbyLinks>({ maxSize: NEARBY_ON_DEMAND_BYTES.links, sizeCalculation: (links) => links.facility.length * 12 + 128 }),
      texts: { full: texts(NEARBY_ON_DEMAND_BYTES.full), summary: texts(NEARBY_ON_DEMAND_BYTES.summary) },
    };
    kept.set(snapshot, entry);
  }
  return entry;
}

/** One project's links (readNearbyLinks' rows) as the snapshot's form holds them for project index 0, facility ids in place of indexes. */
function projectLinks(rows: readonly { category: string; links: string }[]): NearbyLinks {
  const byCategory: { facility: number[]; distance: number[] }[] = Array.from({ length: CATEGORIES }, () => ({ facility: [], distance: [] }));
  for (const row of rows) {
    const c = categoryIndex.get(row.category);
    // A category the block does not show (the SQL path leaves it out too).
    if (c === undefined) continue;
    eachLink(row.links, (facilityId, distance) => {
      byCategory[c].facility.push(facilityId);
      byCategory[c].distance.push(distance);
    });
  }
  const linkAt = new Int32Array(CATEGORIES);
  const linkCount = new Int32Array(CATEGORIES);
  const facility: number[] = [];
  const distance: number[] = [];
  byCategory.forEach((links, c) => {
    linkAt[c] = facility.length;
    linkCount[c] = links.facility.length;
    for (let i = 0; i < links.facility.length; i++) {
      facility.push(links.facility[i]);
      distance.push(links.distance[i]);
    }
  });
  return { linkAt, linkCount, facility: Int32Array.from(facility), distance: Float64Array.from(distance) };
}

/**
 * The block of `projectId` with `snapshot`, written between `before` and `after`; undefined when the
 * database is already past the snapshot (the caller answers from the database, not kept).
 */
export async function nearbyOnDemand(database: Database, snapshot: Snapshot, projectId: number, options: NearbyOptions, before: Buffer, after: Buffer): Promise<Buffer | undefined> {
  const { links: keptLinks, texts: keptTexts } = keptOf(snapshot);
  const form = options.form ?? 'full';
  const texts = new Map<number, Buffer>();
  let links = keptLinks.get(projectId);
  let shown = links && shownLinks(links, 0, options);
  const missing = (candidate: NearbyLinks, indexes: readonly number[]) => {
    const ids: number[] = [];
    for (const i of indexes) {
      if (i < 0) continue;
      const id = candidate.facility[i];
      if (texts.has(id)) continue;
      const text = keptTexts[form].get(id);
      if (text) texts.set(id, text);
      else ids.push(id);
    }
    return ids;
  };
  const absent = links && shown ? missing(links, shown) : [];
  if (!links || absent.length > 0) {
    const read = await readAtCatalogueVersion(database, async (trx) => {
      const readLinks = links ?? projectLinks(await readNearbyLinks(trx, [projectId]));
      const readShown = shown ?? shownLinks(readLinks, 0, options);
      const ids = links ? absent : missing(readLinks, readShown);
      return { links: readLinks, shown: readShown, rows: ids.length > 0 ? await readFacilityTexts(trx, ids, form) : [] };
    });
    if (read.version !== snapshot.catalogueVersion) return undefined;
    ({ links, shown } = read.value);
    if (!keptLinks.has(projectId)) keptLinks.set(projectId, links);
    for (const row of read.value.rows) {
      const text = Buffer.from(row.text ?? '{}');
      texts.set(row.id, text);
      keptTexts[form].set(row.id, text);
    }
  }
  return writeNearbyBlock(links, shown!, (id) => {
    const text = texts.get(id);
    if (!text) throw new Error(`nearby on demand: facility ${id} not read`);
    return text;
  }, before, after);
}
