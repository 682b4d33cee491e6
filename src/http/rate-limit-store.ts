/** Where a key's requests in the current window are counted. */
export interface RateLimitStore {
  /** Counts one request for `id`; the window starts at the first request and lasts `windowMs`. */
  hit(id: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export interface WindowCount {
  /** Requests in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  resetMs: number;
}

/*
 * Counters of this process only: with several API processes each one allows the full limit, so use
 * Redis there. The map holds at most one entry per API key that made a request within a window.
 */
export function memoryStore(now: () => number = Date.now): RateLimitStore {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const sweep = (time: number) => {
    for (const [id, window] of windows) if (window.endsAt <= time) windows.delete(id);
  };
  return {
    async hit(id, windowMs) {
      const time = now();
      let window = windows.get(id);
      if (!window || window.endsAt <= time) {
        if (windows.size >= 10_000) sweep(time);
        window = { count: 0, endsAt: time + windowMs };
        windows.set(id, window);
      }
      window.count += 1;
      return { count: window.count, resetMs: window.endsAt - time };
    },
    async close() {
      windows.clear();
    },
  };
}

// One round trip, atomic: INCR and the expiry of a new window cannot be separated by a crash or a
// concurrent request (an INCR without PEXPIRE would leave a counter that never resets).
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  /** Redis became unreachable or reachable again, for the log. */
  onStateChange?: (state: 'up' | 'down', error?: Error) => void;
}

/*
 * Counters shared by every process through Redis (fixed window per key). Redis must never make the
 * API slow or unavailable: commands are not queued while disconnected and time out quickly, so `hit`
 * rejects at once and the caller decides (it lets the request through). ioredis keeps reconnecting in
 * the background.
 */
export async function redisStore(options: RedisStoreOptions): Promise<RateLimitStore> {
  // Loaded here, not with the module: a process without REDIS_URL never needs the client (with the MCP
  // SDK, also loaded on demand; docs/performance.md, "Libraries loaded on demand").
  const { Redis } = await import('ioredis');
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 500,
  });
  let state: 'unknown' | 'up' | 'down' = 'unknown';
  const report = (next: 'up' | 'down', error?: Error) => {
    if (state !== next) options.onStateChange?.(next, error);
    state = next;
  };
  redis.on('ready', () => report('up'));
  // Without an 'error' listener ioredis reports every failed reconnect as unhandled.
  redis.on('error', (error: Error) => report('down', error));
  try {
    await redis.connect();
  } catch (error) {
    report('down', error as Error);
  }

  return {
    async hit(id, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, `${options.keyPrefix}ratelimit:${id}`, windowMs)) as [number, number];
      return { count, resetMs: ttl };
    },
    async close() {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
