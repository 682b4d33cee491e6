import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest, type JSONRPCResponse, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/*
 * The one transport of the process's long-lived MCP server: each HTTP request's JSON-RPC request is
 * handed to the server (the SDK's Protocol, which answers requests concurrently) and the promise it
 * gets resolves when the server sends the response. The SDK's own Streamable HTTP transport is built
 * for one HTTP request at a time when stateless (new transport, new server, web Request and Response
 * per request: most of an MCP search's CPU); this one lives as long as the app.
 *
 * Clients choose their ids, and two HTTP requests in flight may carry the same one: the Protocol keys
 * its in-flight requests (and their abort controllers) by id, so each request goes in under an id of
 * its own (a counter) and its response comes back under the client's. What a request brings besides
 * the message (its API key's catalogue, its log) is held here under that internal id, which the
 * server's handlers receive as `extra.requestId`: nothing of one request is visible to another.
 */

interface InFlight<Context> {
  clientId: RequestId;
  context: Context;
  answer: (response: JSONRPCResponse) => void;
}

export class RequestTransport<Context> implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private readonly inFlight = new Map<RequestId, InFlight<Context>>();
  private lastId = 0;

  async start(): Promise<void> {}

  /** Hands one request to the server; resolves with the server's response, under the client's id. */
  request(message: JSONRPCRequest, context: Context, extra: MessageExtraInfo): Promise<JSONRPCResponse> {
    const { onmessage } = this;
    if (!onmessage) return Promise.resolve(closedAnswer(message.id));
    const id = ++this.lastId;
    return new Promise((answer) => {
      this.inFlight.set(id, { clientId: message.id, context, answer });
      try {
        onmessage({ ...message, id }, extra);
      } catch (error) {
        // Rejects the promise (the route's 500); nothing of the request is kept.
        this.inFlight.delete(id);
        throw error;
      }
    });
  }

  /** What the request with this (internal) id brought; the server's handlers call it with `extra.requestId`. */
  contextOf(id: RequestId): Context {
    const request = this.inFlight.get(id);
    if (!request) throw new Error(`no request ${String(id)} in flight`);
    return request.context;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only responses: a stateless server sends no requests or notifications of its own (no stream to
    // carry them), and none is related to a request here (no progress, no logging).
    if (!('result' in message || 'error' in message) || message.id === undefined) return;
    const request = this.inFlight.get(message.id);
    if (!request) return;
    this.inFlight.delete(message.id);
    request.answer({ ...message, id: request.clientId });
  }

  async close(): Promise<void> {
    const requests = [...this.inFlight.values()];
    this.inFlight.clear();
    this.onmessage = undefined;
    // The Protocol aborts its handlers on close and answers nothing more: the HTTP requests still
    // waiting get the error the SDK gives a closed connection.
    for (const { clientId, answer } of requests) answer(closedAnswer(clientId));
    this.onclose?.();
  }
}

function closedAnswer(id: RequestId): JSONRPCResponse {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: 'Connection closed' } };
}
