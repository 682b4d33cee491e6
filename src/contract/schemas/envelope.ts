import { Type, type TSchema } from '@sinclair/typebox';

/*
 * The response envelope, defined once. Every route declares `ok(Payload)` for success and the error
 * envelope for the failures it can produce, so serialization and the OpenAPI document agree.
 */
export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error', { description: 'Always `error`.' }),
    message: Type.String({ description: 'Human-readable reason.' }),
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
  503: '`service unavailable, retry later`: the database cannot be reached (refused, reset or timed-out connection). Sent with `Retry-After` (seconds); the same request works once the database is back, without any action on the server.',
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
