import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../src/http/app.js';

/** Listens on an ephemeral port of 127.0.0.1 and returns the base URL. */
export async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** The SDK's own client over Streamable HTTP, initialized against `${baseUrl}/mcp` with these headers. */
export async function mcpClient(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'catalogue-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } }));
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool result (every tool answers one text block). */
export function textOf(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== 'text') throw new Error(`expected a text block, got ${JSON.stringify(result.content)}`);
  return first.text;
}
