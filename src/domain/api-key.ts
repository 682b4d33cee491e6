import { hash, randomBytes } from 'node:crypto';

/*
 * API key format: the service prefix `ck`, an underscore, 64 lowercase hex characters (32 random bytes).
 * Only the SHA-256 of the whole key is stored; the prefix kept for display is its first 9 characters.
 */
export const KEY_PATTERN = /^ck_[0-9a-f]{64}$/;
const DISPLAY_PREFIX_LENGTH = 9;

export function generateApiKey(): string {
  return `ck_${randomBytes(32).toString('hex')}`;
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  // One call, no Hash object: asked on every request (the key cache is keyed by the hash).
  return hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/**
 * The key presented with a request. `Authorization: Bearer <key>` or a bare `Authorization: <key>` wins;
 * an Authorization header with any other scheme is ignored and `X-API-Key` is read instead.
 */
export function extractApiKey(authorization: string | undefined, xApiKey: string | undefined): string | undefined {
  const auth = authorization?.trim();
  if (auth) {
    const space = auth.indexOf(' ');
    // A lone scheme word ("Bearer" with nothing after it) carries no key.
    if (space === -1 && auth.toLowerCase() !== 'bearer') return auth;
    if (space !== -1 && auth.slice(0, space).toLowerCase() === 'bearer') {
      const token = auth.slice(space + 1).trim();
      if (token) return token;
    }
  }
  const header = xApiKey?.trim();
  return header ? header : undefined;
}
