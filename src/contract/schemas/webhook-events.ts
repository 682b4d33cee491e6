import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { EventType } from '../../domain/webhook-events.js';

/*
 * The bodies of webhook requests: one definition each, used to build them (src/queries/webhook-events.ts)
 * and to document them (the `webhooks:` section of the OpenAPI document, src/http/openapi/webhooks.ts).
 * Every body is `{type, timestamp, data}` as Standard Webhooks recommends.
 */

const feedFields = {
  changed_at: Type.String({ format: 'date-time', description: 'When the change was committed (its transaction\u2019s time, UTC), as in GET /changes.' }),
  catalogue_version: Type.Integer({ format: 'int64', description: 'The catalogue version the change made (as in GET /health and GET /changes).' }),
  cursor: Type.String({
    description:
      'A GET /changes cursor (for this endpoint\u2019s key) from which the feed lists this change and everything after it. ' +
      'After an outage, or to check, pull `GET /changes?cursor=<this>` and follow `next_cursor`: nothing is missed.',
  }),
};

export const ProjectEventData = Type.Object({ id: Type.Integer({ description: 'The project\u2019s id.' }), ...feedFields });
export type ProjectEventData = Static<typeof ProjectEventData>;

export const UnitChange = Type.Union([Type.Literal('price'), Type.Literal('status'), Type.Literal('availability'), Type.Literal('details')]);

export const UnitChangedData = Type.Object({
  id: Type.Integer({ description: 'The unit\u2019s id.' }),
  project_id: Type.Integer({ description: 'Its project.' }),
  ...feedFields,
  changes: Type.Array(UnitChange, {
    minItems: 1,
    description:
      'What changed in the unit\u2019s own answer, never empty: `availability` (it was not listed for the key before: new, restored ' +
      'after a deletion, or its project became visible to the key), `price`, `status`, `details` (anything else of its own: number, ' +
      'bedrooms, size, floor, furnishing, parking, tags, plan). A change of its project (which GET /units/{id} embeds) comes as that ' +
      'project\u2019s `project.changed`, not as an event per unit; a new exchange rate sends no event (prices here are in the ' +
      'project\u2019s own currency; GET /changes lists the records whose `currency=` prices moved).',
  }),
  price: Type.Union([Type.Number(), Type.Null()], {
    description: 'The price now, in the key\u2019s prices and the project\u2019s own currency, as GET /units/{id} gives it without `currency=` (null: no price).',
  }),
  previous_price: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], { description: 'With `price` in `changes`: the price before, in the key\u2019s prices and the project\u2019s own currency.' }),
  ),
  status: Type.Integer({ minimum: 1, maximum: 5, description: 'The status now: 1 announced, 2 EOI, 3 start of sales, 4 on sale, 5 out of stock.' }),
  previous_status: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'With `status` in `changes`: the status before.' })),
});
export type UnitChangedData = Static<typeof UnitChangedData>;

export const UnitRemovedData = Type.Object({
  id: Type.Integer({ description: 'The unit\u2019s id.' }),
  project_id: Type.Integer({ description: 'The project it belonged to.' }),
  ...feedFields,
});
export type UnitRemovedData = Static<typeof UnitRemovedData>;

export const ApplicationCreatedData = Type.Object({
  api_key_id: Type.Integer({ description: 'The key the application was sent with (any key of the agency).' }),
  client_id: Type.Optional(Type.Integer({ description: 'The CRM client (found or created). Absent for endpoints of keys with private applications.' })),
  client_created: Type.Optional(Type.Boolean({ description: 'True when the application created the client. Absent for endpoints of keys with private applications.' })),
  opportunity_id: Type.Integer({ description: 'The opportunity created on the board.' }),
  offer_id: Type.Integer({ description: 'The draft offer.' }),
  offer_uuid: Type.String({ format: 'uuid', description: 'The offer\u2019s public identifier.' }),
  unit_id: Type.Integer({ description: 'The unit applied for.' }),
  project_id: Type.Integer({ description: 'Its project.' }),
  price: Type.Union([Type.Number(), Type.Null()], {
    description:
      'The offer\u2019s price in `currency`: the unit\u2019s price in the prices of the key the application was sent with, converted at the ' +
      'catalogue\u2019s rates when the offer\u2019s currency differs from the unit\u2019s (as the response\u2019s `offer.price`; see its `price_conversion`).',
  }),
  currency: Type.String({ description: 'The offer\u2019s currency.' }),
  created_at: Type.String({ format: 'date-time', description: 'When the application was recorded.' }),
});
export type ApplicationCreatedData = Static<typeof ApplicationCreatedData>;

export const PingData = Type.Object({
  endpoint_id: Type.Integer({ description: 'The endpoint tested.' }),
  message: Type.String({ description: 'A fixed text; answer 2xx.' }),
});
export type PingData = Static<typeof PingData>;

export interface EventDataTypes {
  'project.changed': ProjectEventData;
  'project.removed': ProjectEventData;
  'unit.changed': UnitChangedData;
  'unit.removed': UnitRemovedData;
  'application.created': ApplicationCreatedData;
  ping: PingData;
}

/** Each event type: its data schema, when it is sent, and an example body. */
export const WEBHOOK_EVENTS: { [T in EventType]: { data: TSchema; summary: string; description: string; example: EventDataTypes[T] } } = {
  'project.changed': {
    data: ProjectEventData,
    summary: 'A project\u2019s own answer changed (or it became visible) for the key',
    description:
      'Its own fields, plans, images, features, files, nearby facilities, developer, area or contract, or its unit summary ' +
      '(`price_from`, `size_from`) changed: fetch GET /projects/{id}. A change of one unit that leaves the summary as it was comes as ' +
      'that unit\u2019s `unit.changed` only (GET /changes also lists the project, whose detail lists its units).',
    example: { id: 1, changed_at: '2026-11-25T09:30:00.000Z', catalogue_version: 42, cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2Ijo1LCJhdCI6NDEsInJhbmsiOjIsImlkIjowLCJ0aHJvdWdoIjo0MX0.2wM4k0ZrS7yq1Q9m' },
  },
  'project.removed': {
    data: ProjectEventData,
    summary: 'A project is no longer visible to the key',
    description: 'Deleted, turned draft, contract ended or developer removed (`change: "removed"` in GET /changes): drop it and its units.',
    example: { id: 1, changed_at: '2026-11-25T09:30:00.000Z', catalogue_version: 43, cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2Ijo1LCJhdCI6NDIsInJhbmsiOjIsImlkIjowLCJ0aHJvdWdoIjo0Mn0.Jc8GQ9r1v0aWl3sT' },
  },
  'unit.changed': {
    data: UnitChangedData,
    summary: 'A unit\u2019s own answer changed (or it became visible) for the key',
    description: 'What changed among availability, price, status and its other details, with the previous price and status: one event per unit and change.',
    example: {
      id: 101,
      project_id: 1,
      changed_at: '2026-11-25T09:30:00.000Z',
      catalogue_version: 42,
      cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2Ijo1LCJhdCI6NDEsInJhbmsiOjIsImlkIjowLCJ0aHJvdWdoIjo0MX0.2wM4k0ZrS7yq1Q9m',
      changes: ['price', 'status'],
      price: 1890000,
      previous_price: 1995000,
      status: 4,
      previous_status: 3,
    },
  },
  'unit.removed': {
    data: UnitRemovedData,
    summary: 'A unit is no longer visible to the key',
    description: 'Deleted or moved to a project the key cannot see (`change: "removed"` in GET /changes): drop it.',
    example: { id: 101, project_id: 1, changed_at: '2026-11-25T09:30:00.000Z', catalogue_version: 43, cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2Ijo1LCJhdCI6NDIsInJhbmsiOjIsImlkIjowLCJ0aHJvdWdoIjo0Mn0.Jc8GQ9r1v0aWl3sT' },
  },
  'application.created': {
    data: ApplicationCreatedData,
    summary: 'An application was sent with a key of the agency',
    description: 'Sent to the endpoints of every key of the agency, whichever key the application came with.',
    example: {
      api_key_id: 7,
      client_id: 5012,
      client_created: true,
      opportunity_id: 8120,
      offer_id: 9311,
      offer_uuid: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
      unit_id: 101,
      project_id: 1,
      price: 1890000,
      currency: 'AED',
      created_at: '2026-11-25T09:31:12.000Z',
    },
  },
  ping: {
    data: PingData,
    summary: 'A test sent by `webhooks test`',
    description: 'Sent only when the operator tests the endpoint; endpoints do not subscribe to it.',
    example: { endpoint_id: 3, message: 'ping from the Catalogue API' },
  },
};

/** The body of any webhook request. */
export function webhookBodySchema(type: EventType): TSchema {
  return Type.Object(
    {
      type: Type.Literal(type, { description: 'The event type.' }),
      timestamp: Type.String({ format: 'date-time', description: 'When the event happened (UTC).' }),
      data: WEBHOOK_EVENTS[type].data,
    },
    { description: WEBHOOK_EVENTS[type].description },
  );
}

export interface WebhookBody<T extends EventType = EventType> {
  type: T;
  timestamp: string;
  data: EventDataTypes[T];
}
