import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { describeServedBy, resumeServedBy, trackServedBy, type ServerRole } from '../db/served-by.js';
import { routeTemplate, type RequestObserver } from '../metrics/http-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The database servers this request's queries ran on (src/db/served-by.ts). */
    servedBy?: Set<ServerRole>;
  }
}

/*
 * Fastify's request log lines, replaced (its LogController is the extension point): one JSON line
 * per request at `info`, written when the response is finished:
 *   {"level":30,"time":…,"pid":…,"reqId":"…","method":"GET","route":"/projects/:id","status":200,
 *    "ms":3.1,"bytes":5123,"key":12,"db":"replica","msg":"request"}
 * The route template, never the URL: paths and query strings carry what partners typed, and the
 * template keeps the line short (about 200 bytes) and groupable. `key` is the API key's id (never the
 * key); `db` says where the queries ran ("primary", "replica", "primary+replica"; absent when answered
 * from memory); `bytes` is the body as sent (compressed), absent when streamed without a length.
 * Fastify's own pair of lines (every header at `info`) is gone: at `debug` a line per request gives
 * the URL and headers (key headers and cookies redacted) and, before the handler, the JSON body with
 * `client` (the end client's personal data) redacted: see the logger's redact paths in app.ts.
 * The probes (/health/live, /health/ready) come every few seconds: their lines are at `debug`.
 */
export class RequestLog extends LogController {
  /** The request metrics (src/metrics/http-metrics.ts), when the metrics listener is on. */
  constructor(private readonly observe?: RequestObserver) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const length = reply.getHeader('content-length');
    const probe = (request.routeOptions.config as { probe?: boolean } | undefined)?.probe;
    request.log[probe ? 'debug' : 'info'](
      {
        method: request.method,
        route: routeTemplate(request),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        bytes: length === undefined ? undefined : Number(length),
        key: (request as { auth?: { id?: number } | null }).auth?.id,
        db: describeServedBy(request.servedBy),
      },
      'request',
    );
    this.observe?.(request, reply);
  }
}

/**
 * The levels at which the request lines are written (LOG_LEVEL's values; `silent` writes nothing). Named
 * here because Fastify's logger type has no `isLevelEnabled` (pino's), nor has its logger when logging is off.
 */
const WRITES_REQUEST_LINES: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

/** Follows each request's queries to their database server (`db` of the line), and logs bodies at debug. */
export function traceRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    // `db` is a field of the request line, written at info: at a quieter level (warn, error…) no line is
    // written, so the queries are not followed. Following them is an async context, which costs every
    // promise of every request, database or not (docs/performance.md, "Request log's async context only
    // when logged").
    if (!WRITES_REQUEST_LINES.has(request.log.level)) return done();
    // Everything this request starts from here on (hooks, handler, queries) notes its server.
    request.servedBy = trackServedBy(done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (app.log.level === 'debug' || app.log.level === 'trace') request.log.debug({ body: request.body }, 'request body');
    if (request.servedBy) resumeServedBy(request.servedBy, done);
    else done();
  });
}
