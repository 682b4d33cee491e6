import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { DB } from '../db/schema.js';
import type { Database } from '../db/database.js';
import { readAtCatalogueVersion } from '../queries/at-catalogue-version.js';
import type { ReadScope } from '../domain/currency.js';
import type { LinkBuilder } from '../contract/links.js';
import { selectEnvelopeData, type FieldSelection } from '../contract/field-selection.js';
import { spliceRawProperty } from '../contract/json-splice.js';
import { EMPTY_NEARBY_FACILITIES, nearbyFacilitiesJsonParts } from '../contract/nearby-facilities.js';
import { ok, Success } from '../contract/schemas/envelope.js';
import { ProjectDetail } from '../contract/schemas/projects.js';
import { schemaSerializer } from '../contract/schema-serializer.js';
import { findProjectDetail, type NearbyOptions, type ProjectDetailRow } from '../queries/project-detail.js';
import { nearbyBlock } from '../search/project-nearby.js';
import { nearbyOnDemand, type NearbyOnDemand } from './nearby-on-demand.js';
import { perSnapshot } from '../search/per-snapshot.js';
import type { DetailCacheBounds } from './detail-cache-budget.js';
import { largeBody } from '../bodies/large-bodies.js';
import type { Snapshot } from '../search/snapshot.js';
import { isVisibleProject } from '../search/visibility.js';
import { toProjectDetail } from './project-detail-presenter.js';
import type { JsonPart } from '../bodies/raw-json.js';

/*
 * GET /projects/{id}'s body, in parts to be sent without joining them into one string.
 *
 * From a snapshot (projectDetails): the nearby block, most of the bytes, is written from the
 * snapshot's compact form (src/search/project-nearby.ts) when the snapshot keeps one
 * (NEARBY_IN_MEMORY), else from the links and facility texts kept as they are asked
 * (src/details/nearby-on-demand.ts); the rest (~2-10 kB: the project, its media,
 * units in the key's prices, features) is the SQL path's own text, read once per snapshot, project,
 * price vector and currency and kept (bounded, least recently used first out). It is read in a
 * REPEATABLE READ transaction with the catalogue version, and kept only when the version is the
 * snapshot's: a request sees one catalogue. When the database is already ahead of the snapshot (a
 * change not yet refreshed), the request gets the SQL path's answer whole (sqlProjectDetailParts).
 *
 * The SQL path stays the reference (test/project-detail-differential.test.ts).
 */

export interface ProjectDetailRequest {
  projectId: number;
  scope: ReadScope;
  /** Only these properties of the detail; undefined: every one. */
  fields: FieldSelection | undefined;
  /** The nearby block's options (used when the selection has the block). */
  nearby: NearbyOptions;
}

/*
 * The one writer of a detail's text, whoever asks (the route, MCP's get_project): the route's response
 * schema compiled as Fastify compiles it (schema-serializer.ts). The texts are kept per snapshot and
 * shared, so a text written any other way (MCP used JSON.stringify, which leaves out what the schema
 * writes differently, e.g. a file's `url`) would have become the route's answer.
 */
const serializeDetail = schemaSerializer(Success(ProjectDetail, 'The project with every block.'));

export interface DetailBody {
  parts: JsonPart[];
  /** The body is the snapshot's (may be kept with it); false: the database was ahead of it. */
  ofSnapshot: boolean;
}

/** The envelope without the nearby block (its empty placeholder), `fields` applied. */
function envelopeText(row: ProjectDetailRow, links: LinkBuilder): string {
  return serializeDetail(ok(toProjectDetail(row, links)));
}

function withNearby(text: string, fields: FieldSelection | undefined, nearbyParts: () => JsonPart[]): JsonPart[] {
  // Selected from the small part (the nearby block is still its empty placeholder here).
  const selected = fields ? selectEnvelopeData(text, fields) : text;
  if (fields && !fields.has('nearby_facilities')) return [selected];
  return spliceRawProperty(selected, 'nearby_facilities', EMPTY_NEARBY_FACILITIES, nearbyParts());
}

/** The SQL path: two queries (the project with its blocks, then the nearby block as JSON text made by the database). */
export async function sqlProjectDetailParts(db: Kysely<DB>, links: LinkBuilder, request: ProjectDetailRequest): Promise<JsonPart[] | undefined> {
  const nearbyAsked = !request.fields || request.fields.has('nearby_facilities');
  const row = await findProjectDetail(db, request.scope, request.projectId, nearbyAsked ? request.nearby : undefined);
  if (!row) return undefined;
  return withNearby(envelopeText(row, links), request.fields, () => nearbyFacilitiesJsonParts(row.nearby));
}

/** The project's detail row read with the catalogue version (on a replica when there are). */
async function readAtVersion(database: Database, scope: ReadScope, projectId: number, nearby: NearbyOptions | undefined): Promise<{ version: number; row: ProjectDetailRow | undefined }> {
  const { version, value } = await readAtCatalogueVersion(database, (trx) => findProjectDetail(trx, scope, projectId, nearby));
  return { version, row: value };
}

/** The project details one app makes from its snapshots, with what it keeps per snapshot (detail-caches.ts makes it). */
export interface ProjectDetails {
  /** The body on a snapshot, or undefined when the key does not see the project (unknown, draft, deleted, not contracted: alike). */
  parts(snapshot: Snapshot, request: ProjectDetailRequest): Promise<DetailBody | undefined>;
  /** The nearby blocks written on demand (when the snapshot keeps none). */
  nearby: NearbyOnDemand;
  /** Bytes of envelope texts kept for the snapshot, as counted against their bound (the metrics' gauge). */
  keptTextBytes(snapshot: Snapshot): number;
}

export function projectDetails(database: Database, links: LinkBuilder, bounds: DetailCacheBounds): ProjectDetails {
  const nearby = nearbyOnDemand(database, bounds);
  /** The envelope text kept per snapshot (bytes: ~2 per character), by project, price vector and currency. */
  const texts = () => new LRUCache<string, string>({ maxSize: bounds.projectTexts, sizeCalculation: (text, key) => (text.length + key.length) * 2 + 64 });
  // Made with the app: a bad bound fails at start-up (lru-cache checks its options), not on a request.
  texts();
  const textsOf = perSnapshot(texts);
  return {
    nearby,
    parts: (snapshot, request) => detailParts(database, links, textsOf(snapshot), nearby, snapshot, request),
    keptTextBytes: (snapshot) => textsOf.peek(snapshot)?.calculatedSize ?? 0,
  };
}

async function detailParts(
  database: Database,
  links: LinkBuilder,
  texts: LRUCache<string, string>,
  nearbyOnDemand: NearbyOnDemand,
  snapshot: Snapshot,
  request: ProjectDetailRequest,
): Promise<DetailBody | undefined> {
  const { projectId, scope } = request;
  const p = snapshot.indexOf.get(projectId);
  if (p === undefined || !isVisibleProject(snapshot, scope, projectId)) return undefined;
  const { nearby } = snapshot;
  const key = `${projectId} ${scope.price_vector} ${scope.display?.currency ?? ''}`;
  let text = texts.get(key);
  if (text === undefined) {
    const read = await readAtVersion(database, scope, projectId, undefined);
    if (read.version !== snapshot.catalogueVersion) {
      const parts = await sqlProjectDetailParts(database.db, links, request);
      return parts && { parts, ofSnapshot: false };
    }
    // At the snapshot's version the project is visible to the key (checked above, with the same contracted ids).
    if (!read.row) return undefined;
    text = envelopeText(read.row, links);
    texts.set(key, text);
  }
  const parts = withNearby(text, request.fields, () => []);
  // A selection without the block: the text as it is.
  if (parts.length === 1) return { parts, ofSnapshot: true };
  // The body in one buffer with the block written in place (one allocation of ~1.28 MB, not two), taken
  // from memory used again once sent (large-bodies.ts: the caller gives it back).
  const [before, after] = parts.map((part) => Buffer.from(part));
  const block = nearby
    ? nearbyBlock(nearby, p, request.nearby, before, after, largeBody)
    : await nearbyOnDemand.block(snapshot, projectId, request.nearby, before, after);
  if (block) return { parts: [block], ofSnapshot: true };
  // The database is past the snapshot: its answer, whole, not kept.
  const answer = await sqlProjectDetailParts(database.db, links, request);
  return answer && { parts: answer, ofSnapshot: false };
}
