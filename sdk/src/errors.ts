/**
 * Any answer of the Catalogue API other than success, thrown by every SDK call. `message` is the
 * service's own message from the error envelope (`{"status":"error","message":...}`), e.g.
 * `price_min must be at least 0`, so it can be shown to the user as it is.
 */
import type { components } from './generated/schema.js';

/** One problem of a 400: `field` (`client.email`, `price_min`; null for the request as a whole), `code`, `message`. */
export type FieldError = NonNullable<components['schemas']['ErrorEnvelope']['errors']>[number];

export class CatalogueApiError extends Error {
  override readonly name = 'CatalogueApiError';

  constructor(
    /** HTTP status: 400 invalid request, 401/403 key, 404 not found, 409 conflict, 429, 500, 503. */
    readonly status: number,
    message: string,
    /** The `X-Request-Id` of the response: quote it when reporting a problem. */
    readonly requestId: string | undefined,
    /** Seconds from `Retry-After` (429 and 503), when the service sent it. */
    readonly retryAfterSeconds: number | undefined,
    /**
     * On a 400: every problem of the request, one per field, the first being `message`'s (the SDK asks
     * for them with `Prefer: errors=all`); empty otherwise. Show each beside its form field.
     */
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }

  /** From a response that is not a success; `body` is what openapi-fetch parsed (JSON, text or undefined). */
  static fromResponse(response: Response, body: unknown): CatalogueApiError {
    const envelopeMessage =
      typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : undefined;
    // A proxy or load balancer in between may answer with its own, non-envelope body.
    const message = envelopeMessage ?? `HTTP ${response.status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
    const errors = typeof body === 'object' && body !== null && Array.isArray((body as { errors?: unknown }).errors) ? (body as { errors: FieldError[] }).errors : [];
    return new CatalogueApiError(response.status, message, response.headers.get('x-request-id') ?? undefined, retryAfterSeconds(response.headers.get('retry-after')), errors);
  }
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
