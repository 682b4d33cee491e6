import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery } from '../src/queries/webhook-deliveries.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, OWNER } from './helpers/fixtures.js';

/*
 * An endpoint's probe holds and releases only the deliveries nobody is attempting (migration 0015,
 * src/queries/webhook-deliveries.ts). The queue's statements are called as a worker calls them, with
 * no worker running, so that each step is the one under test. CI caught the race this pins: a probe's
 * 2xx set a delivery that another claim was attempting due at once, and it was sent twice.
 */
const LEASE_MS = 60_000;
const noAnswer = { kind: 'retry', status: null, error: 'ECONNREFUSED', delayMs: 50, holdOthersMs: 50 + LEASE_MS } as const;

describe.each(drivers)('webhook leases against probes (%s)', (driver) => {
  let t: TestApp;
  let endpointId: number;

  beforeAll(async () => {
    t = await createTestApp(driver, baseBundle());
    const { key } = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'leases' });
    // Nothing is sent: no worker runs here, the test makes the claims and writes the outcomes.
    endpointId = (await createEndpoint(t.db, { keyId: key.id, url: 'http://127.0.0.1:9/leases', eventTypes: ['unit.changed'] })).endpoint.id;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Two deliveries of the endpoint, due now, `first` queued (and claimed) before `second`. */
  async function twoDue(tag: string): Promise<[number, number]> {
    const { rows } = await sql<{ id: number }>`
      WITH m AS (
        INSERT INTO webhook_messages (id, endpoint_id, event_type, body)
        SELECT 'msg_lease_' || ${tag} || '_' || n, ${endpointId}, 'ping', '{}' FROM generate_series(1, 2) n
        RETURNING id, endpoint_id
      )
      INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at) SELECT id, endpoint_id, now() FROM m ORDER BY id RETURNING id`.execute(t.db);
    const [first, second] = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    return [first, second];
  }
  const row = async (id: number) => t.db.selectFrom('webhook_deliveries').select(['id', 'next_attempt_at', 'waits_for_probe', 'leased_until']).where('id', '=', id).executeTakeFirstOrThrow();
  const due = (id: number) => t.db.updateTable('webhook_deliveries').set({ next_attempt_at: sql`now()` }).where('id', '=', id).execute();
  const claimOne = async (): Promise<ClaimedDelivery> => {
    const [claimed] = await claimDueDeliveries(t.db, 1, LEASE_MS);
    expect(claimed).toBeDefined();
    return claimed;
  };

  it('a probe that gets no answer does not hold a delivery being attempted', async () => {
    const [attempted, probe] = await twoDue('hold');
    expect((await claimOne()).id).toBe(attempted);
    const leased = await row(attempted);
    expect((await claimOne()).id).toBe(probe);
    const claimedProbe = { id: probe, attempts: 1, endpoint_id: endpointId, probing: false };
    await recordAttempt(t.db, claimedProbe, noAnswer);
    expect(await row(attempted)).toEqual(leased);
    // Its outcome written, the attempted delivery is no longer leased.
    await recordAttempt(t.db, { id: attempted, attempts: 1, endpoint_id: endpointId, probing: false }, { kind: 'retry', status: 500, error: null, delayMs: LEASE_MS });
    expect((await row(attempted)).leased_until).toBeNull();
    await t.db.updateTable('webhook_deliveries').set({ state: 'failed' }).where('id', 'in', [attempted, probe]).execute();
  });

  it('a probe answered 2xx does not set due a delivery that was held and is now being attempted', async () => {
    const [probe, held] = await twoDue('release');
    expect((await claimOne()).id).toBe(probe);
    await recordAttempt(t.db, { id: probe, attempts: 1, endpoint_id: endpointId, probing: false }, noAnswer);
    expect((await row(held)).waits_for_probe).toBe(probe);
    // The hold ran out before the probe's next attempt (a slow probe, or a process that died): the held
    // delivery is claimed and attempted, and is no longer waiting.
    await due(held);
    expect((await claimOne()).id).toBe(held);
    const attempting = await row(held);
    expect(attempting.waits_for_probe).toBeNull();
    // Meanwhile the probe is answered: nothing else falls due, the running attempt keeps its lease.
    await due(probe);
    const again = await claimOne();
    expect(again).toMatchObject({ id: probe, probing: true });
    await recordAttempt(t.db, again, { kind: 'delivered', status: 200 });
    expect(await row(held)).toEqual(attempting);
    expect(await claimDueDeliveries(t.db, 10, LEASE_MS)).toEqual([]);
  });
});
