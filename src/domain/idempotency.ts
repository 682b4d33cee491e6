import { createHash } from 'node:crypto';

/*
 * Opt-in Idempotency-Key for POST /units/{id}/applications. A replay must be recognised as "the same
 * request" even when the client serialises its JSON differently (key order, whitespace, 1.0 vs 1), so
 * the hash is taken over a canonical form of the parsed body, together with the method and path (the
 * same key on another unit is a different request).
 */

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** 1 to 255 visible ASCII characters (no spaces, no control characters). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,255}$';
export const IDEMPOTENCY_TTL_HOURS = 24;

/** JSON with object keys sorted at every level; arrays keep their order (it is meaningful). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of method, path and canonical body. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`).digest('hex');
}
