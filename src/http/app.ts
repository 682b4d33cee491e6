import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ChangeSignal } from '../changes/change-signal.js';
import type { Config } from '../config/config.js';
import { readPrimaryFirst, type Database } from '../db/database.js';
import { llmsTxtRoute } from './mcp/llms-txt.js';
import { mcpRoutes } from './mcp/http-endpoint.js';
import { findActiveKeyByHash } from '../queries/api-keys.js';
import { createApplicationIntake } from '../queries/application-intake.js';
import type { SearchModel } from '../search/search-model.js';
import { authenticate, type KeyLookup } from './auth.js';
import { clientErrorHandler } from './client-errors.js';
import { docsSite } from './docs-site.js';
import { registerCompression } from '../bodies/compression.js';
import { messages } from '../domain/error-catalogue.js';
import { ApiError } from './errors.js';
import { conditionalGet } from '../bodies/http-cache.js';
import { cachedKeyLookup } from './key-cache.js';
import { keyHashes } from './key-hashes.js';
import { linkBuilder } from '../contract/links.js';
import type { AppDeps } from './deps.js';
import { openApiOptions } from './openapi/document.js';
import { createRateLimiter } from './rate-limit.js';
import { applicationRoutes } from './routes/applications.js';
import { changesRoutes } from './routes/changes.js';
import { currencyRoutes } from './routes/currencies.js';
import { healthRoutes } from './routes/health.js';
import { projectClusterRoutes } from './routes/project-clusters.js';
import { projectRoutes } from './routes/projects.js';
import { referenceRoutes } from './routes/reference.js';
import { unitRoutes } from './routes/units.js';
import { whoAmIRoutes } from './routes/whoami.js';
import { ErrorEnvelope } from '../contract/schemas/envelope.js';
import { fieldSelectableSchemas } from '../contract/schemas/named.js';
import { describeEveryValidationError, describeValidationError, validatorCompiler } from './validation.js';
import { everyErrorOf, PREFERENCE, wantsEveryError } from './every-error.js';
import { RequestLog, traceRequests } from './request-log.js';
import { countRequestsInFlight, requestObserver } from '../metrics/http-metrics.js';
import { queryErrors } from '../metrics/instruments.js';
import type { Lifecycle } from './lifecycle.js';
import { toErrorResponse } from './error-response.js';
import { companyContacts } from '../details/company-contacts.js';
import { detailCaches, type DetailCaches } from '../details/detail-caches.js';
import { detailCacheBounds } from '../details/detail-cache-budget.js';

export interface BuildAppOptions {
  database: Database;
  config: Config;
  /** Built before the app (SearchModel.create); it follows the change signal it was given. */
  search: SearchModel;
  /** false silences logging (tests); default: pino at config.logLevel. */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Replaces the key lookup (tests inject failures this way). */
  keyLookup?: KeyLookup;
  /** Remember key lookups this long (ms) per process; 0 (the default) looks up every request. */
  keyCacheTtlMs?: number;
  /** Change signals: empty the key cache on each one, bypass it while they cannot be trusted. */
  changes?: ChangeSignal;
  /** The process's shutdown state (readiness answers 503 while it drains); absent: never draining. */
  lifecycle?: Lifecycle;
  /** Time every request for the metrics listener (src/metrics/); absent: no per-request metric hooks. */
  requestMetrics?: { perKey: boolean };
  /** The detail routes' caches; default: made from DETAIL_CACHE_MB (tests pass their own to watch them). */
  details?: DetailCaches;
  /** Tests shorten it (default REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

export type App = FastifyInstance;

/** The whole request, headers and body, must arrive within this long (README, "Timeouts"). */
export const REQUEST_TIMEOUT_MS = 30_000;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Where a logged request body carries the end client's data: an application (REST) and submit_application's arguments (MCP). */
const CLIENT_DATA_PATHS = ['client', 'message'].flatMap((field) => [`body.${field}`, `body.params.arguments.${field}`]);

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { database, config } = options;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            stream: options.logStream,
            // No hostname: collectors add the host or container; the line stays short (src/http/request-log.ts).
            base: { pid: process.pid },
            serializers: {
              req: (req) => ({ method: req.method, url: req.url, remoteAddress: req.ip, headers: req.headers }),
            },
            // Keys are secrets and the end client's data is personal: headers and bodies are only logged
            // at debug (request-log.ts), and even then with the key headers, the client and the free-text
            // message censored, in an application's body (REST) and in a tool's arguments (MCP).
            redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', ...CLIENT_DATA_PATHS], censor: '[redacted]' },
          },
    // A request arriving on a kept-alive connection while the server closes is served, not answered
    // Fastify's bare 503: the drain (src/service/server.ts) already told the load balancer to stop sending.
    return503OnClosing: false,
    // One line per request (request-log.ts), instead of Fastify's two with every header.
    logController: new RequestLog(options.requestMetrics && requestObserver(options.requestMetrics)),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Slow or stalled clients cannot hold sockets: the whole request (headers and body) must arrive
    // within 30 s, an idle keep-alive connection is closed after 72 s, and any connection with no
    // traffic at all for 90 s (longer than the 30 s database query timeout) is destroyed.
    requestTimeout,
    // Node checks the request timeout on a timer of this period (30 s by default): a stalled body was
    // only answered 408 60 to 90 s after it began. Once a second, the 30 s hold to within a second.
    // The headers' own limit (60 s by default) is brought to the same 30 s.
    http: { connectionsCheckingInterval: Math.min(1_000, requestTimeout), headersTimeout: requestTimeout },
    clientErrorHandler: clientErrorHandler(requestTimeout / 1000),
    keepAliveTimeout: 72_000,
    connectionTimeout: 90_000,
    bodyLimit: 64 * 1024,
    ajv: { customOptions: { strict: false } },
    // Errors the router raises before any route runs (malformed percent-encoding, an over-long path
    // parameter) get the envelope too; Fastify's own body would otherwise be sent.
    frameworkErrors: sendError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSchemaErrorFormatter((errors, dataVar) => new ApiError(400, describeValidationError(errors as never, dataVar), {}, describeEveryValidationError(errors as never, dataVar)));
  app.addSchema(ErrorEnvelope);
  // The named objects of the routes that take `fields` (whole and selected), referenced by their schemas.
  for (const schema of fieldSelectableSchemas) app.addSchema(schema);

  traceRequests(app);
  if (options.requestMetrics) countRequestsInFlight(app);
  const lifecycle = options.lifecycle ?? { draining: false };
  // A callback, not an async hook: nothing here waits, and every request would pay for a promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    // While draining, no connection is kept for another request: the load balancer, which stops
    // sending here once readiness fails, then holds no idle connection that the close could cut.
    if (lifecycle.draining) reply.header('connection', 'close');
    done();
  });

  app.setErrorHandler(sendError);

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ status: 'error', message: messages.routeNotFound });
  });

  await app.register(cors, {
    origin: true,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['X-API-Key', 'Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id', 'Prefer'],
    exposedHeaders: ['X-Request-Id', 'ETag', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Preference-Applied'],
    maxAge: 600,
    // An OPTIONS without Origin or Access-Control-Request-Method (curl, an HTTP tool probing) gets the
    // preflight's 204 too: strict, it was a plain-text 400, the one answer of the API without an envelope.
    strictPreflight: false,
  });
  await app.register(swagger, openApiOptions(config.publicBaseUrl));
  await registerCompression(app);

  const links = linkBuilder(config.staticBaseUrl);
  const deps: AppDeps = {
    database,
    config,
    links,
    search: options.search,
    changes: options.changes,
    contacts: companyContacts(database, links, options.changes),
    details: options.details ?? detailCaches(database, links, detailCacheBounds(config.detailCacheMb)),
    applications: createApplicationIntake(database),
    lifecycle,
  };
  // On the primary: a key revoked or changed a moment ago must not be read back (and cached again
  // after the change signal emptied the cache) from a replica that has not replayed the change yet.
  // A replica only while the primary is down.
  const uncached = options.keyLookup ?? ((hash: string) => readPrimaryFirst(database, (db) => findActiveKeyByHash(db, hash)));
  const lookup = options.keyCacheTtlMs ? cachedKeyLookup(uncached, { ttlMs: options.keyCacheTtlMs, changes: options.changes }) : uncached;

  const limiter = config.rateLimit ? await createRateLimiter(config.rateLimit, app.log) : undefined;
  if (limiter) app.addHook('onClose', () => limiter.close());

  await app.register(healthRoutes, deps);
  await app.register(async (api) => {
    api.decorateRequest('auth', null as never);
    api.addHook('onRequest', authenticate(lookup, keyHashes({ changes: options.changes })));
    if (limiter) api.addHook('onRequest', limiter.onRequest);
    api.addHook('onSend', conditionalGet);
    await api.register(whoAmIRoutes, deps);
    await api.register(referenceRoutes, deps);
    await api.register(currencyRoutes, deps);
    await api.register(projectRoutes, deps);
    await api.register(projectClusterRoutes, deps);
    await api.register(unitRoutes, deps);
    await api.register(changesRoutes, deps);
    await api.register(applicationRoutes, deps);
    await api.register(mcpRoutes, deps);
  });

  app.get('/openapi.yaml', { schema: { hide: true } }, async (_request, reply) => {
    reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true }));
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await docsSite(app);
  await llmsTxtRoute(app, config.publicBaseUrl);

  return app;
}

function sendError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, message, headers } = toErrorResponse(error);
  if (statusCode >= 500) {
    queryErrors.inc({ kind: statusCode === 503 ? 'unavailable' : 'internal' });
    request.log.error({ err: error }, 'request failed');
  }
  // The request line (request-log.ts) has the status; the message is for debugging a partner's calls.
  else request.log.debug({ statusCode, message }, 'request rejected');
  // Set here too: errors the router raises (frameworkErrors) never pass the onRequest hook.
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff').headers(headers).status(statusCode);
  if (statusCode === 400 && wantsEveryError(request)) {
    const errors = everyErrorOf(message, error, request);
    reply.header('preference-applied', PREFERENCE).send({ status: 'error', message, errors });
  } else reply.send({ status: 'error', message });
}
