import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { headersTooLargeMessage, messages, requestTimeoutMessage } from '../domain/error-catalogue.js';

/*
 * Requests Node's HTTP parser refuses before Fastify sees them (llhttp's HPE_* codes), and the
 * request timeout: Fastify's default clientErrorHandler answers them `{"error","message","statusCode"}`.
 * Here they get the envelope every other answer has, `{status: "error", message}`, with a message
 * saying what was wrong. Written on the raw socket (there is no request object yet), then closed:
 * after a framing error the rest of the stream cannot be trusted.
 */

/** Node's default --max-http-header-size: the request line and every header together. */
export const MAX_HEADER_BYTES = 16 * 1024;

export function clientErrorResponse(code: string | undefined, requestTimeoutS: number): { statusCode: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { statusCode: 431, message: headersTooLargeMessage(MAX_HEADER_BYTES / 1024) };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { statusCode: 408, message: requestTimeoutMessage(requestTimeoutS) };
    case 'HPE_INVALID_URL':
      return { statusCode: 400, message: messages.badRequestLine };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { statusCode: 400, message: messages.badContentLength };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { statusCode: 400, message: messages.badTransferEncoding };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE':
      return { statusCode: 400, message: messages.badHeader };
    default:
      return { statusCode: 400, message: messages.notHttp };
  }
}

type ClientErrorHandler = NonNullable<FastifyServerOptions['clientErrorHandler']>;

export function clientErrorHandler(requestTimeoutS: number): ClientErrorHandler {
  return function (this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Socket) {
    // A reset connection, or one already closed: nobody is left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { statusCode, message } = clientErrorResponse(error.code, requestTimeoutS);
    this.log.info({ statusCode, code: error.code, message }, 'request rejected by the HTTP parser');
    // As Node does: nothing is written over a response already under way (its headers sent).
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !current?.headersSent) {
      const body = JSON.stringify({ status: 'error', message });
      socket.write(
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'X-Content-Type-Options: nosniff\r\n' +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy(error);
  };
}
