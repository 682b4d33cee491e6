import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/*
 * Conditional GETs for the keyed read operations. The ETag is a strong hash of the serialized body as
 * it is sent, so it differs wherever the body differs: another key's price vector or visibility, or
 * any change of the data. Nothing is stored on the server; a match saves the transfer, not the query.
 *
 * `Cache-Control: private, no-cache`: a browser or client may keep the response but must revalidate it
 * (If-None-Match) before each use, so a revoked key or changed price is never served from a cache;
 * shared caches (proxies, CDNs) must not store it at all, since it depends on the key.
 */
export const CACHE_CONTROL = 'private, no-cache';

export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison (a `W/` prefix is ignored on either side),
 * takes a comma-separated list, and `*` matches any current representation.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  const wanted = opaque(etag);
  for (const match of header.matchAll(/(?:W\/)?"[^"]*"/g)) {
    if (opaque(match[0]) === wanted) return true;
  }
  return false;
}

/** onSend hook: ETag and Cache-Control on successful GET (and HEAD), 304 without a body on a match. */
export async function conditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const etag = etagOf(payload);
  reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
  const header = request.headers['if-none-match'];
  if (!ifNoneMatchMatches(Array.isArray(header) ? header.join(',') : header, etag)) return payload;
  // A 304 carries the validators and caching headers only, no content metadata.
  reply.code(304).removeHeader('content-type').removeHeader('content-length');
  return null;
}
