import { hash as digest } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { compressSync, negotiatedCoding, type ContentCoding } from './compression.js';

/*
 * Conditional GETs for the keyed read operations. The ETag is a strong hash of the serialized body as
 * it is sent, so it differs wherever the body differs: another key's price vector or visibility, or
 * any change of the data. A match saves the transfer; the detail routes also keep their bodies with
 * the search snapshot (compressed-once.ts), so a match there costs no query either.
 *
 * `Cache-Control: private, no-cache`: a browser or client may keep the response but must revalidate it
 * (If-None-Match) before each use, so a revoked key or changed price is never served from a cache;
 * shared caches (proxies, CDNs) must not store it at all, since it depends on the key.
 *
 * Each representation has its own ETag: a body sent gzip- or Brotli-compressed (compression.ts) gets
 * the hash of its content with the coding appended (`"<hash>-gzip"`, `"<hash>-br"`), so it never
 * shares a strong validator with the identity body, and If-None-Match is compared with the ETag of the
 * representation this request would get. The coding is known before compressing, so a 304 costs no
 * compression. Without compression the ETag is unchanged: the hash of the body as sent.
 */
export const CACHE_CONTROL = 'private, no-cache';

export function etagOf(body: string | Buffer, coding?: ContentCoding): string {
  const hash = hashOf(body);
  return coding ? `"${hash}-${coding}"` : `"${hash}"`;
}

/**
 * Where the hash of a body made again with the same bytes is kept (a search page asked again: its
 * envelope and items are made from a kept result, the same for every request asking it). Hashing a
 * search page was a large share of a repeated search's CPU (docs/performance.md, "Per-request work
 * kept"). Whoever attaches a slot to a body vouches that every body it attaches the slot to has the
 * same bytes.
 */
export interface HashSlot {
  hash?: string;
}

const slots = new WeakMap<Buffer, HashSlot>();

/** `body`, whose hash is read from (or, the first time, written to) `slot`. */
export function withHashSlot(body: Buffer, slot: HashSlot): Buffer {
  slots.set(body, slot);
  return body;
}

function hashOf(body: string | Buffer): string {
  const slot = typeof body === 'string' ? undefined : slots.get(body);
  if (slot?.hash !== undefined) return slot.hash;
  const hash = digest('sha256', body, 'base64url');
  if (slot) slot.hash = hash;
  return hash;
}

/** Adds `accept-encoding` to Vary (lower-case, as @fastify/compress writes it, so it is not repeated). */
function varyOnAcceptEncoding(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const text = current === undefined || current === null ? '' : Array.isArray(current) ? current.join(', ') : String(current);
  if (text.trim() === '') reply.header('vary', 'accept-encoding');
  else if (!ACCEPT_ENCODING_LISTED.test(text)) reply.header('vary', `${text}, accept-encoding`);
}

/** `accept-encoding` as one of a Vary list's names, any case (checked on every answer before the list is rewritten). */
const ACCEPT_ENCODING_LISTED = /(?:^|,)[ \t]*accept-encoding[ \t]*(?:,|$)/i;

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

/**
 * onSend hook: ETag, Cache-Control and Vary on successful GET (and HEAD), 304 without a body on a match.
 * A body the route sends already compressed (compressed-once.ts) comes with its ETag, made when it was
 * compressed the same way: the hook keeps it.
 */
export async function conditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const preset = reply.getHeader('etag');
  const coding = typeof preset === 'string' ? undefined : negotiatedCoding(request, reply, payload);
  const etag = typeof preset === 'string' ? preset : etagOf(payload, coding);
  reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
  varyOnAcceptEncoding(reply);
  const header = request.headers['if-none-match'];
  if (!ifNoneMatchMatches(Array.isArray(header) ? header.join(',') : header, etag)) {
    if (request.method !== 'HEAD' || !coding) return payload;
    reply.header('content-encoding', coding);
    return compressSync(coding, payload);
  }
  // A 304 carries the validators and caching headers only, no content metadata.
  reply.code(304).removeHeader('content-type').removeHeader('content-length').removeHeader('content-encoding');
  return null;
}
