import { LRUCache } from 'lru-cache';
import { readConsistently, type Database } from '../db/database.js';
import type { ReadScope } from '../domain/currency.js';
import type { LinkBuilder } from '../contract/links.js';
import { selectEnvelopeData, type FieldSelection } from '../contract/field-selection.js';
import { ok } from '../contract/schemas/envelope.js';
import { readUnitPageRows } from '../queries/unit-details.js';
import { findUnit } from '../queries/units.js';
import { unitJson } from '../search/find-unit.js';
import type { Snapshot } from '../search/snapshot.js';
import { buildUnitDetails, unitDetailsBytes, type UnitDetails } from '../search/unit-details.js';
import { toUnitModel } from './presenters/units.js';
import { okJsonParts } from './raw-json.js';

/*
 * GET /units/{id}'s body on a snapshot. The unit's texts come from its project's page
 * (src/search/unit-details.ts): read when a unit of the project is first asked, in a REPEATABLE READ
 * transaction with the catalogue version, and kept with the snapshot (bounded, least recently used
 * first out) only when the version is the snapshot's, so a request sees one catalogue. When the
 * database is already ahead of the snapshot (a change not yet refreshed), the request gets the SQL
 * path's answer (src/queries/units.ts, the reference of test/unit-detail-differential.test.ts).
 * Concurrent first requests for one project share one read (lru-cache's fetch).
 */

/** Pages kept per snapshot (unitDetailsBytes; on L a page is ~5-15 KB: ~16 MB holds a few thousand projects). */
export const UNIT_PAGES_BYTES = 16 * 1024 * 1024;

/** Serializes the envelope as the route's response schema does (reply.serialize). */
export type SerializeUnit = (envelope: { status: 'success'; data: ReturnType<typeof toUnitModel> }) => string;

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
}

type Pages = LRUCache<number, UnitDetails, PageContext>;
const keptPages = new WeakMap<Snapshot, Pages>();

/** The project's page read at the snapshot's version; undefined when the database is at another. */
async function readPage(projectId: number, { database, links, snapshot }: PageContext): Promise<UnitDetails | undefined> {
  const read = await readConsistently(database, (db) =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        // The version first: it fixes the transaction's snapshot (as the search snapshot is read).
        const state = await trx.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirst();
        return { version: state?.version ?? 0, rows: await readUnitPageRows(trx, projectId) };
      }),
  );
  if (read.version !== snapshot.catalogueVersion) return undefined;
  return buildUnitDetails(read.rows, links);
}

function pagesOf(snapshot: Snapshot): Pages {
  let pages = keptPages.get(snapshot);
  if (!pages) {
    pages = new LRUCache<number, UnitDetails, PageContext>({
      maxSize: UNIT_PAGES_BYTES,
      sizeCalculation: unitDetailsBytes,
      fetchMethod: (projectId, _stale, { context }) => readPage(projectId, context),
    });
    keptPages.set(snapshot, pages);
  }
  return pages;
}

/** The body, or undefined when the unit is not found (only possible when the database is ahead of the snapshot). */
export async function unitDetailBody(database: Database, links: LinkBuilder, serialize: SerializeUnit, snapshot: Snapshot, request: UnitRequest): Promise<UnitBody | undefined> {
  const { k, scope, fields } = request;
  const projectId = snapshot.projects.id[snapshot.units.project[k]];
  const page = await pagesOf(snapshot).fetch(projectId, { context: { database, links, snapshot } });
  if (page) return { parts: okJsonParts(unitJson(snapshot, page, k, scope, fields)), ofSnapshot: true };
  const row = await findUnit(database.db, scope, request.unitId);
  if (!row) return undefined;
  const text = serialize(ok(toUnitModel(row, links)));
  return { parts: [fields ? selectEnvelopeData(text, fields) : text], ofSnapshot: false };
}

/** How many project pages the snapshot keeps (tests and scripts/search-model-size.ts). */
export function keptUnitPages(snapshot: Snapshot): { pages: number; bytes: number } {
  const pages = keptPages.get(snapshot);
  return { pages: pages?.size ?? 0, bytes: pages?.calculatedSize ?? 0 };
}
