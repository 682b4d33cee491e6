import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { listDeliveries, redeliverOne } from '../src/queries/webhook-deliveries.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { signMessage } from '../src/webhooks/signing.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/webhooks/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';

/*
 * The guide's webhook receiver (docs/snippets/webhook-receiver.ts, shown verbatim in
 * docs/integrating.md section 7: test/integrating-snippets.test.ts compares them) run as the guide
 * says, as its own process (`tsx webhook-receiver.ts` with WEBHOOK_SECRET and PORT), receiving real
 * deliveries from the service's worker: it verifies them with the `standardwebhooks` package and
 * prints each event once; a forged request gets 400 and is not handled; a redelivery (same
 * webhook-id) is acknowledged and not handled twice.
 */
const SNIPPET = 'docs/snippets/webhook-receiver.ts';

interface SnippetProcess {
  child: ChildProcess;
  url: string;
  /** The events it handled: one `type data` line each. */
  lines(): { type: string; data: Record<string, unknown> }[];
}

async function runSnippet(secret: string): Promise<SnippetProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SNIPPET], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${SNIPPET} did not listen within 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const match = /listening on port (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`${SNIPPET} exited (${code}):\n${output}`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${port}/hooks/catalogue`,
    lines: () =>
      output
        .split('\n')
        .filter((line) => line && !line.startsWith('listening on'))
        .map((line) => {
          const space = line.indexOf(' ');
          return { type: line.slice(0, space), data: JSON.parse(line.slice(space + 1)) as Record<string, unknown> };
        }),
  };
}

describe.each(drivers)('the guide’s webhook receiver against the service (%s)', (driver) => {
  let t: TestApp;
  let worker: DeliveryWorker;
  let snippet: SnippetProcess;
  let secret: string;
  let endpointId: number;

  beforeAll(async () => {
    t = await createTestApp(driver, withRecords(baseBundle(), { projects: [{ id: 1, company_id: DEV, name: 'Snippet Tower' }], units: [{ id: 11, project_id: 1, unit_number: 'A', price: 1_000_000 }] }), { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { key } = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'site', priceVector: 10 });
    // The endpoint needs the receiver's URL, the receiver the endpoint's secret: a placeholder URL first.
    const created = await createEndpoint(t.db, { keyId: key.id, url: 'http://127.0.0.1:9/hooks/catalogue', eventTypes: ['unit.changed', 'application.created'] });
    secret = created.secret;
    endpointId = created.endpoint.id;
    snippet = await runSnippet(secret);
    await t.db.updateTable('webhook_endpoints').set({ url: snippet.url }).where('id', '=', endpointId).execute();
    worker = await startDeliveryWorker(t.database, { timeoutMs: 5_000, allowPrivate: true, retry: { baseMs: 100, retryForMs: 60_000 } });
  }, 180_000);
  afterAll(async () => {
    await worker?.close();
    snippet?.child.kill();
    await t?.close();
  });

  it('verifies and handles a price change and an application, each once', async () => {
    await importBundle(t.db, { units: [{ id: 11, project_id: 1, unit_number: 'A', price: 1_100_000 }] }, { facilityLinkRadiusM: 10_000 });
    const apply = await t.app.inject({ method: 'POST', url: '/units/11/applications', headers: { 'x-api-key': await t.key() }, payload: { client: { first_name: 'Noura', email: 'noura@example.ae' } } });
    expect(apply.statusCode).toBe(201);
    await expect.poll(() => snippet.lines().length, { timeout: 30_000 }).toBe(2);
    const [change, application] = [...snippet.lines()].sort((x, y) => x.type.localeCompare(y.type)).reverse();
    expect(change).toMatchObject({ type: 'unit.changed', data: { id: 11, changes: ['price'], price: 1_210_000, previous_price: 1_100_000 } });
    expect(application).toMatchObject({ type: 'application.created', data: { unit_id: 11, opportunity_id: apply.json().data.opportunity.id } });
    // The receiver's answer (204) is what the service logged as delivered.
    await expect.poll(async () => (await listDeliveries(t.db, endpointId, {})).map((d) => [d.state, d.last_status])).toEqual([
      ['delivered', 204],
      ['delivered', 204],
    ]);
  });

  it('refuses a forged or tampered request with 400 and does not handle it', async () => {
    const body = JSON.stringify({ type: 'unit.changed', timestamp: new Date().toISOString(), data: { id: 11, price: 1 } });
    const post = (headers: Record<string, string>, payload = body) => fetch(snippet.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
    const forged = signMessage('msg_forged', body, ['whsec_' + Buffer.from('not the secret, 32 bytes long!!!').toString('base64')]);
    expect((await post({ ...forged })).status).toBe(400);
    const genuine = signMessage('msg_genuine', body, [secret]);
    expect((await post({ ...genuine }, body.replace('"price":1', '"price":2'))).status).toBe(400);
    // Signed right but five minutes and more old: a replay.
    const stale = signMessage('msg_stale', body, [secret], new Date(Date.now() - 6 * 60_000));
    expect((await post({ ...stale })).status).toBe(400);
    expect(snippet.lines()).toHaveLength(2);
    // The genuine one passes (the checks above failed for their reason, not for the headers' form).
    expect((await post({ ...genuine })).status).toBe(204);
    await expect.poll(() => snippet.lines().length).toBe(3);
  });

  it('acknowledges a redelivery (same webhook-id) without handling it again', async () => {
    const [first] = await listDeliveries(t.db, endpointId, {});
    const again = await redeliverOne(t.db, first.id);
    worker.wake();
    await expect.poll(async () => (await listDeliveries(t.db, endpointId, {})).find((d) => d.id === again!.id)?.state, { timeout: 30_000 }).toBe('delivered');
    expect((await listDeliveries(t.db, endpointId, {})).find((d) => d.id === again!.id)?.last_status).toBe(204);
    expect(snippet.lines()).toHaveLength(3);
  });
});
