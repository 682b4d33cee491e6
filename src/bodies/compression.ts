import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import Negotiator from 'negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/*
 * Response compression: Brotli or gzip, negotiated by Accept-Encoding, for bodies of at least
 * COMPRESSION_THRESHOLD bytes, done by @fastify/compress on every route (its onSend runs after the
 * scope hooks, so the conditional-GET hook sees the identity body).
 *
 * The levels are chosen on the measured cost per request on the L catalogue (docs/performance.md,
 * "Compression"; bench/compression.ts): gzip 6 and Brotli 4 bring a body to 11-13 % of its size at
 * about the same CPU, and higher levels buy little for much more CPU.
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
  app.addHook('onRequest', acceptOnlyChosenCoding);
  await app.register(compress, compressOptions);
}

/*
 * Accept-Encoding, as RFC 9110 §12.5.3 reads it (the `negotiator` library, which Express uses): a
 * coding weighted q=0 is refused, whatever else the header says; `*` gives its weight to every
 * coding the header does not name; a coding neither named nor covered by `*` is not accepted.
 * `x-gzip` is gzip (§8.4.1.3). Of the codings the service has, the one of highest weight wins,
 * Brotli first at equal weight (CONTENT_CODINGS).
 *
 * @fastify/compress reads `*` as gzip (so `gzip;q=0, *` came out gzip, and `*` alone gzip although
 * Brotli is preferred): chooseCoding decides instead, and acceptOnlyChosenCoding hands the plugin
 * that decision, so both compression paths (the plugin and the conditional-GET hook) follow it.
 */
export function chooseCoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined) return undefined;
  const accepted = new Negotiator({ headers: { 'accept-encoding': header.replace(/\bx-gzip\b/gi, 'gzip') } });
  return accepted.encodings([...CONTENT_CODINGS], { preferred: [...CONTENT_CODINGS] })[0] as ContentCoding | undefined;
}

/*
 * Runs before every route (onRequest): the plugin sees only the coding chosen here, or `identity`
 * when none is, and negotiates nothing itself. The rest of the request keeps the header as sent.
 */
async function acceptOnlyChosenCoding(request: FastifyRequest): Promise<void> {
  const header = request.headers['accept-encoding'];
  if (header === undefined) return;
  request.headers['accept-encoding'] = chooseCoding(header) ?? 'identity';
}

/**
 * The content coding @fastify/compress will apply to this buffered body, decided as it decides
 * (test/compression.test.ts checks the two agree on every kind of Accept-Encoding): none below the
 * threshold, with `x-no-compression`, or when the client accepts neither coding. Only JSON bodies
 * are asked about (the keyed GETs).
 */
export function negotiatedCoding(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): ContentCoding | undefined {
  if (Buffer.byteLength(body) < COMPRESSION_THRESHOLD) return undefined;
  return acceptedCoding(request, reply);
}

/** The coding negotiatedCoding gives a body at or above the threshold (known before the body is made). */
export function acceptedCoding(request: FastifyRequest, reply: FastifyReply): ContentCoding | undefined {
  if (reply.hasHeader('content-encoding') || request.headers['x-no-compression'] !== undefined) return undefined;
  const header = request.headers['accept-encoding'];
  return chooseCoding(Array.isArray(header) ? header.join(',') : header);
}
