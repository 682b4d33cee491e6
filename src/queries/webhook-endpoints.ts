import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, WebhookEndpointsTable } from '../db/schema.js';
import { WEBHOOK_CHANNEL, type EventType } from '../domain/webhook-events.js';
import { newSecret, ROTATION_OVERLAP_MS } from '../domain/webhook-secrets.js';

/*
 * Webhook endpoints as the CLI manages them (`catalogue webhooks …`). URLs and event types are
 * checked by the caller (src/domain/webhook-target.ts, src/domain/webhook-events.ts); this module
 * only reads and writes. Secrets are returned by create and rotate, and never listed.
 */
export class WebhookAdminError extends Error {
  override name = 'WebhookAdminError';
}

export interface EndpointListing {
  id: number;
  api_key_id: number;
  key_prefix: string;
  company_id: number;
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  previous_secret_until: string | null;
  created_at: string;
}

function listing(db: Kysely<DB>) {
  return db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('api_keys as k', 'k.id', 'e.api_key_id')
    .select(['e.id', 'e.api_key_id', 'k.key_prefix', 'k.company_id', 'e.url', 'e.event_types', 'e.enabled', 'e.disabled_reason', 'e.previous_secret_until', 'e.created_at'])
    .orderBy('e.id');
}

export async function findEndpoint(db: Kysely<DB>, id: number): Promise<EndpointListing | undefined> {
  return listing(db).where('e.id', '=', id).executeTakeFirst();
}

export async function listEndpoints(db: Kysely<DB>, companyId?: number): Promise<EndpointListing[]> {
  let query = listing(db);
  if (companyId !== undefined) query = query.where('k.company_id', '=', companyId);
  return query.execute();
}

export async function createEndpoint(db: Kysely<DB>, input: { keyId: number; url: string; eventTypes: readonly EventType[] }): Promise<{ endpoint: EndpointListing; secret: string }> {
  const key = await db.selectFrom('api_keys').select(['id', 'status', 'deleted_at']).where('id', '=', input.keyId).executeTakeFirst();
  if (!key || key.deleted_at !== null) throw new WebhookAdminError(`key ${input.keyId} does not exist`);
  if (key.status !== 0) throw new WebhookAdminError(`key ${input.keyId} is revoked: a webhook sees what its key sees, and a revoked key sees nothing`);
  const secret = newSecret();
  const { id } = await db
    .insertInto('webhook_endpoints')
    .values({ api_key_id: input.keyId, url: input.url, event_types: [...input.eventTypes], secret })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { endpoint: (await findEndpoint(db, id))!, secret };
}

export interface EndpointChanges {
  url?: string;
  eventTypes?: readonly EventType[];
  enabled?: boolean;
}

/**
 * Changes an endpoint. Disabling by hand says so in `list`; enabling clears the reason and makes the
 * deliveries held meanwhile due at once (the workers are woken at commit). An endpoint of a revoked
 * key stays disabled (migration 0016 disabled it and dropped its queue when the key was revoked).
 */
export async function updateEndpoint(db: Kysely<DB>, id: number, changes: EndpointChanges): Promise<EndpointListing | undefined> {
  return db.transaction().execute(async (trx) => {
    if (changes.enabled) {
      const key = await trx
        .selectFrom('webhook_endpoints as e')
        .innerJoin('api_keys as k', 'k.id', 'e.api_key_id')
        .select(['k.id', 'k.status', 'k.deleted_at'])
        .where('e.id', '=', id)
        .executeTakeFirst();
      if (key && (key.status !== 0 || key.deleted_at !== null)) {
        throw new WebhookAdminError(`endpoint ${id} belongs to key ${key.id}, which is revoked: a webhook sees what its key sees, and a revoked key sees nothing`);
      }
    }
    const set: Partial<Selectable<WebhookEndpointsTable>> = {};
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.eventTypes !== undefined) set.event_types = [...changes.eventTypes];
    if (changes.enabled !== undefined) {
      set.enabled = changes.enabled;
      set.disabled_reason = changes.enabled ? null : `disabled by the operator at ${new Date().toISOString()}`;
    }
    const updated = await trx
      .updateTable('webhook_endpoints')
      .set({ ...set, updated_at: sql`now()` })
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!updated) return undefined;
    if (changes.enabled) {
      await trx.updateTable('webhook_deliveries').set({ next_attempt_at: sql`now()` }).where('endpoint_id', '=', id).where('state', '=', 'pending').execute();
      await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`.execute(trx);
    }
    return findEndpoint(trx, id);
  });
}

/** A new secret; the previous one keeps signing beside it for 24 h. */
export async function rotateSecret(db: Kysely<DB>, id: number): Promise<{ secret: string; previousUntil: string } | undefined> {
  const secret = newSecret();
  const row = await db
    .updateTable('webhook_endpoints')
    .set({
      previous_secret: sql`secret`,
      previous_secret_until: sql`now() + ${ROTATION_OVERLAP_MS}::int * interval '1 millisecond'`,
      secret,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning('previous_secret_until')
    .executeTakeFirst();
  return row ? { secret, previousUntil: row.previous_secret_until! } : undefined;
}

/** Deletes the endpoint with its messages and delivery log; false when there is none. */
export async function deleteEndpoint(db: Kysely<DB>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
