import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { compressedBodyRequests } from '../metrics/instruments.js';
import type { Snapshot } from '../search/snapshot.js';
import { acceptedCoding, COMPRESSION_THRESHOLD, compressSync, type ContentCoding } from './compression.js';
import { etagOf } from './http-cache.js';
import { JSON_TYPE, jsonBody } from './raw-json.js';

/*
 * Compressed once: a body made from a snapshot (a detail answer) is the same every time it is asked
 * with the same record, key prices, selection and coding, so its compressed bytes are kept and sent
 * again instead of being compressed again (Brotli 4 or gzip 6 cost ~3 ms per 100 kB of JSON; a cached
 * answer costs the lookup). Kept per snapshot: the cache belongs to the snapshot (a WeakMap entry),
 * so a new catalogue starts with an empty one and the old one goes with the old snapshot; nothing can
 * be served from a catalogue a request would not see. Bounded by bytes, least recently used first out.
 *
 * The ETag is made when the body is compressed, exactly as the conditional-GET hook makes it (the
 * hash of the identity body and the coding, http-cache.ts), and sent with the bytes: the hook keeps it,
 * answers If-None-Match with it, and @fastify/compress leaves a body that has a Content-Encoding alone.
 */

/** Compressed bytes kept per snapshot (a unit answer is ~1.2 kB in Brotli, a full project detail ~115 kB). */
export const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;

interface Compressed {
  coding: ContentCoding;
  etag: string;
  body: Buffer;
}

const caches = new WeakMap<Snapshot, LRUCache<string, Compressed>>();

function cacheOf(snapshot: Snapshot): LRUCache<string, Compressed> {
  let cache = caches.get(snapshot);
  if (!cache) {
    cache = new LRUCache<string, Compressed>({
      maxSize: COMPRESSED_CACHE_BYTES,
      // A body larger than a quarter of the cache would push out too much: compressed every time.
      maxEntrySize: COMPRESSED_CACHE_BYTES / 4,
      sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + 100,
    });
    caches.set(snapshot, cache);
  }
  return cache;
}

/**
 * Sends the JSON body `build` makes (as text parts). `key` names the body within the snapshot: every
 * input it depends on (record, key prices, currency, selection), never who may see it, which the route
 * has checked before. Below the compression threshold, or when the client takes no compression, the
 * body goes out as it is (and the hooks do as for any answer).
 */
export function sendCompressedOnce(request: FastifyRequest, reply: FastifyReply, snapshot: Snapshot, key: string, build: () => readonly string[]): FastifyReply {
  const coding = acceptedCoding(request, reply);
  const cache = coding && cacheOf(snapshot);
  const cacheKey = `${coding} ${key}`;
  const kept = cache?.get(cacheKey);
  if (kept) {
    compressedBodyRequests.inc({ result: 'hit' });
    return sendCompressed(reply, kept);
  }
  const body = jsonBody(build());
  if (!cache || !coding || body.length < COMPRESSION_THRESHOLD) return reply.type(JSON_TYPE).send(body);
  compressedBodyRequests.inc({ result: 'miss' });
  const compressed: Compressed = { coding, etag: etagOf(body, coding), body: compressSync(coding, body) };
  cache.set(cacheKey, compressed);
  return sendCompressed(reply, compressed);
}

function sendCompressed(reply: FastifyReply, { coding, etag, body }: Compressed): FastifyReply {
  return reply.type(JSON_TYPE).header('content-encoding', coding).header('etag', etag).send(body);
}

/** How many bodies the snapshot's cache holds (tests and scripts/search-model-size.ts). */
export function compressedBodies(snapshot: Snapshot): number {
  return caches.get(snapshot)?.size ?? 0;
}
