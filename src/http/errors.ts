import type { RejectionReason } from '../domain/application-merge.js';

/*
 * Every error message the API can send, in one place. Routes throw ApiError; the error handler in
 * app.ts turns it (and every framework error) into the `{status: "error", message}` envelope.
 */
export const messages = {
  missingApiKey: 'missing api key',
  invalidApiKey: 'invalid api key',
  authorGone: 'api key author is gone',
  originNotAllowed: 'origin is not allowed for this api key',
  licenceRequired: 'agency license is required: upload a company license and wait for its approval',
  badId: 'id must be a positive integer',
  badUrl: 'request path is not valid: malformed percent-encoding',
  unitNotFound: 'unit not found',
  projectNotFound: 'project not found',
  routeNotFound: 'route not found',
  offerStatusCatalogueEmpty: 'offer status catalogue is empty',
  internal: 'internal server error',
  unavailable: 'service unavailable, retry later',
  databaseDown: 'database is down',
  contactRequired: 'client.email or client.mobile_number is required',
  invalidJson: 'request body is not valid JSON',
  bodyTooLarge: 'request body must not exceed 64 KiB',
  contentLengthMismatch: 'request body length does not match its Content-Length header',
  jsonContentType: 'Content-Type must be application/json',
  idempotencyMismatch: 'Idempotency-Key was already used with a different request body',
  idempotencyInFlight: 'a request with this Idempotency-Key is still being processed; retry later',
  badCursor: 'cursor is not valid: send next_cursor of a GET /changes response unchanged, or no cursor to start over',
  cursorExpired: 'cursor expired: start over without a cursor',
} as const;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Seconds a client is asked to wait (Retry-After) when the database cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** 503: the database cannot be reached; the same request should work once it is back. */
export const unavailable = (message: string = messages.unavailable) =>
  new ApiError(503, message, { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) });

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);
/** 410: a GET /changes cursor that cannot be continued (another key, new prices, another database). */
export const gone = (message: string) => new ApiError(410, message);

/** 429: the key has used up its requests for the current window (opt-in rate limiting). */
export const rateLimited = (retryAfterS: number, headers: Record<string, string>) =>
  new ApiError(429, `rate limit exceeded, retry in ${retryAfterS} second${retryAfterS === 1 ? '' : 's'}`, {
    ...headers,
    'retry-after': String(retryAfterS),
  });

/** Why an application was refused, as the API answers it (POST /units/{id}/applications, MCP submit_application). */
export function applicationRejected(reason: RejectionReason): ApiError {
  switch (reason.code) {
    case 'invalid':
      return new ApiError(400, reason.message);
    case 'unit_not_found':
      return new ApiError(404, messages.unitNotFound);
    case 'author_gone':
      return new ApiError(401, messages.authorGone);
    case 'offer_status_catalogue_empty':
      return new ApiError(500, messages.offerStatusCatalogueEmpty);
    case 'idempotency_mismatch':
      return new ApiError(409, messages.idempotencyMismatch);
    case 'idempotency_in_flight':
      return new ApiError(409, messages.idempotencyInFlight, { 'retry-after': '5' });
  }
}
