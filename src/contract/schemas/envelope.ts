import { Type, type TSchema } from '@sinclair/typebox';

/*
 * The response envelope, defined once. Every route declares `ok(Payload)` for success and the error
 * envelope for the failures it can produce, so serialization and the OpenAPI document agree.
 */
export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error', { description: 'Always `error`.' }),
    message: Type.String({ description: 'Human-readable reason.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.Union([Type.String(), Type.Null()], {
            description: 'Path of the query parameter or body field, as messages name it (`price_min`, `client.mobile_number`, `preference_ids[2]`); null when the problem is the request as a whole (e.g. a body that is not JSON).',
          }),
          code: Type.String({
            description: 'Machine-readable kind: the JSON Schema keyword that failed (`required`, `type`, `format`, `minimum`, `maxLength`, `pattern`, `anyOf`, `additionalProperties`, …), or `invalid` for a rule checked after the schema (e.g. a CSV filter or a range).',
          }),
          message: Type.String({ description: 'The problem in the words `message` would use for it.' }),
        }),
        {
          description:
            'Addition to the specification, opt-in: only on a 400 to a request sent with `Prefer: errors=all` (answered with `Preference-Applied: errors=all`). ' +
            'Every problem found, at most one per field, the first being the one `message` states. Every failure of the request\u2019s schema is listed; ' +
            'rules checked once the schema passes (the filters of GET /projects) are listed together when the schema passes.',
        },
      ),
    ),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

/** The success envelope around `data`; `description` describes the response in the OpenAPI document. */
export function Success<T extends TSchema>(data: T, description: string) {
  return Type.Object(
    { status: Type.Literal('success', { description: 'Always `success`.' }), data: { ...data, description: data.description ?? 'The payload.' } as T },
    { description },
  );
}

export function ok<T>(data: T): { status: 'success'; data: T } {
  return { status: 'success', data };
}

const errorDescriptions = {
  400: 'Invalid request: the message names the parameter or field. Correct it before retrying.',
  401: 'Missing or invalid API key (`missing api key`, `invalid api key`). Retrying does not help.',
  403: 'The key may not be used here: `origin is not allowed for this api key` or `agency license is required: upload a company license and wait for its approval`.',
  404: 'Not found, or not visible to this key.',
  409: 'Conflict.',
  410: 'Gone: what the request refers to can no longer be served.',
  500: '`internal server error`: unexpected failure, logged on the server. Read operations may be retried with backoff.',
  503: '`service unavailable, retry later`: the database cannot be reached (refused, reset or timed-out connection), or a write found its disk full (nothing of it was written). Sent with `Retry-After` (seconds); the same request works once the database is back or space is freed, without any other action on the server.',
} as const;

type ErrorCode = keyof typeof errorDescriptions;

const errorRef = Type.Ref(ErrorEnvelope);

/** Response schemas for a route: its success payload plus the error codes it can answer. */
export function responses<S extends Record<number, TSchema>>(success: S, extra: ErrorCode[] = [], overrides: Partial<Record<ErrorCode, string>> = {}) {
  const codes: ErrorCode[] = [400, 401, 403, ...extra, 500, 503];
  const errors: Record<number, TSchema> = {};
  for (const code of codes) errors[code] = { ...errorRef, description: overrides[code] ?? errorDescriptions[code] };
  return { ...success, ...errors } as S & Record<ErrorCode, TSchema>;
}
