import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/*
 * Response compression: Brotli or gzip, negotiated by Accept-Encoding, for bodies of at least
 * COMPRESSION_THRESHOLD bytes, done by @fastify/compress on every route (its onSend runs after the
 * scope hooks, so the conditional-GET hook sees the identity body).
 *
 * The levels are chosen on the measured cost per request on the L catalogue (docs/performance.md,
 * "Compression"; bench/compression.ts): a 1.04 MB project detail shrinks to 11 % in 11.6 ms at gzip 6
 * and to 11.5 % in 10.9 ms at Brotli 4 (the API process spends ~38 ms of CPU on that request anyway).
 * Higher levels buy little for much more CPU: gzip 9 is 5 % smaller for +8 % (3.8x on /projects/list),
 * Brotli 5 is 12 % smaller for 1.8x, Brotli 9 and 11 take 0.3 s and 1.5 s per detail.
 */
export type ContentCoding = 'br' | 'gzip';

/** Preferred first when the client accepts both with the same weight. */
export const CONTENT_CODINGS: readonly ContentCoding[] = ['br', 'gzip'];
/** Smaller bodies (the error envelope, /whoIAm, small reference lists) are sent as they are. */
export const COMPRESSION_THRESHOLD = 1024;
export const BROTLI_QUALITY = 4;
export const GZIP_LEVEL = 6;

export const compressOptions: FastifyCompressOptions = {
  global: true,
  // Request bodies are not decompressed: a compressed POST body is still refused as invalid JSON.
  globalDecompression: false,
  encodings: [...CONTENT_CODINGS],
  threshold: COMPRESSION_THRESHOLD,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  zlibOptions: { level: GZIP_LEVEL },
};

/*
 * HEAD: Fastify answers HEAD with the GET handler and drops the body before @fastify/compress runs,
 * so the plugin never compresses a HEAD answer. The conditional-GET hook calls this instead, so that
 * HEAD carries the Content-Encoding, ETag and Content-Length (of the compressed body) GET would.
 */
export function compressSync(coding: ContentCoding, body: string | Buffer): Buffer {
  return coding === 'br' ? brotliCompressSync(body, compressOptions.brotliOptions) : gzipSync(body, compressOptions.zlibOptions);
}

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, compressOptions);
}

/**
 * The content coding @fastify/compress will apply to this buffered body, decided as it decides
 * (test/compression.test.ts checks the two agree on every kind of Accept-Encoding): none below the
 * threshold, with `x-no-compression`, or when the client accepts neither coding; `*` and `x-gzip`
 * count as gzip. Only JSON bodies are asked about (the keyed GETs).
 */
export function negotiatedCoding(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): ContentCoding | undefined {
  if (reply.hasHeader('content-encoding') || request.headers['x-no-compression'] !== undefined) return undefined;
  if (Buffer.byteLength(body) < COMPRESSION_THRESHOLD) return undefined;
  const header = request.headers['accept-encoding'];
  if (typeof header !== 'string') return undefined;
  const coding = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...CONTENT_CODINGS]);
  return coding === 'br' || coding === 'gzip' ? coding : undefined;
}
