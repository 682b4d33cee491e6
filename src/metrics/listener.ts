import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { registry as instruments } from './instruments.js';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/*
 * The Prometheus endpoint, on a port of its own (METRICS_PORT), never on the public API's: series name
 * routes, key ids and internals that are the operator's business, and a scrape must not count as (nor
 * queue behind) partner traffic. A bare node:http server: one route, no parsing, no keys.
 */
export async function listenForMetrics(options: { port: number; host: string; service: Registry }): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: scrape GET /metrics\n');
      return;
    }
    // Merged per scrape: the per-key counter may join the instruments after start-up.
    const merged = Registry.merge([instruments, options.service]);
    merged.metrics().then(
      (text) => response.writeHead(200, { 'content-type': merged.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
