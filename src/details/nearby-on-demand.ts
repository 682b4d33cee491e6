import { LRUCache } from 'lru-cache';
import type { Database } from '../db/database.js';
import type { NearbyForm } from '../contract/nearby-facilities.js';
import { readAtCatalogueVersion } from '../queries/at-catalogue-version.js';
import type { NearbyOptions } from '../queries/project-detail.js';
import { readFacilityTexts, readNearbyLinks } from '../queries/project-nearby.js';
import { CATEGORIES, categoryIndex, eachLink, shownLinks, writeNearbyBlock, type NearbyLinks } from '../search/project-nearby.js';
import type { Snapshot } from '../search/snapshot.js';
import type { DetailCacheBounds } from './detail-cache-budget.js';
import { perSnapshot } from '../search/per-snapshot.js';
import { largeBody } from '../bodies/large-bodies.js';
import { nearbyBlockRequests } from '../metrics/instruments.js';
import { createPoolSlots, halfThePool, type PoolSlots } from '../db/pool-slots.js';

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
 *
 * Bytes kept per snapshot, each within its share of the detail caches' budget (detail-cache-budget.ts):
 * every facility's full text on L is ~49 MB; a project's links ~50 bytes each with their references
 * to the texts (~45 kB for a central project of L, so 32 MB hold ~700 of them).
 *
 * The reads hold half the pool at most (pool-slots.ts): a fresh instance asked for many never-asked
 * projects at once (32 on PostgreSQL L, pool of 10) had every connection reading facilities, and the
 * other requests, and the blocks' own reads last in the pool's queue, failed with 503 after the
 * pool's 3 s wait. The surplus waits in memory, up to NEARBY_READ_SLOT_WAIT_MS on PostgreSQL, and looks
 * at what is kept again once it has its slot (the reads before it have kept most of the texts:
 * neighbours share facilities), writing the block from memory when nothing is missing any more. With
 * read replicas the cap is still half of one pool's size (reads go to the replicas' pools): a bound on
 * the process's cold reads, not a share of every pool. The SQL answer given when the database is past
 * the snapshot (project-detail-body.ts) is not capped: it is rare, and only right after a change.
 */

/** How long a block not kept may wait for a read slot on PostgreSQL before it is answered 503. */
export const NEARBY_READ_SLOT_WAIT_MS = 10_000;

/**
 * A project's links, with each link's facility text in each form once found (`texts[form][i]` for link
 * i). A block written again reads its texts from there: looking ~900 facilities up in the texts' cache
 * (a Map of ~42,000 entries, most lookups a cache miss of the processor) was a sixth of a full detail's
 * CPU. They hold only texts the cache still keeps: when one leaves it, every project's references are
 * dropped before the next block is written (Kept.textsLeft), so the cache's bound stays the memory bound.
 * The cost: a text reached by reference is not marked as used in the cache's recency order, so when
 * the cache starts to evict, texts of projects asked often may go first (and are then read again).
 */
interface KeptLinks {
  links: NearbyLinks;
  texts: Record<NearbyForm, (Buffer | undefined)[] | undefined>;
}

interface Kept {
  links: LRUCache<number, KeptLinks>;
  texts: Record<NearbyForm, LRUCache<number, Buffer>>;
  /** A text left its cache since the projects' references were last dropped. */
  textsLeft: boolean;
  /** Texts that left their caches, ever (a request gathering across an await compares it). */
  textsLeftCount: number;
}

/** One project's links (readNearbyLinks' rows) as the snapshot's form holds them for project index 0, facility ids in place of indexes. */
function projectLinks(rows: readonly { category: string; links: string }[]): NearbyLinks {
  const byCategory: { facility: number[]; distance: number[]; text: string[] }[] = Array.from({ length: CATEGORIES }, () => ({ facility: [], distance: [], text: [] }));
  for (const row of rows) {
    const c = categoryIndex.get(row.category);
    // A category the block does not show (the SQL path leaves it out too).
    if (c === undefined) continue;
    eachLink(row.links, (facilityId, distance, text) => {
      byCategory[c].facility.push(facilityId);
      byCategory[c].distance.push(distance);
      byCategory[c].text.push(text);
    });
  }
  const linkAt = new Int32Array(CATEGORIES);
  const linkCount = new Int32Array(CATEGORIES);
  const facility: number[] = [];
  const distance: number[] = [];
  // The distance as the SQL path writes it (PostgreSQL's own float8 text), so no request formats it:
  // ASCII, in one buffer (strings sliced from the row's text would keep the whole text alive).
  const texts: string[] = [];
  byCategory.forEach((links, c) => {
    linkAt[c] = facility.length;
    linkCount[c] = links.facility.length;
    for (let i = 0; i < links.facility.length; i++) {
      facility.push(links.facility[i]);
      distance.push(links.distance[i]);
      texts.push(links.text[i]);
    }
  });
  const at = new Int32Array(texts.length + 1);
  texts.forEach((text, i) => (at[i + 1] = at[i] + text.length));
  const bytes = Buffer.allocUnsafeSlow(at[texts.length]);
  texts.forEach((text, i) => bytes.write(text, at[i], 'latin1'));
  return { linkAt, linkCount, facility: Int32Array.from(facility), distance: Float64Array.from(distance), distanceText: { bytes, at } };
}

/** The nearby blocks one app writes on demand, with what it keeps per snapshot (detail-caches.ts makes it). */
export interface NearbyOnDemand {
  /**
   * The block of `projectId` with `snapshot`, written between `before` and `after`; undefined when the
   * database is already past the snapshot (the caller answers from the database, not kept).
   */
  block(snapshot: Snapshot, projectId: number, options: NearbyOptions, before: Buffer, after: Buffer): Promise<Buffer | undefined>;
  /** Bytes kept for the snapshot, by cache, as counted against their bounds (tests and scripts). */
  keptBytes(snapshot: Snapshot): { links: number; full: number; summary: number; strayReferences: number };
}

export function nearbyOnDemand(database: Database, bounds: DetailCacheBounds): NearbyOnDemand {
  // PGlite's single connection has no wait limit (its queue had none before the cap), so neither has its slot.
  const reads = createPoolSlots('nearby read', halfThePool(database.poolSize), database.driver === 'pglite' ? Number.POSITIVE_INFINITY : NEARBY_READ_SLOT_WAIT_MS);
  const caches = (): Kept => {
    const kept: Kept = {
      links: new LRUCache<number, KeptLinks>({
        maxSize: bounds.nearbyLinks,
        // Each link: facility id and distance (12 bytes), a reference to its text in each form (2 x 8).
        sizeCalculation: ({ links }) => links.facility.length * 32 + links.distanceText!.bytes.length + 256,
      }),
      texts: { full: texts(bounds.nearbyFull), summary: texts(bounds.nearbySummary) },
      textsLeft: false,
      textsLeftCount: 0,
    };
    function textLeft() {
      kept.textsLeft = true;
      kept.textsLeftCount++;
    }
    function texts(bytes: number) {
      return new LRUCache<number, Buffer>({ maxSize: bytes, sizeCalculation: (text) => text.length + 150, dispose: textLeft });
    }
    return kept;
  };
  // Made with the app: a bad bound fails at start-up (lru-cache checks its options), not on a request.
  caches();
  const keptOf = perSnapshot(caches);
  return {
    block: (snapshot, projectId, options, before, after) => block(database, reads, keptOf(snapshot), snapshot, projectId, options, before, after),
    keptBytes(snapshot) {
      const entry = keptOf.peek(snapshot);
      if (!entry) return { links: 0, full: 0, summary: 0, strayReferences: 0 };
      return { links: entry.links.calculatedSize, full: entry.texts.full.calculatedSize, summary: entry.texts.summary.calculatedSize, strayReferences: strayReferences(entry) };
    },
  };
}

async function block(
  database: Database,
  reads: PoolSlots,
  kept: Kept,
  snapshot: Snapshot,
  projectId: number,
  options: NearbyOptions,
  before: Buffer,
  after: Buffer,
): Promise<Buffer | undefined> {
  const { links: keptLinks, texts: keptTexts } = kept;
  const form = options.form ?? 'full';
  dropReferencesIfTextsLeft(kept);
  // Each shown link's facility text, by link index, into `found` (the project's references, else the
  // texts' cache); the facilities not kept are returned, to be read.
  const gather = (found: (Buffer | undefined)[], links: NearbyLinks, shown: readonly number[]): number[] => {
    const absent = new Set<number>();
    for (const i of shown) {
      if (i < 0 || found[i]) continue;
      const text = keptTexts[form].get(links.facility[i]);
      if (text) found[i] = text;
      else absent.add(links.facility[i]);
    }
    return [...absent];
  };
  // What is kept of the project: its links, the links shown, their texts found so far (the project's
  // references, filled from the texts' cache) and the facilities whose text is not kept.
  const fromKept = () => {
    const entry = keptLinks.get(projectId);
    if (!entry) return undefined;
    const found = (entry.texts[form] ??= []);
    const shown = shownLinks(entry.links, 0, options);
    return { links: entry.links, shown, found, absent: gather(found, entry.links, shown) };
  };
  const first = fromKept();
  let parts: { links: NearbyLinks; shown: readonly number[]; found: (Buffer | undefined)[] } | undefined = first;
  if (first?.absent.length === 0) nearbyBlockRequests.count('hit');
  else {
    // What is read is kept before the slot passes on: the next in line looks at what is kept first.
    const outcome = await reads.run(async () => {
      // Again once in a slot: the reads that held the slots meanwhile may have kept all this block needs.
      const now = fromKept();
      if (now?.absent.length === 0) return { result: 'hit' as const, parts: now };
      const read = await readAtCatalogueVersion(database, async (trx) => {
        // Each attempt its own (the read may be tried again on the primary, finding other links).
        const readLinks = now?.links ?? projectLinks(await readNearbyLinks(trx, [projectId]));
        const readShown = now?.shown ?? shownLinks(readLinks, 0, options);
        const readFound = now?.found ?? [];
        const textsLeftBefore = kept.textsLeftCount;
        const ids = gather(readFound, readLinks, readShown);
        return { links: readLinks, shown: readShown, found: readFound, textsLeftBefore, rows: ids.length > 0 ? await readFacilityTexts(trx, ids, form) : [] };
      });
      if (read.version !== snapshot.catalogueVersion) return { result: 'ahead' as const };
      const { links, shown, found } = read.value;
      // Links read (none were kept): kept, with this request's references unless a text left its cache
      // since they were gathered (another request's drop could not reach them), and unless another
      // request kept the project's links meanwhile (this one then writes from its own read).
      if (!now && !keptLinks.has(projectId)) {
        const references = kept.textsLeftCount === read.value.textsLeftBefore ? found : undefined;
        keptLinks.set(projectId, { links, texts: { full: undefined, summary: undefined, [form]: references } });
      }
      const texts = new Map<number, Buffer>();
      for (const row of read.value.rows) {
        // Memory of its own: a small Buffer.from(string) is cut from Node's shared 8 kB pool, and one kept
        // text would hold its whole slab (and whatever else was cut from it) alive.
        const text = Buffer.allocUnsafeSlow(Buffer.byteLength(row.text));
        text.write(row.text);
        texts.set(row.id, text);
        keptTexts[form].set(row.id, text);
        // A text its cache did not take (larger than its bound) must not stay referenced either.
        if (!keptTexts[form].has(row.id)) kept.textsLeft = true;
      }
      for (const i of shown) if (i >= 0 && !found[i]) found[i] = texts.get(links.facility[i])!;
      return { result: 'miss' as const, parts: { links, shown, found } };
    });
    nearbyBlockRequests.count(outcome.result);
    if (outcome.result === 'ahead') return undefined;
    parts = outcome.parts;
  }
  const { links, shown, found } = parts!;
  const written = writeNearbyBlock(links, shown, (i) => {
    const text = found[i];
    if (!text) throw new Error(`nearby on demand: facility ${links.facility[i]} not read`);
    return text;
  }, before, after, largeBody);
  // What this request's reads pushed out of the texts' caches is not held by reference past it.
  dropReferencesIfTextsLeft(kept);
  return written;
}

function dropReferencesIfTextsLeft(kept: Kept): void {
  if (!kept.textsLeft) return;
  kept.textsLeft = false;
  for (const { texts } of kept.links.values()) texts.full = texts.summary = undefined;
}

/** References to texts their cache no longer holds (0 once every block asked has been written). */
function strayReferences(kept: Kept): number {
  let stray = 0;
  for (const { links, texts } of kept.links.values()) {
    for (const form of ['full', 'summary'] as const) {
      texts[form]?.forEach((text, i) => {
        if (text && kept.texts[form].peek(links.facility[i]) !== text) stray++;
      });
    }
  }
  return stray;
}
