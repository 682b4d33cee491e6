import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequestsByKey, httpRequestsInFlight, registry, statusClass } from './instruments.js';

/** The route template of a request ("/projects/:id"), or "unmatched" for a path no route serves (its 404). */
export function routeTemplate(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/**
 * Times every request of `app` (duration by route template, method and status class; in flight) and,
 * with `perKey`, counts them per API key id. Installed only when the metrics listener is on, so a
 * service without METRICS_PORT pays nothing per request.
 */
export function instrumentRequests(app: FastifyInstance, options: { perKey: boolean }): void {
  if (options.perKey && !registry.getSingleMetric('catalogue_http_requests_by_key_total')) registry.registerMetric(httpRequestsByKey);
  app.addHook('onRequest', (request, reply, done) => {
    httpRequestsInFlight.inc();
    // On the socket's close rather than onResponse: a request whose client went away counts down too.
    reply.raw.once('close', () => httpRequestsInFlight.dec());
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = statusClass(reply.statusCode);
    httpRequestDuration.observe({ route: routeTemplate(request), method: request.method, status_class: status }, reply.elapsedTime / 1000);
    const keyId = (request as { auth?: { id?: number } | null }).auth?.id;
    if (options.perKey && keyId !== undefined) httpRequestsByKey.inc({ key_id: String(keyId), status_class: status });
    done();
  });
}
