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
  unitNotFound: 'unit not found',
  projectNotFound: 'project not found',
  routeNotFound: 'route not found',
  offerStatusCatalogueEmpty: 'offer status catalogue is empty',
  internal: 'internal server error',
  contactRequired: 'client.email or client.mobile_number is required',
  invalidJson: 'request body is not valid JSON',
  bodyTooLarge: 'request body must not exceed 64 KiB',
  jsonContentType: 'Content-Type must be application/json',
  idempotencyMismatch: 'Idempotency-Key was already used with a different request body',
  idempotencyInFlight: 'a request with this Idempotency-Key is still being processed; retry later',
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

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);
