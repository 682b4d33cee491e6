import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config/config.js';
import { rateLimited } from './errors.js';
import { memoryStore, redisStore, type RateLimitStore } from './rate-limit-store.js';

/*
 * Opt-in request limit per API key (fixed window), run right after authentication, so it counts per
 * key id (not per IP) and requests without a valid key never use up a key's allowance. Headers follow
 * draft-ietf-httpapi-ratelimit-headers in its structured-field form:
 *
 *   RateLimit-Policy: "per-key";q=<limit>;w=<window seconds>
 *   RateLimit: "per-key";r=<remaining>;t=<seconds until the window resets>
 *
 * When the counter store fails (Redis unreachable) the request goes through unlimited: an outage of the
 * limiter must not become an outage of the API. It is logged as a warning, at most once a minute.
 */
export interface RateLimiter {
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  close(): Promise<void>;
}

const POLICY = 'per-key';
const WARNING_INTERVAL_MS = 60_000;

export async function createRateLimiter(config: RateLimitConfig, log: FastifyBaseLogger): Promise<RateLimiter> {
  const store = config.redisUrl
    ? await redisStore({
        url: config.redisUrl,
        keyPrefix: config.redisKeyPrefix,
        onStateChange: (state, error) =>
          state === 'down'
            ? log.warn({ err: error }, 'rate limit: redis unreachable, requests are not limited until it is back')
            : log.info('rate limit: redis reachable'),
      })
    : memoryStore();
  log.info({ limit: config.limit, windowS: config.windowS, store: config.redisUrl ? 'redis' : 'memory' }, 'rate limit on');
  return rateLimiter(store, config, log);
}

export function rateLimiter(store: RateLimitStore, config: Pick<RateLimitConfig, 'limit' | 'windowS'>, log: FastifyBaseLogger): RateLimiter {
  const { limit, windowS } = config;
  const windowMs = windowS * 1000;
  const policy = `"${POLICY}";q=${limit};w=${windowS}`;
  let lastWarning = 0;

  return {
    async onRequest(request, reply) {
      let count: number;
      let resetMs: number;
      try {
        ({ count, resetMs } = await store.hit(String(request.auth.id), windowMs));
      } catch (error) {
        if (Date.now() - lastWarning >= WARNING_INTERVAL_MS) {
          lastWarning = Date.now();
          log.warn({ err: error }, 'rate limit: counter store failed, request let through');
        }
        return;
      }
      const resetS = Math.max(0, Math.ceil(resetMs / 1000));
      const headers = {
        'ratelimit-policy': policy,
        ratelimit: `"${POLICY}";r=${Math.max(0, limit - count)};t=${resetS}`,
      };
      reply.headers(headers);
      if (count > limit) throw rateLimited(Math.max(1, resetS), headers);
    },
    close: () => store.close(),
  };
}
