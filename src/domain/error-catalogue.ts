import { CursorError } from './changes-cursor.js';
import { FilterError } from './project-filters.js';

/*
 * Every error message the API can send, in one place, under the HTTP status that carries it (the
 * specification's error table, plus the additions: 408 request timeout, 409 Idempotency-Key, 410
 * changes cursor, 429 rate limit, 431 headers too large, 503 database unreachable). Every error answer
 * is the envelope `{status: "error", message}`.
 *
 * Routes and plugins throw ApiError (src/http/errors.ts) with a status and one of these messages; the
 * rules of the domain throw their own errors, and errorAnswer below binds those to a status. The app's
 * error handler (src/http/app.ts) is the one place that turns either, and every framework error, into
 * the envelope, so no route maps an error itself.
 */
export const ERROR_MESSAGES = {
  400: {
    badRequest: 'bad request',
    badId: 'id must be a positive integer',
    badUrl: 'request path is not valid: malformed percent-encoding',
    contactRequired: 'client.email or client.mobile_number is required',
    invalidJson: 'request body is not valid JSON',
    bodyTooLarge: 'request body must not exceed 64 KiB',
    contentLengthMismatch: 'request body length does not match its Content-Length header',
    jsonContentType: 'Content-Type must be application/json',
    badCursor: 'cursor is not valid: send next_cursor of a GET /changes response unchanged, or no cursor to start over',
    // Refused by Node's HTTP parser before any route (src/http/client-errors.ts).
    badRequestLine: 'request line is not valid: the path holds a character HTTP does not allow',
    badContentLength: 'Content-Length header is not valid',
    badTransferEncoding: 'Transfer-Encoding or chunked body is not valid',
    badHeader: 'request header is not valid: a name or value holds a character HTTP does not allow',
    notHttp: 'request is not valid HTTP/1.1',
  },
  401: {
    missingApiKey: 'missing api key',
    invalidApiKey: 'invalid api key',
    authorGone: 'api key author is gone',
  },
  403: {
    originNotAllowed: 'origin is not allowed for this api key',
    licenceRequired: 'agency license is required: upload a company license and wait for its approval',
  },
  404: {
    unitNotFound: 'unit not found',
    projectNotFound: 'project not found',
    routeNotFound: 'route not found',
  },
  409: {
    idempotencyMismatch: 'Idempotency-Key was already used with a different request body',
    idempotencyInFlight: 'a request with this Idempotency-Key is still being processed; retry later',
  },
  410: {
    cursorExpired: 'cursor expired: start over without a cursor',
  },
  500: {
    offerStatusCatalogueEmpty: 'offer status catalogue is empty',
    internal: 'internal server error',
  },
  503: {
    unavailable: 'service unavailable, retry later',
    databaseDown: 'database is down',
    /** /health/ready from SIGTERM on (src/service/server.ts): the load balancer should take the instance out. */
    shuttingDown: 'shutting down: send requests to another instance',
  },
} as const;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type ByName = UnionToIntersection<(typeof ERROR_MESSAGES)[keyof typeof ERROR_MESSAGES]>;

/** The messages by name, whatever their status (each name is used once). */
export const messages: ByName = Object.freeze(Object.assign({}, ...Object.values(ERROR_MESSAGES)));

/** 400: `currency=` names a code that is neither AED nor a rated currency (src/http/display-currency.ts). */
export const unratedCurrencyMessage = (currency: string) => `currency ${currency} has no exchange rate: use AED or a currency of GET /currencies`;

/** 408: the request's headers and body did not arrive in time (src/http/client-errors.ts). */
export const requestTimeoutMessage = (requestTimeoutS: number) => `request timed out: its headers and body must arrive within ${requestTimeoutS} s`;

/** 431: the request line and headers are larger than the parser takes (src/http/client-errors.ts). */
export const headersTooLargeMessage = (maxKiB: number) => `request headers are too large: the request line and headers must fit in ${maxKiB} KiB`;

/** 429: the key has used up its requests for the current window (opt-in rate limiting). */
export const rateLimitMessage = (retryAfterS: number) => `rate limit exceeded, retry in ${retryAfterS} second${retryAfterS === 1 ? '' : 's'}`;

/**
 * The status and message of an error a rule of the domain throws, or undefined for any other error:
 * a filter of GET /projects that cannot be understood names its parameter; a changes cursor this
 * service did not issue gets the one cursor message.
 */
export function errorAnswer(error: unknown): { statusCode: 400; message: string } | undefined {
  if (error instanceof FilterError) return { statusCode: 400, message: error.message };
  if (error instanceof CursorError) return { statusCode: 400, message: ERROR_MESSAGES[400].badCursor };
  return undefined;
}
