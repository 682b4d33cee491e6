import { LRUCache } from 'lru-cache';
import type { Database } from '../db/database.js';
import { readAtCatalogueVersion } from '../queries/at-catalogue-version.js';
import type { ReadScope } from '../domain/currency.js';
import type { LinkBuilder } from '../contract/links.js';
import { selectEnvelopeData, type FieldSelection } from '../contract/field-selection.js';
import { ok, Success } from '../contract/schemas/envelope.js';
import { UnitModel } from '../contract/schemas/units.js';
import { schemaSerializer } from '../contract/schema-serializer.js';
import { readUnitPageRows, type UnitPageRows } from '../queries/unit-details.js';
import { findUnit } from '../queries/units.js';
import { unitJson } from '../search/find-unit.js';
import type { Snapshot } from '../search/snapshot.js';
import { buildUnitDetails, unitDetailsBytes, type UnitDetails } from '../search/unit-details.js';
import { toUnitModel } from './units-presenter.js';
import { okJsonParts } from '../bodies/raw-json.js';
import { detailCacheBounds } from './detail-cache-budget.js';
import { perSnapshot } from '../search/per-snapshot.js';

/*
 * GET /units/{id}'s body on a snapshot. The unit's texts come from its project's page
 * (src/search/unit-details.ts): read when a unit of the project is first asked, in a REPEATABLE READ
 * transaction with the catalogue version, and kept with the snapshot (bounded, least recently used
 * first out) only when the version is the snapshot's, so a request sees one catalogue. When the
 * database is already ahead of the snapshot (a change not yet refreshed), the request gets the SQL
 * path's answer (src/queries/units.ts, the reference of test/unit-detail-differential.test.ts).
 * Concurrent first requests for one project share one read (lru-cache's fetch).
 */

/** The route's response schema compiled as Fastify compiles it: the SQL path's text for the route and MCP's get_unit alike. */
const serializeUnit = schemaSerializer(Success(UnitModel, 'The unit, with its project, developer, area, plan and tags.'));

export interface UnitRequest {
  unitId: number;
  /** The unit's index in the snapshot (visibleUnitIndex: the key sees it there). */
  k: number;
  scope: ReadScope;
  fields: FieldSelection | undefined;
}

export interface UnitBody {
  parts: string[];
  /** The body is the snapshot's (may be kept with it); false: the database was ahead of it. */
  ofSnapshot: boolean;
}

interface PageContext {
  database: Database;
  links: LinkBuilder;
  snapshot: Snapshot;
  /** One string for equal texts within the snapshot (tags' parts, the same on every page). */
  intern: (text: string) => string;
}

type Pages = LRUCache<number, UnitDetails, PageContext>;

/** Projects per read of the warm-up (one transaction, five queries, for all of them). */
const WARM_CHUNK = 200;

/** The unit pages of one app (src/http/app.ts makes one; a test may make its own and pass it in). */
export interface UnitPages {
  /** The body, or undefined when the unit is not found (only possible when the database is ahead of the snapshot). */
  body(snapshot: Snapshot, request: UnitRequest): Promise<UnitBody | undefined>;
  /** How many project pages are kept for the snapshot (tests and scripts). */
  kept(snapshot: Snapshot): { pages: number; bytes: number };
}

export interface UnitPagesOptions {
  /**
   * After the first unit asked of a snapshot, read the other projects' pages in the background
   * (default true). Tests that count what is read on demand turn it off.
   */
  warm?: boolean;
  /**
   * Bytes of pages kept per snapshot (unitDetailsBytes; default: the budget's share). On L a page is
   * ~9 KB by that count, so all of L's 4,375 visible projects fit in ~40 MB. Too small a bound thrashes:
   * the bench's 2,000 units over ~1,700 projects, each page pushed out before it was asked again, read
   * every answer with SQL (docs/performance.md, "Unit pages read per project").
   */
  bytes?: number;
}

export function unitPages(database: Database, links: LinkBuilder, { warm = true, bytes = detailCacheBounds().unitPages }: UnitPagesOptions = {}): UnitPages {
  /** The snapshot's interning of texts shared by pages (a handful of tags: unbounded is fine). */
  const internOf = perSnapshot((): ((text: string) => string) => {
    const texts = new Map<string, string>();
    return (text) => {
      const kept = texts.get(text);
      if (kept !== undefined) return kept;
      texts.set(text, text);
      return text;
    };
  });
  const contextOf = (snapshot: Snapshot): PageContext => ({ database, links, snapshot, intern: internOf(snapshot) });
  const pages = (): Pages =>
    new LRUCache<number, UnitDetails, PageContext>({
      maxSize: bytes,
      sizeCalculation: unitDetailsBytes,
      fetchMethod: async (projectId, _stale, { context }) => {
        const rows = (await readPageRows([projectId], context))?.get(projectId);
        return rows && buildUnitDetails(rows, context.links, context.intern);
      },
    });
  // Made with the app: a bad bound fails at start-up (lru-cache checks its options), not on a request.
  pages();
  const pagesOf = perSnapshot((snapshot) => {
    const made = pages();
    if (warm) warmPages(made, contextOf(snapshot), bytes).catch(() => undefined);
    return made;
  });

  return {
    async body(snapshot, request) {
      const { k, scope, fields } = request;
      const projectId = snapshot.projects.id[snapshot.units.project[k]];
      const context = contextOf(snapshot);
      const pages = pagesOf(snapshot);
      const page = await pages.fetch(projectId, { context }).catch((error: unknown) => {
        // The warm-up set the page while this read was in flight (lru-cache rejects the read as replaced).
        const warmed = pages.get(projectId);
        if (warmed) return warmed;
        throw error;
      });
      if (page) return { parts: okJsonParts(unitJson(snapshot, page, k, scope, fields)), ofSnapshot: true };
      const row = await findUnit(database.db, scope, request.unitId);
      if (!row) return undefined;
      const text = serializeUnit(ok(toUnitModel(row, links)));
      return { parts: [fields ? selectEnvelopeData(text, fields) : text], ofSnapshot: false };
    },
    kept(snapshot) {
      const pages = pagesOf.peek(snapshot);
      return { pages: pages?.size ?? 0, bytes: pages?.calculatedSize ?? 0 };
    },
  };
}

/** The projects' page rows read at the snapshot's version; undefined when the database is at another. */
async function readPageRows(projectIds: number[], { database, snapshot }: PageContext): Promise<Map<number, UnitPageRows> | undefined> {
  const read = await readAtCatalogueVersion(database, (trx) => readUnitPageRows(trx, projectIds));
  return read.version === snapshot.catalogueVersion ? read.value : undefined;
}

/** How long the warm-up builds pages before letting requests run: a chunk's 200 pages took 56-97 ms in one go on L (a page at most ~5 ms). */
const WARM_SLICE_MS = 4;

/**
 * After the first unit asked of a snapshot, the pages of its projects are read in the background, in
 * chunks, until the bound is reached (on L: all of them in a few seconds), so that the next visitors
 * of a project find its page kept instead of waiting for a read of their own (on PGlite, one
 * connection, such reads queued behind each other: 59 req/s in the bench with pages made only on
 * demand). Stops when the database has moved past the snapshot (a newer one is coming) or on an error
 * (pages are then made on demand).
 */
async function warmPages(pages: Pages, context: PageContext, bytes: number): Promise<void> {
  const ids = context.snapshot.projects.id;
  for (let at = 0; at < ids.length; at += WARM_CHUNK) {
    const chunk = Array.from(ids.subarray(at, at + WARM_CHUNK)).filter((projectId) => !pages.has(projectId));
    if (chunk.length === 0) continue;
    const read = await readPageRows(chunk, context);
    if (!read) return;
    // Built a slice at a time, requests running between slices: built in one go, a chunk's pages held
    // the event loop long enough to show in the requests' p99.
    let sliceBegun = performance.now();
    for (const [projectId, rows] of read) {
      if (performance.now() - sliceBegun > WARM_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceBegun = performance.now();
      }
      if (pages.has(projectId)) continue;
      const page = buildUnitDetails(rows, context.links, context.intern);
      if (!page) continue;
      if (pages.calculatedSize + unitDetailsBytes(page) > bytes) return;
      pages.set(projectId, page);
    }
    // Requests go first between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
