import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';

export interface CatalogueEvent {
  type: string; // unit.changed, project.changed, unit.removed, project.removed, application.created, ping
  timestamp: string;
  data: Record<string, unknown>; // for catalogue events: id, cursor, catalogue_version, changes, previous values…
}

/** Step 7: receive webhooks: verify each request on its raw body, answer 2xx at once, handle each message once. */
export function webhookReceiver(secret: string, handle: (event: CatalogueEvent) => void): Server {
  const webhook = new Webhook(secret); // whsec_…
  const seen = new Set<string>(); // keep these in your database: delivery is at least once
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8'); // the raw body: parse it only after verifying
      const id = String(request.headers['webhook-id']);
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
      let event: CatalogueEvent;
      try {
        // Checks webhook-signature (any of its signatures: two during a secret rotation) and that
        // webhook-timestamp is within 5 minutes.
        event = webhook.verify(body, headers) as CatalogueEvent;
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(204).end();
      if (seen.has(id)) return; // a retry or a redelivery: same webhook-id, same body
      seen.add(id);
      handle(event);
    });
  });
}

// Run it: WEBHOOK_SECRET=whsec_… PORT=3000 npx tsx webhook-receiver.ts
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = webhookReceiver(process.env.WEBHOOK_SECRET ?? '', (event) => console.log(event.type, JSON.stringify(event.data)));
  server.listen(Number(process.env.PORT ?? 3000), () => console.log(`listening on port ${(server.address() as AddressInfo).port}`));
}
