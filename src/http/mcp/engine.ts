import type { IncomingHttpHeaders } from 'node:http';
import { stringifyPrepared } from './prepared-json.js';
import { RequestTransport } from './request-transport.js';
import { createMcpServer, invalidParamsAnswer, type McpLog, type McpRequestContext } from './server.js';
import { readPost } from './streamable-http.js';

/*
 * The part of POST /mcp that needs the MCP SDK: the transport's checks of a posted message, and one
 * MCP server connected to a RequestTransport that answers it. http-endpoint.ts loads this module on
 * the first POST /mcp, so a process no client asks over MCP never loads the SDK and its schemas (with
 * ioredis, also loaded on demand; docs/performance.md, "Libraries loaded on demand"). The first POST,
 * refused by the transport's checks or not, waits for the load.
 */

/** What the route sends: a status, and a JSON text or no body. */
export interface McpAnswer {
  status: number;
  text?: string;
}

export interface McpEngine {
  /** Answers one posted message; `context` is made only for a request (notifications get 202 at once). */
  answer(headers: IncomingHttpHeaders, body: unknown, context: () => McpRequestContext): Promise<McpAnswer>;
  close(): Promise<void>;
}

export async function startMcpEngine(log: McpLog): Promise<McpEngine> {
  const transport = new RequestTransport<McpRequestContext>();
  const mcp = createMcpServer((requestId) => transport.contextOf(requestId));
  mcp.server.onerror = (error) => log.error({ err: error }, 'mcp server error');
  await mcp.connect(transport);
  return {
    async answer(headers, body, context) {
      const posted = readPost(headers, body);
      if (posted.kind === 'refused') return { status: posted.status, text: JSON.stringify(posted.body) };
      if (posted.kind === 'accepted') return { status: 202 };
      const answer = invalidParamsAnswer(posted.message) ?? (await transport.request(posted.message, context(), { requestInfo: { headers } }));
      return { status: 200, text: stringifyPrepared(answer) };
    },
    close: () => mcp.close(),
  };
}
