import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
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
 * server and transport per request, nothing kept, so any instance can answer any request; the SDK
 * forbids reusing a stateless transport, and a server serves one transport at a time). Registered
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
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // The web-standard transport, answered through Fastify's reply: the body was parsed by Fastify
    // already, and the answer is one JSON text (no stream), so nothing needs the Node-to-web stream
    // adapter of the SDK's Node transport (a fifth of an MCP search's CPU, with the hijacked reply).
    // Neither is closed afterwards: a JSON-mode stateless transport holds no stream, timer or pending
    // request once it has answered, so both are simply garbage; closing them cost ~3 % of the CPU of
    // a search (the server builds an McpError, with its stack, to reject requests that do not exist).
    const answer = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
    return sendAnswer(reply, answer);
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new ApiError(405, 'method not allowed: this MCP endpoint is stateless, send every message with POST');
  };
  app.get('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
  app.delete('/mcp', { schema: { hide: true }, errorHandler: sendJsonRpcError }, notAllowed);
};

/** The transport's answer as it is: its status, its headers, its JSON text (not parsed to be serialized again). */
async function sendAnswer(reply: FastifyReply, answer: Response): Promise<FastifyReply> {
  answer.headers.forEach((value, name) => void reply.header(name, value));
  return reply.code(answer.status).send(await answer.text());
}

/** What the transport reads of the request: method, URL and headers (the body is handed over parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (value) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://${request.host || 'localhost'}${request.url}`, { method: 'POST', headers });
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
