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
 * Catalogue events are what GET /changes lists for the endpoint's key for this transaction's catalogue
 * version, read by the feed's own query (src/queries/changes.ts) inside the transaction: the same
 * visibility (contracts, drafts, deletions, tombstones) and the same entries, in the key's prices.
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
    for (const endpoint of mine) {
      const cursor = encodeCursor({ keyId: endpoint.key_id, priceVector: endpoint.price_vector, ...position });
      const units = await unitsInKeyPrices(trx, read, endpoint.price_vector, version);
      for (const entry of read.entries) {
        const common = { changed_at: entry.changedAt, catalogue_version: entry.version, cursor };
        const timestamp = entry.changedAt;
        if (entry.rank === RANK.project) {
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
        events.push({ endpointId: endpoint.id, type: 'unit.changed', timestamp, data: { id: entry.id, project_id: projectId, ...common, ...unitChange(unit, previous.get(entry.id)) } });
      }
    }
  }
  return events;
}

interface UnitNow {
  id: number;
  status: number;
  price: number | null;
  previous_price: number | null;
}

/** The listed units of the entries, with their price now and their base price before, both in the key's prices. */
async function unitsInKeyPrices(trx: Kysely<DB>, read: ChangesRead, priceVector: number, version: number): Promise<Map<number, UnitNow>> {
  const ids = read.entries.filter((entry) => entry.rank === RANK.unit && entry.visible).map((entry) => entry.id);
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

/** What changed among availability, price and status, from the state noted before the transaction. */
function unitChange(unit: UnitNow, before: UnitBefore | undefined): Pick<UnitChangedData, 'changes' | 'price' | 'previous_price' | 'status' | 'previous_status'> {
  const result: ReturnType<typeof unitChange> = { changes: [], price: unit.price, status: unit.status };
  if (!before) return result;
  if (!before.existed || before.listed === false) result.changes.push('availability');
  if (!before.existed) return result;
  if (unit.previous_price !== unit.price) {
    result.changes.push('price');
    result.previous_price = unit.previous_price;
  }
  if (before.status !== null && before.status !== unit.status) {
    result.changes.push('status');
    result.previous_status = before.status;
  }
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
