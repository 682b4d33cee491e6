import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A webhook receiver on 127.0.0.1 (an ephemeral port), as an integrator would run one: it records
 * every request (headers and raw body, to verify signatures the way a receiver must) and answers as
 * the test tells it per path: a status, or `hang` (never answers, to exercise the timeout).
 */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The sender's port on 127.0.0.1 (tells which process's connection it came on). */
  remotePort: number;
  /** The receiver's own port of that connection (with remotePort, the connection's two ends). */
  localPort: number;
}

export type Behaviour = number | 'hang' | ((request: Received, count: number) => number | 'hang');

export interface Receiver {
  url(path: string): string;
  received: Received[];
  on(path: string, behaviour: Behaviour): void;
  /** Resolves once `predicate` holds for the requests received (polls every 20 ms, up to `timeoutMs`). */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), remotePort: request.socket.remotePort ?? 0, localPort: request.socket.localPort ?? 0 };
      received.push(entry);
      const count = (counts.get(entry.path) ?? 0) + 1;
      counts.set(entry.path, count);
      const behaviour = behaviours.get(entry.path) ?? 200;
      const answer = typeof behaviour === 'function' ? behaviour(entry, count) : behaviour;
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path, behaviour) => void behaviours.set(path, behaviour),
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms; got ${received.length} requests: ${received.map((r) => `${r.path} ${r.body.slice(0, 80)}`).join(' | ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The parsed bodies received on `path`. */
export const bodiesAt = (received: Received[], path: string) => received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> });
