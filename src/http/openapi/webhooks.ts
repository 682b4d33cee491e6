import { webhookBodySchema, WEBHOOK_EVENTS } from '../../contract/schemas/webhook-events.js';
import { EVENT_TYPES } from '../../domain/webhook-events.js';

/*
 * The `webhooks:` section of the OpenAPI 3.1 document: one entry per event type, the request this
 * service POSTs to an endpoint, with the Standard Webhooks headers and an example body. Built from
 * the payload schemas (src/contract/webhook-events.ts), so the document says what is sent.
 */
const signatureHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The message id (`msg_…`): the same on every retry and redelivery of one message. Use it to drop duplicates (delivery is at least once).',
    schema: { type: 'string' },
  },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'When this attempt was signed, in seconds since the Unix epoch. Refuse messages more than 5 minutes off (replays).', schema: { type: 'string' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64-decoded part of the endpoint\u2019s `whsec_` secret. ' +
      'Space-separated when several secrets sign (24 h after a rotation): accept the message when any of them matches.',
    schema: { type: 'string' },
  },
] as const;

const operationId = (type: string) => `webhook${type.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`;

export function webhookDocs() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationId(type),
          tags: ['Webhooks'],
          summary: WEBHOOK_EVENTS[type].summary,
          description: `${WEBHOOK_EVENTS[type].description} Sent to endpoints subscribed to \`${type}\` (\`catalogue webhooks create --events\`).`,
          security: [],
          parameters: [...signatureHeaders],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: webhookBodySchema(type),
                example: { type, timestamp: '2026-11-25T09:30:00.000Z', data: WEBHOOK_EVENTS[type].example },
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx: received. Answer within 10 s; do the work after answering.' },
            '410': { description: 'Gone: the endpoint is disabled at once, and receives nothing more until the operator enables it.' },
            '500': { description: 'Any other answer, a timeout (10 s) or a refused connection: retried with exponential backoff and jitter for 72 h, then the endpoint is disabled. While the endpoint gives no answer at all (timeout, refused connection), one delivery at a time probes it on that schedule and the endpoint\'s other deliveries wait; the first 2xx to the probe sends them at once.' },
          },
        },
      },
    ]),
  );
}
