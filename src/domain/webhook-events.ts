/*
 * The webhook event types, in one place: what an endpoint may subscribe to (CLI `--events`), what the
 * OpenAPI `webhooks:` section documents (src/contract/webhook-events.ts) and what is recorded.
 *
 * Catalogue events are drawn from GET /changes (a webhook sees only what its key's feed sees, in its
 * key's prices) but say what changed, once: one event per record whose own answer changed (a
 * `removed` is `*.removed`; an `upsert` is `*.changed` when the record's own answer changed, migration
 * 0016). The feed also lists what a mirror must re-read because something it embeds changed.
 */
export const CATALOGUE_EVENT_TYPES = ['project.changed', 'project.removed', 'unit.changed', 'unit.removed'] as const;
export const EVENT_TYPES = [...CATALOGUE_EVENT_TYPES, 'application.created', 'ping'] as const;

export type CatalogueEventType = (typeof CATALOGUE_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/** What an endpoint created without `--events` takes: everything (ping is always sent by `webhooks test`). */
export const DEFAULT_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type !== 'ping');

/** The NOTIFY channel that wakes delivery workers when deliveries are queued (at commit). */
export const WEBHOOK_CHANNEL = 'webhook_deliveries';

export class EventTypesError extends Error {
  override name = 'EventTypesError';
}

/** `--events a,b`: known types, unique, at least one; the error lists the valid ones. */
export function parseEventTypes(list: string): EventType[] {
  const names = [...new Set(list.split(',').map((name) => name.trim()).filter(Boolean))];
  if (names.length === 0) throw new EventTypesError(`--events needs at least one of: ${EVENT_TYPES.join(', ')}`);
  const unknown = names.filter((name) => !(EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new EventTypesError(`unknown event type ${unknown.join(', ')}: use ${EVENT_TYPES.join(', ')}`);
  return names as EventType[];
}
