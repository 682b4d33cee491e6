import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { startApiProcess, type ApiProcess } from './helpers/api-process.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/*
 * kill -9 of the API process during a burst of changes (PostgreSQL: the service and the test share
 * the database, as production processes do). Every event committed is delivered after the restart;
 * the only duplicates are deliveries that were in flight when the process died.
 */
const postgres = Boolean(process.env.TEST_DATABASE_URL);

describe.runIf(postgres)('webhooks survive kill -9 of the API process (postgres)', () => {
  let test: TestDatabase;
  let receiver: Receiver;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await importBundle(
      test.database.db,
      withRecords(baseBundle(), { projects: [{ id: 1, company_id: DEV, name: 'Burst Tower' }], units: [{ id: 11, project_id: 1, unit_number: 'A', price: 1_000 }] }),
      { facilityLinkRadiusM: 10_000 },
    );
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
    await receiver?.close();
    await test?.drop();
  });

  it('delivers every event after a restart, with duplicates only for what was in flight', async () => {
    // Slow answers keep deliveries in flight when the process is killed.
    let hanging = true;
    receiver.on('/burst', () => (hanging ? 'hang' : 200));
    const { key } = await createApiKey(test.database.db, { companyId: AGENCY, authorId: OWNER, name: 'burst' });
    await createEndpoint(test.database.db, { keyId: key.id, url: receiver.url('/burst'), eventTypes: ['unit.changed'] });
    const env = { DATABASE_URL: test.url!, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '100' };
    api = await startApiProcess(env);

    // The burst: 40 imports, each one a price change, while the process delivers.
    const burst = (async () => {
      for (let i = 1; i <= 40; i += 1) await importBundle(test.database.db, { units: [{ id: 11, project_id: 1, unit_number: 'A', price: 1_000 + i }] }, { facilityLinkRadiusM: 10_000 });
    })();
    await receiver.waitFor((all) => all.length >= 5, 60_000);
    await api.kill9();
    const inFlight = receiver.received.length;
    await burst;
    hanging = false;

    api = await startApiProcess(env);
    const messages = await test.database.db.selectFrom('webhook_messages').select('id').execute();
    expect(messages).toHaveLength(40);
    await receiver.waitFor((all) => new Set(all.filter((r) => r.headers['webhook-id']).map((r) => r.headers['webhook-id'])).size === 40 && all.length >= 40 + inFlight, 60_000);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids)).toEqual(new Set(messages.map((m) => m.id)));
    // Each request that hung before the kill is attempted again (its lease ran out): those are the duplicates.
    expect(ids.length - 40).toBeLessThanOrEqual(inFlight);
    const left = () => test.database.db.selectFrom('webhook_deliveries').select(['state']).where('state', '<>', 'delivered').execute();
    await expect.poll(left, { timeout: 30_000 }).toEqual([]);
  }, 240_000);
});
