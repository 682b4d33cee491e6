import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApplicationCreatedData, EventDataTypes, UnitChangedData, WebhookBody } from '../contract/schemas/webhook-events.js';
import type { DB, WebhookUnitBeforeTable } from '../db/schema.js';
import { encodeCursor, RANK } from '../domain/changes-cursor.js';
import { keyPriceSql } from '../domain/pricing.js';
import { CATALOGUE_EVENT_TYPES, type EventType } from '../domain/webhook-events.js';
import { newMessageId } from '../domain/webhook-secrets.js';
import { readChanges, type ChangesRead } from './changes.js';

/*
 * Webhook events are recorded by the transaction that makes the change (the import's, the
 * application's): they commit with it or not at all, so a rolled-back change sends nothing and a
 * committed one is never forgotten. Each event is a message for one endpoint plus its first delivery;
 * the insert notifies the delivery workers, at commit.
 *
 * Catalogue events are drawn from what GET /changes lists for the endpoint's key for this transaction's
 * catalogue version, read by the feed's own query (src/queries/changes.ts) inside the transaction: the
 * same visibility (contracts, drafts, deletions, tombstones), in the key's prices. Of those entries,
 * an event goes for each record whose own answer changed (migration 0016 keeps which): a unit's price
 * change is one `unit.changed`, plus its project's `project.changed` only when the project's own
 * answer (e.g. `price_from`) changed too; the feed's other entries (the project's other units, which
 * embed it; records whose `currency=` prices moved with a rate) send nothing.
 * Only endpoints whose key could read the catalogue now get them (active key, agency not deleted and
 * licensed), as the key itself would be refused otherwise.
 */

/** Catalogue writers are serialized, so everything at this transaction's version is this transaction's. */
const EVERYTHING = 1_000_000_000;
const INSERT_CHUNK = 2_000;

interface Subscriber {
  id: number;
  event_types: string[];
  key_id: number;
  price_vector: number;
  agency_id: number;
  private_applications: boolean;
}

export interface QueuedEvent<T extends EventType = EventType> {
  endpointId: number;
  type: T;
  timestamp: string;
  data: EventDataTypes[T];
}

/** Writes messages and their first deliveries; returns how many. */
export async function enqueueEvents(trx: Kysely<DB>, events: QueuedEvent[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < events.length; start += INSERT_CHUNK) {
    const chunk = events.slice(start, start + INSERT_CHUNK);
    const chunkIds = chunk.map(() => newMessageId());
    const bodies = chunk.map((event) => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data } satisfies WebhookBody));
    await sql`
      WITH m AS (
        INSERT INTO webhook_messages (id, endpoint_id, event_type, body)
        SELECT * FROM unnest(${chunkIds}::text[], ${chunk.map((e) => e.endpointId)}::int[], ${chunk.map((e) => e.type)}::text[], ${bodies}::text[])
        RETURNING id, endpoint_id
      )
      INSERT INTO webhook_deliveries (message_id, endpoint_id) SELECT id, endpoint_id FROM m`.execute(trx);
    ids.push(...chunkIds);
  }
  return ids;
}

/** Enabled endpoints of keys that could read now, taking any of `types`; `agencyId` narrows to one agency. */
async function subscribers(trx: Kysely<DB>, types: readonly string[], agencyId?: number): Promise<Subscriber[]> {
  let query = trx
    .selectFrom('webhook_endpoints as e')
    .innerJoin('api_keys as k', 'k.id', 'e.api_key_id')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .where('e.enabled', '=', true)
    .where('k.status', '=', 0)
    .where('k.deleted_at', 'is', null)
    .where('c.deleted_at', 'is', null)
    .where('c.licence_status', '=', 'approved')
    .where(sql<boolean>`e.event_types && ${[...types]}::text[]`)
    .select(['e.id', 'e.event_types', 'k.id as key_id', 'k.price_vector', 'k.company_id as agency_id', 'k.private_applications'])
    .orderBy('e.id');
  if (agencyId !== undefined) query = query.where('k.company_id', '=', agencyId);
  return query.execute();
}

/**
 * At the end of a catalogue-writing transaction: one event per GET /changes entry of this
 * transaction's version, for every endpoint subscribed to its type. Returns how many were queued.
 */
export async function recordCatalogueEvents(trx: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ version: number }>`SELECT note_catalogue_change() AS version`.execute(trx);
  const version = Number(rows[0].version);
  const endpoints = await subscribers(trx, CATALOGUE_EVENT_TYPES);
  const events = endpoints.length === 0 ? [] : await catalogueEvents(trx, endpoints, version);
  // What the unit triggers noted is for this transaction only (and older rows, of writers that did not call this, go too).
  await trx.deleteFrom('webhook_unit_before').where('version', '<=', version).execute();
  await enqueueEvents(trx, events);
  return events.length;
}

async function catalogueEvents(trx: Kysely<DB>, endpoints: Subscriber[], version: number): Promise<QueuedEvent[]> {
  const before = await trx.selectFrom('webhook_unit_before').selectAll().where('version', '=', version).execute();
  const previous = new Map(before.map((row) => [row.unit_id, row]));

  const events: QueuedEvent[] = [];
  for (const agencyId of new Set(endpoints.map((endpoint) => endpoint.agency_id))) {
    const mine = endpoints.filter((endpoint) => endpoint.agency_id === agencyId);
    const position = { version: version - 1, rank: RANK.end, id: 0, visibleOnlyThrough: version - 1 };
    const read = await readChanges(trx, { agencyId, cursor: { keyId: mine[0].key_id, priceVector: mine[0].price_vector, ...position }, limit: EVERYTHING });
    if (read.entries.length === 0) continue;
    const own = await ownChanges(trx, read, agencyId, version);
    const unitIds = read.entries.filter((entry) => entry.rank === RANK.unit && entry.visible && (own.units.has(entry.id) || own.appeared.has(entry.projectId ?? 0))).map((entry) => entry.id);
    for (const endpoint of mine) {
      const cursor = encodeCursor({ keyId: endpoint.key_id, priceVector: endpoint.price_vector, ...position });
      const units = await unitsInKeyPrices(trx, unitIds, endpoint.price_vector, version);
      for (const entry of read.entries) {
        const common = { changed_at: entry.changedAt, catalogue_version: entry.version, cursor };
        const timestamp = entry.changedAt;
        if (entry.rank === RANK.project) {
          // A project listed only for what it embeds (its units' rows) or for a rate: its units say it.
          if (entry.visible && !own.projects.has(entry.id)) continue;
          const type = entry.visible ? 'project.changed' : 'project.removed';
          if (endpoint.event_types.includes(type)) events.push({ endpointId: endpoint.id, type, timestamp, data: { id: entry.id, ...common } });
          continue;
        }
        const projectId = entry.projectId ?? 0;
        if (!entry.visible) {
          if (endpoint.event_types.includes('unit.removed')) events.push({ endpointId: endpoint.id, type: 'unit.removed', timestamp, data: { id: entry.id, project_id: projectId, ...common } });
          continue;
        }
        const unit = units.get(entry.id);
        if (!unit || !endpoint.event_types.includes('unit.changed')) continue;
        const change = unitChange(unit, previous.get(entry.id), own.units.get(entry.id), own.appeared.has(projectId));
        // Listed only for its project (which a unit response embeds) or for a rate: nothing of its own to say.
        if (change.changes.length === 0) continue;
        events.push({ endpointId: endpoint.id, type: 'unit.changed', timestamp, data: { id: entry.id, project_id: projectId, ...common, ...change } });
      }
    }
  }
  return events;
}

interface OwnChanges {
  /** Visible projects whose own answer changed (not only a unit of theirs or a rate). */
  projects: Set<number>;
  /** Units whose own answer changed, with whether more than price, status and listing did. */
  units: Map<number, { details: boolean }>;
  /** Projects that became visible to the agency's keys: each of their units appears with them. */
  appeared: Set<number>;
}

/**
 * What of the feed's entries changed in its own answer at this version (migration 0016): a project's
 * own columns and parts, its developer, its area, the agency's contract, or its unit summary
 * (`price_from`, `size_from`, from the units noted before the transaction); a unit's own columns and parts.
 */
async function ownChanges(trx: Kysely<DB>, read: ChangesRead, agencyId: number, version: number): Promise<OwnChanges> {
  const projectIds = read.entries.filter((entry) => entry.rank === RANK.project && entry.visible).map((entry) => entry.id);
  const unitIds = read.entries.filter((entry) => entry.rank === RANK.unit && entry.visible).map((entry) => entry.id);
  const projects = new Set<number>();
  const appeared = new Set<number>();
  if (projectIds.length > 0) {
    const { rows } = await sql<{ id: number; own: boolean; appeared: boolean }>`
      WITH b AS (
        SELECT * FROM webhook_unit_before WHERE version = ${version}::bigint
      ), summarised AS (
        SELECT DISTINCT project_id FROM (
          SELECT b.project_id FROM b WHERE b.project_id IS NOT NULL
          UNION ALL SELECT u.project_id FROM units u JOIN b ON b.unit_id = u.id
        ) s WHERE project_id = ANY(${projectIds}::int[])
      ), before_units AS (
        SELECT u.project_id, u.price, u.unit_area FROM units u JOIN summarised s ON s.project_id = u.project_id
         WHERE u.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM b WHERE b.unit_id = u.id)
        UNION ALL
        SELECT b.project_id, b.price, b.unit_area FROM b JOIN summarised s ON s.project_id = b.project_id WHERE b.existed AND b.listed
      ), summary_changed AS (
        SELECT s.project_id FROM summarised s
         WHERE (SELECT ROW(min(price), min(unit_area)) FROM before_units bu WHERE bu.project_id = s.project_id)
               IS DISTINCT FROM (SELECT ROW(min(price), min(unit_area)) FROM units u WHERE u.project_id = s.project_id AND u.deleted_at IS NULL)
      )
      SELECT p.id,
             p.own_version = ${version}::bigint OR d.own_version = ${version}::bigint OR a.own_version = ${version}::bigint
               OR ct.own_version = ${version}::bigint OR p.id IN (SELECT project_id FROM summary_changed) AS own,
             p.published_version = ${version}::bigint OR ct.opens_version = ${version}::bigint AS appeared
        FROM projects p JOIN companies d ON d.id = p.company_id LEFT JOIN areas a ON a.id = p.area_id
        LEFT JOIN contracts ct ON ct.agency_id = ${agencyId}::int AND ct.developer_id = p.company_id
       WHERE p.id = ANY(${projectIds}::int[])`.execute(trx);
    for (const row of rows) {
      if (row.own || row.appeared) projects.add(row.id);
      if (row.appeared) appeared.add(row.id);
    }
  }
  const units = new Map<number, { details: boolean }>();
  if (unitIds.length > 0) {
    const rows = await trx
      .selectFrom('units')
      .select(['id', 'details_version'])
      .where('id', '=', sql<number>`ANY(${unitIds}::int[])`)
      .where('own_version', '=', version)
      .execute();
    for (const row of rows) units.set(row.id, { details: row.details_version !== null && Number(row.details_version) === version });
  }
  return { projects, units, appeared };
}

interface UnitNow {
  id: number;
  status: number;
  price: number | null;
  previous_price: number | null;
}

/** The units, with their price now and their base price before, both in the key's prices. */
async function unitsInKeyPrices(trx: Kysely<DB>, ids: number[], priceVector: number, version: number): Promise<Map<number, UnitNow>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('units as u')
    .leftJoin('webhook_unit_before as b', (join) => join.onRef('b.unit_id', '=', 'u.id').on('b.version', '=', version))
    .where('u.id', '=', sql<number>`ANY(${ids}::int[])`)
    .select(['u.id', 'u.status', keyPriceSql(sql.ref('u.price'), priceVector).as('price'), keyPriceSql(sql.ref('b.price'), priceVector).as('previous_price')])
    .execute();
  return new Map(rows.map((row) => [row.id, { ...row, price: row.price === null ? null : Number(row.price), previous_price: row.previous_price === null ? null : Number(row.previous_price) }]));
}

type UnitBefore = Selectable<WebhookUnitBeforeTable>;

/**
 * What changed in the unit's own answer: availability, price and status from the state noted before
 * the transaction, `details` for anything else of its own; `availability` too when its project
 * appeared to the key. Empty: nothing of its own changed.
 */
function unitChange(unit: UnitNow, before: UnitBefore | undefined, own: { details: boolean } | undefined, projectAppeared: boolean): Pick<UnitChangedData, 'changes' | 'price' | 'previous_price' | 'status' | 'previous_status'> {
  const result: ReturnType<typeof unitChange> = { changes: [], price: unit.price, status: unit.status };
  if (projectAppeared || (own && before && (!before.existed || before.listed === false))) result.changes.push('availability');
  if (!own) return result;
  if (before?.existed) {
    if (unit.previous_price !== unit.price) {
      result.changes.push('price');
      result.previous_price = unit.previous_price;
    }
    if (before.status !== null && before.status !== unit.status) {
      result.changes.push('status');
      result.previous_status = before.status;
    }
  }
  if (own.details) result.changes.push('details');
  return result;
}

/**
 * In the application's transaction: `application.created` for every endpoint of the agency's keys that
 * takes it. Endpoints of keys with private applications (migration 0009) are not told the client's id
 * nor whether it was created, as such a key's own answer does not say them: they would tell whether
 * a contact was already known.
 */
export async function recordApplicationEvent(trx: Kysely<DB>, agencyId: number, data: ApplicationCreatedData): Promise<number> {
  const endpoints = (await subscribers(trx, ['application.created'], agencyId)).filter((endpoint) => endpoint.event_types.includes('application.created'));
  const { client_id: _clientId, client_created: _created, ...withoutClient } = data;
  await enqueueEvents(
    trx,
    endpoints.map((endpoint) => ({ endpointId: endpoint.id, type: 'application.created' as const, timestamp: data.created_at, data: endpoint.private_applications ? withoutClient : data })),
  );
  return endpoints.length;
}
