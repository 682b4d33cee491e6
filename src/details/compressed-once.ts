import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { compressedBodyRequests, identityBodyRequests } from '../metrics/instruments.js';
import type { SearchModel } from '../search/search-model.js';
import type { Snapshot } from '../search/snapshot.js';
import { acceptedCoding, COMPRESSION_THRESHOLD, compressSync, type ContentCoding } from '../bodies/compression.js';
import type { DetailCacheBounds } from './detail-cache-budget.js';
import { etagOf } from '../bodies/http-cache.js';
import { isLargeBody, reuseNow, reuseOnceSent } from '../bodies/large-bodies.js';
import { perSnapshot } from '../search/per-snapshot.js';
import { JSON_TYPE, jsonBody, type JsonPart } from '../bodies/raw-json.js';

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

/*
 * Compressed bytes kept per snapshot and kind of body, each within its share of the detail caches'
 * budget (detail-cache-budget.ts): a unit answer is ~1.2 kB in Brotli; a full project detail ~115 kB,
 * and a page of them (L's bench rotates over 500 projects) needs ~55 MB to be compressed once.
 */
export type BodyKind = 'units' | 'projects';

/** Identity ETags kept per snapshot: hashing a 1.28 MB detail costs ~2 ms, as much as making it. */
const IDENTITY_ETAGS = 20_000;

/*
 * Identity bodies kept per snapshot and kind, for clients that take no compression (servers, CRMs):
 * the same body asked again is sent as it was made, with its ETag. Bounded by bytes; a body larger
 * than IDENTITY_MAX_ENTRY (a full project detail, ~1.28 MB with every nearby facility) is made each
 * time, since a few of them would push out thousands of small ones. A lean project page
 * (`fields`, `nearby=summary&nearby_limit=3`, ~12 kB) or a unit (~4 kB) is kept.
 */
const IDENTITY_MAX_ENTRY = 256 * 1024;

interface Compressed {
  coding: ContentCoding;
  etag: string;
  body: Buffer;
}

interface Identity {
  etag: string;
  body: Buffer;
}

interface Kept {
  compressed: Record<BodyKind, LRUCache<string, Compressed>>;
  identity: Record<BodyKind, LRUCache<string, Identity>>;
  etags: LRUCache<string, string>;
}

function compressedCache(bytes: number): LRUCache<string, Compressed> {
  return new LRUCache<string, Compressed>({
    maxSize: bytes,
    // A body larger than a quarter of the cache would push out too much: compressed every time.
    maxEntrySize: Math.max(1, Math.floor(bytes / 4)),
    sizeCalculation: entrySize,
  });
}

/** What an entry counts for in the caches' bounds: its bytes, its key's, and the entry itself. */
const entrySize = (entry: { body: Buffer }, key: string) => entry.body.length + key.length * 2 + 100;

function identityCache(bytes: number): LRUCache<string, Identity> {
  // The bound is checked by sendMade on the body; the key's share must not refuse a body it let in. Never
  // above maxSize: lru-cache takes an entry larger than the cache, then miscounts (a negative size).
  return new LRUCache<string, Identity>({ maxSize: bytes, maxEntrySize: Math.min(bytes, 2 * IDENTITY_MAX_ENTRY), sizeCalculation: entrySize });
}

/** The detail bodies one app keeps, per snapshot, within its budget's shares (detail-caches.ts makes it). */
export interface KeptBodies {
  /**
   * The body kept for `key` with `snapshot`, as this client takes it, sent: compressed bytes when it
   * takes a coding, the identity body when it takes none (or the body is below the compression
   * threshold); undefined when none is kept.
   */
  sendKept(request: FastifyRequest, reply: FastifyReply, search: Pick<SearchModel, 'isBehind'>, snapshot: Snapshot, kind: BodyKind, key: string): FastifyReply | undefined;
  /**
   * Sends a body just made for `key`. With `keep` (the body is the snapshot's), it is kept with the
   * snapshot as it was sent: its compressed bytes, or the identity body, with the ETag (false: the
   * database was ahead of the snapshot, nothing is kept).
   */
  sendMade(request: FastifyRequest, reply: FastifyReply, snapshot: Snapshot, kind: BodyKind, key: string, parts: readonly JsonPart[], keep: boolean): FastifyReply;
  /** How many compressed bodies the snapshot's caches hold (tests and scripts). */
  compressedBodies(snapshot: Snapshot): number;
  /** How many identity bodies the snapshot's caches hold, and their bytes as counted and as walked (tests and scripts). */
  identityBodies(snapshot: Snapshot): { bodies: number; bytes: number; bodyBytes: number };
  /** Bytes kept for the snapshot by each cache, as counted against its bound (the metrics' gauge). */
  keptBytes(snapshot: Snapshot): Record<'compressedProjects' | 'compressedUnits' | 'identityProjects' | 'identityUnits', number>;
}

export function keptBodies(bounds: DetailCacheBounds): KeptBodies {
  // Made with the app: a bad bound fails at start-up (lru-cache checks its options), not on a request.
  const caches = (): Kept => ({
    compressed: { units: compressedCache(bounds.compressedUnits), projects: compressedCache(bounds.compressedProjects) },
    identity: { units: identityCache(bounds.identityUnits), projects: identityCache(bounds.identityProjects) },
    etags: new LRUCache<string, string>({ max: IDENTITY_ETAGS }),
  });
  caches();
  const keptOf = perSnapshot(caches);
  return {
    sendKept: (request, reply, search, snapshot, kind, key) => sendKept(keptOf.peek(snapshot), request, reply, search, snapshot, kind, key),
    sendMade: (request, reply, snapshot, kind, key, parts, keep) => sendMade(request, reply, keep ? keptOf(snapshot) : undefined, kind, key, parts),
    compressedBodies(snapshot) {
      const kept = keptOf.peek(snapshot);
      return kept ? kept.compressed.units.size + kept.compressed.projects.size : 0;
    },
    identityBodies(snapshot) {
      const kept = keptOf.peek(snapshot);
      if (!kept) return { bodies: 0, bytes: 0, bodyBytes: 0 };
      const { units, projects } = kept.identity;
      // The bodies' own lengths, walked: a check of the caches' count, not a copy of it.
      let bodyBytes = 0;
      for (const cache of [units, projects]) for (const entry of cache.values()) bodyBytes += entry.body.length;
      return { bodies: units.size + projects.size, bytes: units.calculatedSize + projects.calculatedSize, bodyBytes };
    },
    keptBytes(snapshot) {
      const kept = keptOf.peek(snapshot);
      return {
        compressedProjects: kept?.compressed.projects.calculatedSize ?? 0,
        compressedUnits: kept?.compressed.units.calculatedSize ?? 0,
        identityProjects: kept?.identity.projects.calculatedSize ?? 0,
        identityUnits: kept?.identity.units.calculatedSize ?? 0,
      };
    },
  };
}

/*
 * A route sends a body by `key`, which names the body within the snapshot: every input it depends on
 * (record, key prices, currency, selection), never who may see it, which the route has checked before.
 * Below the compression threshold, or when the client takes no compression, the body goes out as it
 * is (and the hooks do as for any answer).
 */

function sendKept(
  kept: Kept | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  search: Pick<SearchModel, 'isBehind'>,
  snapshot: Snapshot,
  kind: BodyKind,
  key: string,
): FastifyReply | undefined {
  // Nothing kept is sent while a newer catalogue is signalled but not yet built: the route makes the
  // answer, from the database, which is ahead.
  if (search.isBehind(snapshot)) return undefined;
  if (!kept) return undefined;
  const coding = acceptedCoding(request, reply);
  if (coding) {
    const compressed = kept.compressed[kind].get(`${coding} ${key}`);
    if (compressed) {
      compressedBodyRequests.count('hit');
      return sendCompressed(reply, compressed);
    }
  }
  const identity = kept.identity[kind].get(key);
  if (!identity || (coding && identity.body.length >= COMPRESSION_THRESHOLD)) return undefined;
  identityBodyRequests.count('hit');
  return reply.type(JSON_TYPE).header('etag', identity.etag).send(identity.body);
}

/** Sends a body just made; `kept`: the snapshot's caches, to keep it in (undefined: not kept). */
function sendMade(
  request: FastifyRequest,
  reply: FastifyReply,
  kept: Kept | undefined,
  kind: BodyKind,
  key: string,
  parts: readonly JsonPart[],
): FastifyReply {
  const coding = acceptedCoding(request, reply);
  const body = jsonBody(parts);
  if (!coding || body.length < COMPRESSION_THRESHOLD) {
    // The ETag the hook would make (no coding below the threshold either), made once per snapshot.
    if (kept) {
      const { etags, identity } = kept;
      let etag = etags.get(key);
      if (etag === undefined) etags.set(key, (etag = etagOf(body)));
      // A large body's memory is used again once sent: never kept (LARGE_BODY is not below IDENTITY_MAX_ENTRY).
      if (body.length <= IDENTITY_MAX_ENTRY && !isLargeBody(body)) {
        identityBodyRequests.count('miss');
        identity[kind].set(key, { etag, body });
      }
      reply.header('etag', etag);
    }
    reuseOnceSent(reply, body);
    return reply.type(JSON_TYPE).send(body);
  }
  compressedBodyRequests.count('miss');
  const compressed: Compressed = { coding, etag: etagOf(body, coding), body: compressSync(coding, body) };
  reuseNow(body);
  kept?.compressed[kind].set(`${coding} ${key}`, compressed);
  return sendCompressed(reply, compressed);
}

function sendCompressed(reply: FastifyReply, { coding, etag, body }: Compressed): FastifyReply {
  return reply.type(JSON_TYPE).header('content-encoding', coding).header('etag', etag).send(body);
}
