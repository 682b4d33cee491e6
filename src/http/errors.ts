import type { RejectionReason } from '../domain/application-merge.js';
import { messages, rateLimitMessage } from '../domain/error-catalogue.js';

/*
 * The error a route or plugin throws: a status and a message of the error catalogue
 * (src/domain/error-catalogue.ts), with the headers that go with it. The error handler in app.ts turns
 * it (and every framework and domain error) into the `{status: "error", message}` envelope.
 */
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
  new ApiError(429, rateLimitMessage(retryAfterS), {
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
