import { Type } from '@sinclair/typebox';
import { messages } from '../../domain/error-catalogue.js';

/*
 * POST /mcp in the OpenAPI document: the transport's envelope (JSON-RPC 2.0), not the tools, which an
 * MCP client discovers with tools/list. The body schema is what Fastify checks before the transport
 * sees the message (an object with jsonrpc and method or result/error); the transport checks the rest.
 */

const JsonRpcId = Type.Union([Type.String(), Type.Integer()], { description: 'Request id chosen by the client; echoed in the response.' });

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0', { description: 'Always `2.0`.' }),
    id: Type.Optional(JsonRpcId),
    method: Type.Optional(
      Type.String({ description: 'For requests and notifications: `initialize`, `tools/list`, `tools/call`, `resources/list`, `resources/read`, `prompts/list`, `prompts/get`, `ping`, `notifications/initialized`.' }),
    ),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The method\u2019s parameters (MCP specification).' })),
    result: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Only in a client\u2019s response to a server request (not used by this server).' })),
    error: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Only in a client\u2019s error response to a server request (not used by this server).' })),
  },
  { description: 'One JSON-RPC 2.0 message of the Model Context Protocol (batches are not accepted).' },
);

const JsonRpcError = Type.Object(
  {
    code: Type.Integer({ description: '`-32000` when the HTTP layer refused the request (key, origin, licence, rate limit, body); JSON-RPC codes of the transport otherwise (e.g. `-32600`, `-32700`).' }),
    message: Type.String({ description: 'The reason; for refusals of the HTTP layer, the REST API\u2019s message, e.g. `invalid api key`.' }),
    data: Type.Optional(
      Type.Object({ http_status: Type.Integer({ description: 'The HTTP status of this response.' }) }, { description: 'For refusals of the HTTP layer.' }),
    ),
  },
  { description: 'The JSON-RPC error.' },
);

const JsonRpcErrorResponse = (description: string) =>
  Type.Object(
    {
      jsonrpc: Type.Literal('2.0', { description: 'Always `2.0`.' }),
      id: Type.Union([JsonRpcId, Type.Null()], { description: 'Null when the request was refused before its id was read.' }),
      error: JsonRpcError,
    },
    { description },
  );

const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0', { description: 'Always `2.0`.' }),
    id: JsonRpcId,
    result: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The method\u2019s result. A failed tool call is a result too, with `isError: true` and the API\u2019s message as text.' })),
    error: Type.Optional(JsonRpcError),
  },
  { description: 'The JSON-RPC response to the request (answers are JSON, never an SSE stream).' },
);

const description = `
The catalogue for AI assistants, over the Model Context Protocol (Streamable HTTP transport,
protocol versions of the official SDK, e.g. \`2025-06-18\`): tools \`search_projects\`, \`get_project\`,
\`get_unit\`, \`get_project_contacts\`, \`list_reference\` and \`submit_application\`, the reference lists as
resources \`catalogue://reference/<list>\`, and prompts. Point an MCP client at this URL with the
API key in \`X-API-Key\` or \`Authorization: Bearer\`; the tools answer what the REST routes answer for
that key (visibility, prices, messages). See /llms.txt and the integration guide.

Stateless: no \`Mcp-Session-Id\`, no server-to-client stream. Every message is a \`POST\` with
\`Content-Type: application/json\` and \`Accept: application/json, text/event-stream\` (406 otherwise);
\`GET\` and \`DELETE\` answer 405. A request is answered with JSON (200), a notification with 202.

The key is checked as for every route (401 \`missing api key\` / \`invalid api key\`, 403 origin and
licence), and the rate limit counts each message; those refusals keep their HTTP status and carry
the API's message in a JSON-RPC error with \`id: null\`.
`.trim();

const refusal = (text: string) => JsonRpcErrorResponse(text);

export const mcpRouteSchema = {
  tags: ['AI agents'],
  operationId: 'mcp',
  summary: 'MCP endpoint (Model Context Protocol)',
  description,
  body: JsonRpcMessage,
  response: {
    200: JsonRpcResponse,
    202: Type.Null({ description: 'Accepted: the message was a notification (or a response); no body.' }),
    400: refusal('Not a JSON-RPC message: the body is not JSON, over 64 KiB, or not an MCP message; the message names the field.'),
    401: refusal('Missing or invalid API key (`missing api key`, `invalid api key`).'),
    403: refusal('`origin is not allowed for this api key` or `agency license is required: upload a company license and wait for its approval`.'),
    406: refusal('`Accept` does not include both `application/json` and `text/event-stream`.'),
    429: refusal('Only when the deployment enables rate limiting: `rate limit exceeded, retry in N seconds`; retry after `Retry-After` seconds.'),
    500: refusal('`internal server error`.'),
    503: refusal('`service unavailable, retry later`, with `Retry-After`.'),
  },
};

const refused = (status: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { http_status: status } } });

/** Examples of the document (checked against the schemas above by test/openapi-examples.test.ts). */
export const mcpExamples = {
  requestBody: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_projects', arguments: { bedrooms: '2', price_max: 3000000, limit: 5 } } },
  responses: {
    200: {
      jsonrpc: '2.0',
      id: 3,
      result: {
        content: [{ type: 'text', text: '57 projects match; showing 1\u20135 (sort: name). Prices are the agency\u2019s.\n- [project 34] Marina Vista Residences by Skyline Developments: from AED 1,250,000 \u2026' }],
        structuredContent: { total: 57, items: [] },
      },
    },
    400: refused(400, messages.invalidJson),
    401: refused(401, messages.invalidApiKey),
    403: refused(403, messages.originNotAllowed),
    406: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' } },
    429: refused(429, 'rate limit exceeded, retry in 12 seconds'),
    500: refused(500, messages.internal),
    503: refused(503, messages.unavailable),
  },
};
