import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli, type CliContext } from '../src/cli/commands.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { listDeliveries } from '../src/queries/webhook-deliveries.js';
import { createEndpoint, findEndpoint, updateEndpoint } from '../src/queries/webhook-endpoints.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/webhooks/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';
import { bodiesAt, startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/*
 * A revoked key's webhooks (issue 51): nothing queued for it is sent once it answers 401. Revoking
 * drops what is queued for its endpoints (state `dropped`, shown by `webhooks deliveries`), disables
 * them with the reason (`webhooks list`), refuses to enable them again, and nothing more is queued.
 */
const unit = (id: number, price: number) => ({ id, project_id: 1, unit_number: `U-${id}`, bedrooms: 2, status: 3, price, unit_area: 100 });
const catalogue = () => withRecords(baseBundle(), { projects: [{ id: 1, company_id: DEV, author_id: 110, area_id: 1, name: 'Tower 1' }], units: [unit(11, 1_000_000), unit(12, 900_000)], api_keys: [] });

describe.each(drivers)('a revoked key\u2019s webhooks (%s)', (driver) => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;

  async function cli(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const context: CliContext = {
      config: () => t.config,
      io: { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) },
      cwd: process.cwd(),
      withDatabase: (work) => work(t.database),
    };
    const code = await runCli(buildCli(context), argv, context.io);
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue(), { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startReceiver();
    worker = await startDeliveryWorker(t.database, { timeoutMs: 500, allowPrivate: true, retry: { baseMs: 40, retryForMs: 60_000 } });
  }, 180_000);
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await t?.close();
  });

  it('drops what was queued for it, sends nothing after, shows its endpoints disabled and keeps them so', async () => {
    const key = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'to be revoked' });
    const other = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'stays' });
    // The receiver is failing: the deliveries stay queued and are retried every few tens of ms.
    receiver.on('/revoked', 500);
    const failing = await createEndpoint(t.db, { keyId: key.key.id, url: receiver.url('/revoked'), eventTypes: ['unit.changed', 'application.created'] });
    // An endpoint of the same key disabled after a failure holds its delivery: it is dropped too.
    receiver.on('/held', 500);
    const held = await createEndpoint(t.db, { keyId: key.key.id, url: receiver.url('/held'), eventTypes: ['unit.changed'] });
    const kept = await createEndpoint(t.db, { keyId: other.key.id, url: receiver.url('/kept'), eventTypes: ['unit.changed'] });

    await importBundle(t.db, { units: [unit(11, 1_010_000)] }, { facilityLinkRadiusM: 10_000 });
    await receiver.waitFor((all) => bodiesAt(all, '/revoked').length >= 2 && bodiesAt(all, '/held').length >= 1 && bodiesAt(all, '/kept').length === 1);
    await updateEndpoint(t.db, held.endpoint.id, { enabled: false });
    const heldSent = bodiesAt(receiver.received, '/held').length;
    expect((await listDeliveries(t.db, held.endpoint.id, {})).map((d) => d.state)).toEqual(['pending']);

    const revoked = await cli(['keys', 'revoke', String(key.key.id)]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const sentAtRevocation = bodiesAt(receiver.received, '/revoked').length;

    // Dropped, with the reason, in the log the operator reads.
    for (const endpoint of [failing, held]) {
      const deliveries = await listDeliveries(t.db, endpoint.endpoint.id, {});
      expect(deliveries.map((d) => d.state)).toEqual(['dropped']);
      expect(deliveries[0].last_error).toMatch(/^dropped: its key was revoked at \d{4}-\d{2}-\d{2}T/);
      expect(deliveries[0].completed_at).not.toBeNull();
    }
    const log = await cli(['webhooks', 'deliveries', String(failing.endpoint.id)]);
    expect(log.stdout).toMatch(/\tunit\.changed\tdropped\tattempts \d+\tHTTP 500 dropped: its key was revoked at .*\tdropped at /);
    expect((await cli(['webhooks', 'deliveries', String(held.endpoint.id), '--failed'])).stdout).toMatch(/\tdropped\tattempts \d+\tHTTP 500 dropped: its key was revoked/);

    // Shown disabled, and why; enabling is refused while the key is revoked.
    const listed = await cli(['webhooks', 'list']);
    for (const endpoint of [failing, held]) expect(listed.stdout).toMatch(new RegExp(`^${endpoint.endpoint.id}\\t.*\\tdisabled \\(its key was revoked at [^)]+\\)\\t`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^${kept.endpoint.id}\\t.*\\tenabled\\t`, 'm'));
    const enable = await cli(['webhooks', 'update', String(failing.endpoint.id), '--enabled', 'true']);
    expect(enable.code).toBe(1);
    expect(enable.stderr).toMatch(/revoked/);
    expect((await findEndpoint(t.db, failing.endpoint.id))?.enabled).toBe(false);

    // Later changes and applications queue nothing for it; the agency's other key goes on.
    await importBundle(t.db, { units: [unit(11, 1_020_000)] }, { facilityLinkRadiusM: 10_000 });
    const application = await t.app.inject({ method: 'POST', url: '/units/11/applications', headers: { 'x-api-key': other.secret }, payload: { client: { first_name: 'Jane', email: 'jane@example.ae' } } });
    expect(application.statusCode).toBe(201);
    await receiver.waitFor((all) => bodiesAt(all, '/kept').length === 2);
    // Well past several retry intervals: nothing more reached the revoked key's receiver.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(bodiesAt(receiver.received, '/revoked')).toHaveLength(sentAtRevocation);
    expect(bodiesAt(receiver.received, '/held')).toHaveLength(heldSent);
    expect((await listDeliveries(t.db, failing.endpoint.id, {})).map((d) => d.state)).toEqual(['dropped']);
    // The key itself answers 401.
    expect((await t.app.inject({ url: '/projects/1', headers: { 'x-api-key': key.secret } })).statusCode).toBe(401);
  });
});
