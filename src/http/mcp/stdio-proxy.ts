import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../openapi/document.js';
import { MCP_SERVER_NAME } from './server.js';

/*
 * `catalogue mcp --base-url … --key …`: the MCP server for desktop assistants that start their servers
 * as a process and talk over stdio. It holds no catalogue of its own: every message is passed on to the
 * service's POST /mcp with the key (the SDK's client over Streamable HTTP), so the tools, their answers
 * and their errors are the service's, whatever version it runs. Nothing but protocol goes to stdout.
 */

export interface StdioProxyOptions {
  baseUrl: string;
  apiKey: string;
  /** Defaults to the process's stdin/stdout. */
  transport?: Transport;
}

export async function runStdioProxy({ baseUrl, apiKey, transport }: StdioProxyOptions): Promise<{ close(): Promise<void> }> {
  const upstream = new Client({ name: `${MCP_SERVER_NAME}-stdio`, version: API_VERSION });
  // Connecting first checks the key and the base URL: a wrong one fails the start with the API's message.
  await upstream.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { 'X-API-Key': apiKey } } }));

  const remote = upstream.getServerVersion();
  const mcp = new McpServer(
    { name: remote?.name ?? MCP_SERVER_NAME, title: remote?.title, version: remote?.version ?? API_VERSION },
    { capabilities: upstream.getServerCapabilities() ?? {}, instructions: upstream.getInstructions() },
  );
  const { server } = mcp;
  server.setRequestHandler(ListToolsRequestSchema, ({ params }) => upstream.listTools(params));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => upstream.callTool(params));
  server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => upstream.listResources(params));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => upstream.readResource(params));
  server.setRequestHandler(ListPromptsRequestSchema, ({ params }) => upstream.listPrompts(params));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => upstream.getPrompt(params));
  await mcp.connect(transport ?? new StdioServerTransport());

  return {
    async close() {
      await mcp.close();
      await upstream.close();
    },
  };
}
