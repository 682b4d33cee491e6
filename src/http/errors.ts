import type { RejectionReason } from '../domain/application-merge.js';
import { messages, rateLimitMessage } from '../domain/error-catalogue.js';

/**
 * One problem of an invalid request, for clients that ask for every problem at once (`Prefer:
 * errors=all`, see every-error.ts): `field` is the path of the query parameter or body field
 * (`price_min`, `client.mobile_number`, `preference_ids[2]`), null when the problem is the request as
 * a whole; `code` is stable and machine-readable; `message` is what the `message` of the envelope
 * would say about it.
 */
export interface FieldError {
  field: string | null;
  code: string;
  message: string;
}

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
    /** Every problem, the first being `message`'s (400 only); absent: the message alone. */
    readonly errors?: FieldError[],
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
