import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequestsByKey, registry, requestsInFlight, statusClass } from './instruments.js';

/** The route template of a request ("/projects/:id"), or "unmatched" for a path no route serves (its 404). */
export function routeTemplate(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

function answered(): void {
  requestsInFlight.count -= 1;
}

/**
 * Times every request of `app` (duration by route template, method and status class; in flight) and,
 * with `perKey`, counts them per API key id. Installed only when the metrics listener is on, so a
 * service without METRICS_PORT pays nothing per request.
 */
export function instrumentRequests(app: FastifyInstance, options: { perKey: boolean }): void {
  if (options.perKey && !registry.getSingleMetric('catalogue_http_requests_by_key_total')) registry.registerMetric(httpRequestsByKey);
  // Counted on the Node server itself, beside Fastify's own listener (a Fastify hook costs more per
  // request), and counted down on the response's close rather than onResponse: a request whose client
  // went away counts down too ('close' is emitted once per response; one shared listener).
  app.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    requestsInFlight.count += 1;
    response.on('close', answered);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = statusClass(reply.statusCode);
    httpRequestDuration.observeRequest(routeTemplate(request), request.method, status, reply.elapsedTime / 1000);
    const keyId = (request as { auth?: { id?: number } | null }).auth?.id;
    if (options.perKey && keyId !== undefined) httpRequestsByKey.inc({ key_id: String(keyId), status_class: status });
    done();
  });
}
