import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { isInitializeRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/*
 * What the Streamable HTTP transport specification asks of a POST before its message reaches the
 * server, checked as the SDK's stateless transport (WebStandardStreamableHTTPServerTransport, JSON
 * answers) checks it, in its order, with its statuses, codes and messages: Accept, Content-Type, the
 * message itself (the SDK's JSON-RPC schema), MCP-Protocol-Version after initialization. No session
 * is checked: there are none. A batch never gets here (the route's body schema takes one message).
 */

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: null;
}

export type PostedMessage =
  | { kind: 'refused'; status: number; body: JsonRpcErrorBody }
  /** A notification, or a response to a server request: nothing to answer (202). */
  | { kind: 'accepted' }
  | { kind: 'request'; message: JSONRPCRequest };

const refused = (status: number, code: number, message: string): PostedMessage => ({ kind: 'refused', status, body: { jsonrpc: '2.0', error: { code, message }, id: null } });

export function readPost(headers: IncomingHttpHeaders, body: unknown): PostedMessage {
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refused(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(headers['content-type'])) return refused(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');

  const parsed = JSONRPCMessageSchema.safeParse(body);
  if (!parsed.success) return refused(400, -32700, 'Parse error: Invalid JSON-RPC message');
  const message = parsed.data;

  // The initialize request negotiates the version in its body; every other message may name it in the header.
  if (!('method' in message && message.method === 'initialize' && isInitializeRequest(message))) {
    const version = headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refused(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
  }
  return isRequest(message) ? { kind: 'request', message } : { kind: 'accepted' };
}

/** Of a message the SDK's schema accepted: a request has a method and an id (a notification no id, a response no method). */
function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}
