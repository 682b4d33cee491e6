import { DEFAULT_RETRY_BASE_MS, DEFAULT_RETRY_FOR_MS } from '../domain/webhook-retry.js';

/*
 * Server configuration, read once from the environment. A bad value stops start-up with a message
 * naming the variable, rather than surfacing later as a confusing request failure.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** Streaming replicas of DATABASE_URL that serve reads (DATABASE_READ_URL, comma-separated); empty: none. */
  databaseReadUrls: string[];
  /** Seconds of replication lag past which a replica's reads go to the primary. */
  databaseReadMaxLagS: number | undefined;
  dataDir: string;
  staticBaseUrl: string | undefined;
  /** Where integrators reach the API (the OpenAPI `servers` entry); undefined: `/`, relative to the document. */
  publicBaseUrl: string | undefined;
  /** Metres; nearby facilities at or beyond this distance are hidden. Undefined: every linked facility. */
  amenitiesRadiusM: number | undefined;
  /** Metres; the import links a project to every facility within this distance. */
  facilityLinkRadiusM: number;
  /**
   * NEARBY_IN_MEMORY=true: GET /projects/{id}'s nearby block is kept in the search snapshot and written
   * from memory (src/search/project-nearby.ts). Off by default: on L it is ~105 MB more per process and
   * several seconds more per snapshot build, and its links grow with the facility link radius; off,
   * each project's links and each facility's text are kept as they are asked (src/details/nearby-on-demand.ts).
   */
  nearbyInMemory: boolean;
  /** DETAIL_CACHE_MB: the memory the detail routes may keep per snapshot, split by fixed shares (src/details/detail-cache-budget.ts). */
  detailCacheMb: number;
  /** HEAP_GROWTH_PERCENT: how far the JavaScript heap may grow past what was live at the last full collection (src/service/heap-growth.ts); 0: V8's own choice. */
  heapGrowthPercent: number;
  logLevel: string;
  /** Per-key request limit; undefined (the default) leaves the API unlimited, as specified. */
  rateLimit: RateLimitConfig | undefined;
  webhooks: WebhookConfig;
  /** The Prometheus listener (METRICS_PORT); undefined (the default): no metrics endpoint. */
  metrics: MetricsConfig | undefined;
  /** SIGTERM: seconds /health/ready answers 503 while requests are still served (SHUTDOWN_DRAIN_S). */
  shutdownDrainS: number;
  /** SIGTERM: seconds, after the drain, that requests in flight get before their connections are cut (SHUTDOWN_GRACE_S). */
  shutdownGraceS: number;
}

export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=true: http and private, loopback and link-local targets allowed (development, tests). */
  allowPrivateTargets: boolean;
  /** WEBHOOK_TIMEOUT_MS: an attempt without a complete answer by then fails (default 10 s). */
  timeoutMs: number;
  /** WEBHOOK_RETRY_BASE_MS: the first retry's wait; each next one doubles (with jitter, at most 1 h). */
  retryBaseMs: number;
  /** WEBHOOK_RETRY_FOR_S: how long a delivery is retried before the endpoint is disabled (default 72 h). */
  retryForMs: number;
  /** WEBHOOK_WORKER=off: this process queues events but delivers none (another process does). */
  worker: boolean;
}

export interface MetricsConfig {
  port: number;
  host: string;
  /** One counter series per API key id (METRICS_PER_KEY=true); off by default, its cardinality grows with the keys. */
  perKey: boolean;
}

export interface RateLimitConfig {
  /** Requests one API key may make per window. */
  limit: number;
  windowS: number;
  /** Counters shared by every API process through Redis; undefined: counted in this process only. */
  redisUrl: string | undefined;
  /** Namespace of the counters in Redis, so several deployments can share one server. */
  redisKeyPrefix: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function positiveNumber(env: Env, name: string, unit = 'metres'): number | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number of ${unit}, got "${raw}"`);
  return value;
}

function positiveInteger(env: Env, name: string): number | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function nonNegativeSeconds(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${name} must be a number of seconds, 0 or more, got "${raw}"`);
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = read(env, name);
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function metricsConfig(env: Env, port: number, host: string): MetricsConfig | undefined {
  const raw = read(env, 'METRICS_PORT');
  if (raw === undefined) return undefined;
  const metricsPort = Number(raw);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535) throw new ConfigError(`METRICS_PORT must be an integer from 0 to 65535, got "${raw}"`);
  // Metrics name routes and key ids: they are for the operator's network, never the partners'.
  if (metricsPort !== 0 && metricsPort === port) throw new ConfigError('METRICS_PORT must differ from PORT: metrics are never served on the public port');
  return { port: metricsPort, host: read(env, 'METRICS_HOST') ?? host, perKey: flag(env, 'METRICS_PER_KEY') };
}

/** DETAIL_CACHE_MB's default: the bounds the detail caches had before the budget, added up (src/details/detail-cache-budget.ts splits it). */
export const DEFAULT_DETAIL_CACHE_MB = 328;

/** At most 1 TiB: each cache's bound must stay an exact integer number of bytes (lru-cache refuses others). */
const MAX_DETAIL_CACHE_MB = 1024 * 1024;

function detailCacheMb(env: Env): number {
  const mb = positiveNumber(env, 'DETAIL_CACHE_MB', 'MB') ?? DEFAULT_DETAIL_CACHE_MB;
  if (mb > MAX_DETAIL_CACHE_MB) throw new ConfigError(`DETAIL_CACHE_MB must be at most ${MAX_DETAIL_CACHE_MB} (1 TiB), got "${read(env, 'DETAIL_CACHE_MB')}"`);
  return mb;
}

/** Defaults: deploy/haproxy.cfg (probes every 2 s, 2 s timeout, down after 2 failures) takes an instance out within 8 s, inside the 10 s drain; 10 + 20 s fit Kubernetes's default 30 s termination grace period. */
export const DEFAULT_SHUTDOWN_DRAIN_S = 10;
export const DEFAULT_SHUTDOWN_GRACE_S = 20;

/**
 * HEAP_GROWTH_PERCENT's default: 30 is V8's own conservative factor (1.3), so no mode of V8's grows more
 * than it would alone, where its default mode takes up to 4x what was live (docs/performance.md, "Heap
 * growth limit").
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 30;

/** Above it, the factor would replace V8's memory-saving ones (1.1-1.3) by a larger one. */
const MAX_HEAP_GROWTH_PERCENT = 100;

function heapGrowthPercent(env: Env): number {
  const raw = read(env, 'HEAP_GROWTH_PERCENT');
  if (raw === undefined) return DEFAULT_HEAP_GROWTH_PERCENT;
  const percent = Number(raw);
  if (!/^\d+$/.test(raw) || percent > MAX_HEAP_GROWTH_PERCENT) {
    throw new ConfigError(`HEAP_GROWTH_PERCENT must be an integer from 0 (V8's own choice) to ${MAX_HEAP_GROWTH_PERCENT}, got "${raw}"`);
  }
  return percent;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function booleanVariable(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['true', '1', 'on'].includes(raw)) return true;
  if (['false', '0', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function webhookConfig(env: Env): WebhookConfig {
  return {
    allowPrivateTargets: booleanVariable(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    timeoutMs: positiveInteger(env, 'WEBHOOK_TIMEOUT_MS') ?? 10_000,
    retryBaseMs: positiveInteger(env, 'WEBHOOK_RETRY_BASE_MS') ?? DEFAULT_RETRY_BASE_MS,
    retryForMs: (positiveInteger(env, 'WEBHOOK_RETRY_FOR_S') ?? DEFAULT_RETRY_FOR_MS / 1000) * 1000,
    worker: booleanVariable(env, 'WEBHOOK_WORKER', true),
  };
}

function rateLimitConfig(env: Env): RateLimitConfig | undefined {
  const limit = positiveInteger(env, 'RATE_LIMIT');
  const windowS = positiveInteger(env, 'RATE_LIMIT_WINDOW_S') ?? 60;
  const redisUrl = read(env, 'REDIS_URL');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  const redisKeyPrefix = read(env, 'REDIS_KEY_PREFIX') ?? 'catalogue:';
  return limit === undefined ? undefined : { limit, windowS, redisUrl, redisKeyPrefix };
}

export function loadConfig(env: Env = process.env): Config {
  const portRaw = read(env, 'PORT') ?? '8080';
  const port = Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${portRaw}"`);

  const databaseUrl = read(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }

  const databaseReadUrls = (read(env, 'DATABASE_READ_URL') ?? '').split(',').map((url) => url.trim()).filter(Boolean);
  if (databaseReadUrls.some((url) => !/^postgres(ql)?:\/\//.test(url))) {
    throw new ConfigError('DATABASE_READ_URL must be postgres:// or postgresql:// connection strings, separated by commas');
  }
  if (databaseReadUrls.length > 0 && !databaseUrl) {
    throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: the replicas are read replicas of that PostgreSQL primary');
  }
  const databaseReadMaxLagS = positiveNumber(env, 'DATABASE_READ_MAX_LAG_S', 'seconds');

  const staticBaseUrl = read(env, 'STATIC_BASE_URL');
  if (staticBaseUrl) {
    try {
      new URL(staticBaseUrl);
    } catch {
      throw new ConfigError(`STATIC_BASE_URL must be an absolute URL, got "${staticBaseUrl}"`);
    }
  }

  const publicBaseUrl = read(env, 'PUBLIC_BASE_URL')?.replace(/\/+$/, '');
  if (publicBaseUrl !== undefined && !isHttpUrl(publicBaseUrl)) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http:// or https:// URL, got "${publicBaseUrl}"`);
  }

  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const host = read(env, 'HOST') ?? '0.0.0.0';
  return {
    port,
    host,
    databaseUrl,
    databaseReadUrls,
    databaseReadMaxLagS,
    dataDir: read(env, 'DATA_DIR') ?? './data',
    staticBaseUrl,
    publicBaseUrl,
    amenitiesRadiusM: positiveNumber(env, 'AMENITIEST_RADIUS'),
    facilityLinkRadiusM: positiveNumber(env, 'FACILITY_LINK_RADIUS_M') ?? 10_000,
    nearbyInMemory: booleanVariable(env, 'NEARBY_IN_MEMORY', false),
    detailCacheMb: detailCacheMb(env),
    heapGrowthPercent: heapGrowthPercent(env),
    logLevel,
    rateLimit: rateLimitConfig(env),
    webhooks: webhookConfig(env),
    metrics: metricsConfig(env, port, host),
    shutdownDrainS: nonNegativeSeconds(env, 'SHUTDOWN_DRAIN_S', DEFAULT_SHUTDOWN_DRAIN_S),
    shutdownGraceS: nonNegativeSeconds(env, 'SHUTDOWN_GRACE_S', DEFAULT_SHUTDOWN_GRACE_S),
  };
}
