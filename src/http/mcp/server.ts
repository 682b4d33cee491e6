import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { isUnavailable } from '../../db/errors.js';
import { mcpToolCalls } from '../../metrics/instruments.js';
import { errorAnswer, messages } from '../../domain/error-catalogue.js';
import { ApiError, unavailable } from '../errors.js';
import { API_VERSION } from '../openapi/document.js';
import type { Catalogue } from './catalogue.js';
import { PROMPTS, PROMPTS_BY_NAME } from './prompts.js';
import { REFERENCE_LIST_NAMES, REFERENCE_LISTS, type ReferenceListName } from './reference-lists.js';
import { TOOLS, TOOLS_BY_NAME } from './tools.js';

/*
 * The process's one MCP server, for every request and every API key: it is connected once to the
 * endpoint's RequestTransport (request-transport.ts), and each request's handler reads what that
 * request brought (its key's catalogue, its log) by the request's id. It keeps nothing of a request
 * once answered, so any instance answers any request (stateless).
 *
 * The tools carry JSON Schemas generated from the API contract (TypeBox), which McpServer.registerTool
 * does not take (it wants zod schemas), so tools, resources and prompts are served by handlers set on
 * McpServer's underlying Server, as the SDK provides for this case.
 */

export const MCP_SERVER_NAME = 'catalogue-api';

export const INSTRUCTIONS = `
The agency's catalogue of UAE real-estate projects (off-plan and ready), in the agency's own prices,
and its CRM intake. Typical flow: list_reference to turn names into ids (areas, developers, features,
unit tags, project types) -> search_projects with filters (facets show how many projects each value
gives) -> get_project for units and prices -> get_unit for one unit. Quote prices as given: they are
the agency's prices. submit_application writes into the agency's CRM: only after the user has
confirmed the unit and every client detail, with one idempotency_key per confirmed application.
`.trim();

const RESOURCE_PREFIX = 'catalogue://reference/';

/** The same for every request and key: built once. */
const TOOL_LIST = {
  tools: TOOLS.map(({ name, title, description, inputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema: inputSchema as typeof inputSchema & { type: 'object' },
    annotations,
  })),
};

export interface McpLog {
  error(details: object, message: string): void;
}

/** What one request brings to the server besides its message. */
export interface McpRequestContext {
  catalogue: Catalogue;
  log: McpLog;
}

/*
 * The initialize handshake is the SDK's own (it negotiates the protocol version from the request; the
 * client's capabilities it records are never read, since this server sends clients no requests), and
 * no method waits for it: a stateless client may call a tool first.
 */
export function createMcpServer(contextOf: (requestId: RequestId) => McpRequestContext): McpServer {
  const mcp = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Catalogue API', version: API_VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  const { server } = mcp;

  server.setRequestHandler(ListToolsRequestSchema, () => TOOL_LIST);

  server.setRequestHandler(CallToolRequestSchema, async ({ params }, { requestId }): Promise<CallToolResult> => {
    const { catalogue, log } = contextOf(requestId);
    const tool = TOOLS_BY_NAME.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${params.name}`);
    try {
      const { text, structured } = await tool.run(catalogue, { ...(params.arguments ?? {}) });
      mcpToolCalls.inc({ tool: tool.name, outcome: 'ok' });
      return { content: [{ type: 'text', text }], structuredContent: structured };
    } catch (error) {
      mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
      return toolError(error, log, tool.name);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: REFERENCE_LIST_NAMES.map((list) => ({
      uri: `${RESOURCE_PREFIX}${list}`,
      name: list,
      title: REFERENCE_LISTS[list].title,
      description: `${REFERENCE_LISTS[list].description} Ids for ${REFERENCE_LISTS[list].usedBy}.`,
      mimeType: 'application/json',
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }, { requestId }) => {
    const list = params.uri.startsWith(RESOURCE_PREFIX) ? params.uri.slice(RESOURCE_PREFIX.length) : '';
    if (!(REFERENCE_LIST_NAMES as string[]).includes(list)) throw new McpError(ErrorCode.InvalidParams, `unknown resource: ${params.uri}`);
    const items = await contextOf(requestId).catalogue.listReference(list as ReferenceListName);
    return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(items) }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    const prompt = PROMPTS_BY_NAME.get(params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${params.name}`);
    const missing = prompt.arguments.find((argument) => argument.required && !params.arguments?.[argument.name]);
    if (missing) throw new McpError(ErrorCode.InvalidParams, `${missing.name} is required`);
    return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.text(params.arguments ?? {}) } }] };
  });

  return mcp;
}

/*
 * The SDK checks a request's params with its schema before the handler runs, and a failure reaches the
 * client as -32603 "Internal error" with the schema library's report as the message. The params of the
 * methods this server answers are checked here first, with the same schemas, and a failure is -32602
 * Invalid params naming the member (e.g. "params.arguments must be an object").
 */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ParamsIssue[] } } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
]);

interface ParamsIssue {
  code: string;
  path: PropertyKey[];
  expected?: string;
  message: string;
}

const EXPECTED: Record<string, string> = { record: 'an object', object: 'an object', string: 'a string', number: 'a number', boolean: 'a boolean', array: 'an array' };

/** The -32602 answer to a request whose params its method's schema refuses; undefined when they pass (or the method is unknown: the SDK answers that). */
export function invalidParamsAnswer(request: JSONRPCRequest): JSONRPCResponse | undefined {
  const schema = REQUEST_SCHEMAS.get(request.method);
  const checked = schema?.safeParse({ method: request.method, params: request.params });
  const issue = checked && !checked.success ? checked.error?.issues[0] : undefined;
  if (!issue) return undefined;
  const path = issue.path.map(String).join('.');
  const value = issue.path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined), request);
  const problem =
    issue.code === 'invalid_type'
      ? value === undefined
        ? `${path} is required`
        : `${path} must be ${EXPECTED[issue.expected ?? ''] ?? issue.expected}`
      : `${path} is invalid (${issue.message})`;
  return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } };
}

/*
 * A failed tool call is a result the model reads (isError), with the API's status and message, so it
 * can correct a filter or tell the user a project is not visible; nothing internal leaks.
 */
function toolError(error: unknown, log: McpLog, tool: string): CallToolResult {
  let failure: ApiError;
  const answer = errorAnswer(error);
  if (error instanceof ApiError) failure = error;
  // A rule's own error (a filter it cannot understand), mapped once, as the app's error handler does.
  else if (answer) failure = new ApiError(answer.statusCode, answer.message);
  else if (isUnavailable(error)) failure = unavailable();
  else {
    log.error({ err: error, tool }, 'mcp tool failed');
    failure = new ApiError(500, messages.internal);
  }
  return {
    isError: true,
    content: [{ type: 'text', text: failure.message }],
    structuredContent: { status: 'error', http_status: failure.statusCode, message: failure.message },
  };
}
