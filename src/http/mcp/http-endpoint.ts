import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../error-response.js';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { ApiError } from '../errors.js';
import { inServiceCatalogue } from './catalogue.js';
import { mcpRouteSchema } from './openapi.js';
import { createMcpServer } from './server.js';

/*
 * POST /mcp: the Model Context Protocol over Streamable HTTP, in stateless mode (no session id: a new
 * server and transport per request, nothing kept, so any instance can answer any request). Registered
 * in the authenticated scope: the same key headers, the same 401/403 checks in the same order, the same
 * rate limit as the REST routes. Those refusals keep their HTTP status and message, in a JSON-RPC error
 * body (what an MCP client reads), e.g. 401 {"jsonrpc":"2.0","error":{"code":-32000,"message":"invalid api key",...},"id":null}.
 *
 * Answers are JSON (enableJsonResponse), not an SSE stream: every tool answers at once, and a stateless
 * server has no stream to resume. GET (a server-to-client stream) and DELETE (end of a session) have
 * no meaning without sessions: 405, as the transport specification allows.
 */

/** JSON-RPC "server error" code for a request the HTTP layer refused (status in data.http_status). */
export const HTTP_REFUSAL_CODE = -32000;

export const mcpRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post('/mcp', { schema: mcpRouteSchema, errorHandler: sendJsonRpcError }, async (request, reply) => {
    const server = createMcpServer(inServiceCatalogue(deps, request.auth), request.log);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the response itself; the headers the hooks set (request id, CORS, rate
    // limit) go with it.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'mcp request failed');
      if (!reply.raw.headersSent) writeJsonRpcError(reply.raw, 500, messages.internal);
    }
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new ApiError(405, 'method not allowed: this MCP endpoint is stateless, send every message with POST');
  };
  app.get('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
  app.delete('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
};

function jsonRpcError(statusCode: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code: HTTP_REFUSAL_CODE, message, data: { http_status: statusCode } }, id: null };
}

function writeJsonRpcError(raw: FastifyReply['raw'], statusCode: number, message: string): void {
  raw.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(jsonRpcError(statusCode, message)));
}

/** The app's refusals (401, 403, 429, 400 body errors, 503), with the REST answer's status, headers and message, as JSON-RPC errors. */
function sendJsonRpcError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, message, headers } = toErrorResponse(error);
  if (statusCode >= 500) request.log.error({ err: error }, 'mcp request failed');
  else request.log.info({ statusCode, message }, 'mcp request rejected');
  reply.headers(headers).status(statusCode).type('application/json; charset=utf-8').send(jsonRpcError(statusCode, message));
}
