import Fastify from 'fastify';

/*
 * The framework ceiling: a bare Fastify app whose one route answers a pre-serialized JSON payload of
 * the requested size (`/payload/<bytes>`), with no auth, no database, no schema. A scenario's req/s
 * divided by this app's req/s at the same size and load shows how much of Fastify's headroom the
 * catalogue code uses. Run as its own process: `node --import tsx bench/ceiling-server.ts`.
 */
const payloads = new Map<number, Buffer>();

/** `{"status":"success","data":{"pad":"xxx…"}}`, exactly `bytes` long (or the shortest such object). */
function payloadOf(bytes: number): Buffer {
  let payload = payloads.get(bytes);
  if (!payload) {
    const empty = JSON.stringify({ status: 'success', data: { pad: '' } });
    payload = Buffer.from(empty.replace('""', `"${'x'.repeat(Math.max(0, bytes - empty.length))}"`));
    payloads.set(bytes, payload);
  }
  return payload;
}

const app = Fastify({ logger: false });
app.route({
  method: ['GET', 'POST'],
  url: '/payload/:bytes',
  handler: async (request, reply) => {
    const bytes = Number((request.params as { bytes: string }).bytes);
    reply.header('content-type', 'application/json; charset=utf-8');
    return reply.send(payloadOf(Number.isInteger(bytes) && bytes >= 0 && bytes <= 10_000_000 ? bytes : 0));
  },
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`ceiling listening on ${address}`);

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
