import type { FastifyError } from 'fastify';
import { isUnavailable } from '../db/errors.js';
import { errorAnswer, messages } from '../domain/error-catalogue.js';
import { ApiError, unavailable } from './errors.js';

/*
 * Status, message and headers of any error thrown while handling a request: the app's error handler
 * sends them in the envelope, POST /mcp in a JSON-RPC error (src/http/mcp/http-endpoint.ts).
 */

/** Maps anything thrown while handling a request onto the error envelope; nothing internal leaks. */
export function toErrorResponse(error: FastifyError | ApiError): { statusCode: number; message: string; headers: Record<string, string> } {
  if (error instanceof ApiError) return { statusCode: error.statusCode, message: error.message, headers: error.headers };
  const answer = errorAnswer(error);
  if (answer) return { ...answer, headers: {} };
  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { statusCode: 400, message: messages.bodyTooLarge, headers: {} };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { statusCode: 400, message: messages.jsonContentType, headers: {} };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { statusCode: 400, message: messages.contentLengthMismatch, headers: {} };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { statusCode: 400, message: messages.invalidJson, headers: {} };
    case 'FST_ERR_BAD_URL':
      return { statusCode: 400, message: messages.badUrl, headers: {} };
    // Only `:id` segments are length-limited; no id that long is a positive 32-bit integer.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { statusCode: 400, message: messages.badId, headers: {} };
  }
  const statusCode = (error as FastifyError).statusCode ?? 500;
  if (error instanceof SyntaxError && statusCode === 400) return { statusCode: 400, message: messages.invalidJson, headers: {} };
  if (statusCode === 404) return { statusCode: 404, message: messages.routeNotFound, headers: {} };
  if (statusCode >= 400 && statusCode < 500) return { statusCode: 400, message: messages.badRequest, headers: {} };
  // The database unreachable is not a bug: the same request works once it is back (src/db/errors.ts).
  if (isUnavailable(error)) return toErrorResponse(unavailable());
  return { statusCode: 500, message: messages.internal, headers: {} };
}
