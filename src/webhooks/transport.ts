import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from '../domain/webhook-target.js';

/*
 * One POST of a webhook. Connections are checked where they are made: the host name is resolved by
 * our own lookup on the connection, which refuses it when any address it resolves to is not public
 * (src/domain/webhook-target.ts), so a name that points inside later (or a DNS rebinding between a
 * check and the connect) gets nowhere; an IP literal is checked before connecting. Redirects are not
 * followed (Node's http never does): a 3xx is an answer that is not 2xx, retried like any other. The
 * whole exchange (connect, TLS, headers, body) must end within the timeout. Keep-alive agents keep a
 * few connections per endpoint open, so a burst does not pay a TLS handshake per event.
 */
export interface PostOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: no address check (development and tests). */
  allowPrivate: boolean;
}

export interface PostResult {
  /** The HTTP status; undefined when there was no answer (refused, reset, timeout, refused target). */
  status?: number;
  /** Why there was no answer, in one line. */
  error?: string;
  ms: number;
}

export class UnsafeTargetError extends Error {
  override name = 'UnsafeTargetError';
}

const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) return callback(new UnsafeTargetError(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

const agentOptions = { keepAlive: true, maxSockets: 8, keepAliveMsecs: 10_000 };
const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

export function postWebhook(target: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<PostResult, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, ms: elapsed() });
    };
    const url = new URL(target);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate) {
      if (url.protocol !== 'https:') return finish({ error: `refused: ${url.protocol} target (https only)` });
      if (ipaddr.isValid(host) && !isPublicAddress(host)) return finish({ error: `refused: ${host} is not a public address` });
    }
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: 'POST',
      agent: agents[url.protocol as 'http:' | 'https:'],
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'CatalogueAPI-Webhooks/1' },
      ...(!options.allowPrivate && { lookup: safeLookup }),
    });
    timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('response', (response) => {
      // The answer's body is not kept; it is read (and dropped) so the connection can be reused.
      response.resume();
      response.on('end', () => finish({ status: response.statusCode }));
      response.on('error', () => finish({ status: response.statusCode }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error instanceof UnsafeTargetError || error.cause instanceof UnsafeTargetError ? `refused: ${error.message}` : error.code ? `${error.code}: ${error.message}` : error.message;
      finish({ error: reason });
    });
    request.end(body);
  });
}
