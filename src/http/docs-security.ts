import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/*
 * Security headers of the published description site (/docs, Scalar). The page runs one inline
 * script (Scalar's start-up call with our configuration); it is allowed by its hash, computed from the
 * page as sent, so no 'unsafe-inline' script is needed and a Scalar upgrade cannot silently break the
 * page. Styles need 'unsafe-inline' (Scalar injects its stylesheet and style attributes at run time).
 * Everything else comes from this origin: fonts are not loaded from Scalar's CDN (withDefaultFonts is
 * off in app.ts), and "Try it" calls this same origin. The site must not be framed (clickjacking).
 */
const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc\s*=)[^>]*>([\s\S]*?)<\/script>/gi;

export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map((match) => `'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`);
}

export function docsContentSecurityPolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(html).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** onSend hook for every /docs route. */
export async function docsSecurityHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.headers({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  const type = String(reply.getHeader('content-type') ?? '');
  if (type.startsWith('text/html') && typeof payload === 'string') {
    reply.header('content-security-policy', docsContentSecurityPolicy(payload));
  }
  return payload;
}
