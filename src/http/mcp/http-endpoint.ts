import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../error-response.js';
import type { AppDeps } from '../deps.js';
import { ApiError, unavailable } from '../errors.js';
import { inServiceCatalogue } from './catalogue.js';
import { onDemand } from '../../lib/on-demand.js';
import type { McpEngine } from './engine.js';
import { mcpRouteSchema } from '../openapi/mcp-endpoint.js';

/*
 * POST /mcp: the Model Context Protocol over Streamable HTTP, in stateless mode (no session id, nothing
 * kept between requests, so any instance can answer any request). Registered in the authenticated
 * scope: the same key headers, the same 401/403 checks in the same order, the same rate limit as the
 * REST routes. Those refusals keep their HTTP status and message, in a JSON-RPC error body (what an
 * MCP client reads), e.g. 401 {"jsonrpc":"2.0","error":{"code":-32000,"message":"invalid api key",...},"id":null}.
 *
 * The route does the HTTP side of the transport itself (streamable-http.ts: the SDK transport's checks
 * and answers) and hands each request to one MCP server, connected once for the app to a
 * RequestTransport, with the key's catalogue: no server, transport or web Request/Response per request.
 * That server and the SDK are loaded on the first POST (engine.ts, src/lib/on-demand.ts): most processes are never asked
 * over MCP. The route, its schema and the API's refusals (key, origin, rate limit, body) are in place
 * at start-up; the transport's own checks (readPost) come with the SDK, so the first POST waits for it.
 *
 * Answers are JSON, not an SSE stream: every tool answers at once, and a stateless server has no stream
 * to resume. GET (a server-to-client stream) and DELETE (end of a session) have no meaning without
 * sessions: 405, as the transport specification allows. Notifications and client responses get 202 and
 * go no further: with no session there is nothing for them to act on (a cancellation names an id of
 * another HTTP request, which here may be another client's).
 */

/** JSON-RPC "server error" code for a request the HTTP layer refused (status in data.http_status). */
export const HTTP_REFUSAL_CODE = -32000;

export const mcpRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  // One engine per app, started by the first POST that needs it. A start that fails (the server's
  // connect) is tried again by the next POST; a module that fails to load stays failed (Node keeps the
  // error), and each POST is answered 500 as JSON-RPC. Once the app closes no engine is started (503).
  const engine = onDemand(
    () => import('./engine.js').then(({ startMcpEngine }) => startMcpEngine(app.log)),
    (running: McpEngine) => running.close(),
    () => unavailable(),
  );
  app.addHook('onClose', () => engine.close());

  app.post('/mcp', { schema: mcpRouteSchema, errorHandler: sendJsonRpcError }, async (request, reply) => {
    const answer = await (await engine.get()).answer(request.headers, request.body, () => ({ catalogue: inServiceCatalogue(deps, request.auth), log: request.log }));
    return sendJson(reply, answer.status, answer.text);
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new ApiError(405, 'method not allowed: this MCP endpoint is stateless, send every message with POST');
  };
  app.get('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
  app.delete('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
};

/** JSON text as it is (not through the route's response serializer), or no body, with the status the transport gives it. */
function sendJson(reply: FastifyReply, status: number, text?: string): FastifyReply {
  reply.code(status);
  return text === undefined ? reply.send() : reply.type('application/json').send(text);
}

function jsonRpcError(statusCode: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code: HTTP_REFUSAL_CODE, message, data: { http_status: statusCode } }, id: null };
}

/** The app's refusals (401, 403, 429, 400 body errors, 503), with the REST answer's status, headers and message, as JSON-RPC errors. */
function sendJsonRpcError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, message, headers } = toErrorResponse(error);
  if (statusCode >= 500) request.log.error({ err: error }, 'mcp request failed');
  else request.log.info({ statusCode, message }, 'mcp request rejected');
  reply.headers(headers).status(statusCode).type('application/json; charset=utf-8').send(jsonRpcError(statusCode, message));
}
