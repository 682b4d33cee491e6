import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequestsByKey, registry, requestsInFlight, statusClass } from './instruments.js';

/** The route template of a request ("/projects/:id"), or "unmatched" for a path no route serves (its 404). */
export function routeTemplate(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

function answered(): void {
  requestsInFlight.count -= 1;
}

export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * What is noted of every finished request: its duration by route template, method and status class
 * and, with `perKey`, a count per API key id. Called by the request log's controller (request-log.ts),
 * which Fastify calls once per finished response anyway: an onResponse hook of its own made Fastify
 * run its hook runner for every request, a measurable part of a /whoIAm (docs/performance.md, "Metrics
 * and request log cost").
 */
export function requestObserver(options: { perKey: boolean }): RequestObserver {
  if (options.perKey && !registry.getSingleMetric('catalogue_http_requests_by_key_total')) registry.registerMetric(httpRequestsByKey);
  return (request, reply) => {
    const status = statusClass(reply.statusCode);
    httpRequestDuration.observeRequest(routeTemplate(request), request.method, status, reply.elapsedTime / 1000);
    if (!options.perKey) return;
    const keyId = (request as { auth?: { id?: number } | null }).auth?.id;
    if (keyId !== undefined) httpRequestsByKey.inc({ key_id: String(keyId), status_class: status });
  };
}

/**
 * Counts the requests in flight on `app`'s Node server, beside Fastify's own listener (a Fastify hook
 * costs more per request), down on the response's close rather than when it finished: a request whose
 * client went away counts down too ('close' is emitted once per response; one shared listener).
 * Installed only when the metrics listener is on, so a service without METRICS_PORT pays nothing.
 */
export function countRequestsInFlight(app: FastifyInstance): void {
  app.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    requestsInFlight.count += 1;
    response.on('close', answered);
  });
}
