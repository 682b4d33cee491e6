import { sql } from 'kysely';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Webhook } from 'standardwebhooks';
import { webhookBodySchema, WEBHOOK_EVENTS } from '../src/contract/schemas/webhook-events.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EVENT_TYPES, type EventType } from '../src/domain/webhook-events.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { listDeliveries, LOG_RETENTION_DAYS, pruneDeliveryLog, redeliverOne, redeliverSince } from '../src/queries/webhook-deliveries.js';
import { createEndpoint, deleteEndpoint, findEndpoint, rotateSecret, updateEndpoint } from '../src/queries/webhook-endpoints.js';
import { recordCatalogueEvents } from '../src/queries/webhook-events.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/webhooks/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, DEV_NO_CONTRACT, DEV_PENDING, OWNER, UNLICENSED_AGENCY, withRecords, type Bundle } from './helpers/fixtures.js';
import type { Received } from './helpers/webhook-receiver.js';
import { bodiesAt, startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/*
 * Webhooks end to end (issue 26): real imports and applications on a real database, the delivery
 * worker posting to a real receiver on 127.0.0.1, signatures verified with the `standardwebhooks`
 * package as a receiver would.
 */
const project = (id: number, companyId: number, extra: Record<string, unknown> = {}) => ({ id, company_id: companyId, author_id: 110, area_id: 1, name: `Tower ${id}`, ...extra });
const unit = (id: number, projectId: number, price: number, extra: Record<string, unknown> = {}) => ({ id, project_id: projectId, unit_number: `U-${id}`, bedrooms: 2, status: 3, price, unit_area: 100, ...extra });

function catalogue(): Bundle {
  return withRecords(baseBundle(), {
    projects: [project(1, DEV), project(2, DEV, { is_draft: true }), project(50, DEV_NO_CONTRACT), project(60, DEV_PENDING)],
    units: [unit(11, 1, 1_000_000), unit(12, 1, 900_000), unit(21, 2, 2_000_000), unit(501, 50, 500_000), unit(601, 60, 600_000)],
    api_keys: [],
  });
}

const TIMEOUT_MS = 400;
/** The requests received at `path` about record `id`. */
const about = (received: Received[], path: string, id: number) => received.filter((r) => r.path === path && (JSON.parse(r.body) as { data: { id: number } }).data.id === id);
/** Retries every few tens of milliseconds (at most 1 s apart here), given up after 6 s (72 h in production). */
const RETRY = { baseMs: 40, retryForMs: 6_000 };

describe.each(drivers)('webhooks (%s)', (driver) => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let keyId: number;
  let keySecret: string;
  const endpoints: number[] = [];
  const importing = (bundle: Bundle) => importBundle(t.db, bundle, { facilityLinkRadiusM: 10_000 });

  /** A new endpoint on the fixture key (price vector 10) receiving at `path`. */
  async function endpoint(path: string, eventTypes: readonly EventType[] = DEFAULT_EVENT_TYPES, key = keyId) {
    const created = await createEndpoint(t.db, { keyId: key, url: receiver.url(path), eventTypes });
    endpoints.push(created.endpoint.id);
    return created;
  }

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue(), { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startReceiver();
    const created = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'mirror', priceVector: 10 });
    keyId = created.key.id;
    keySecret = created.secret;
    worker = await startDeliveryWorker(t.database, { timeoutMs: TIMEOUT_MS, allowPrivate: true, retry: RETRY });
  }, 180_000);
  afterEach(async () => {
    // Each test's endpoints go, so that later imports do not queue for them.
    for (const id of endpoints.splice(0)) await deleteEndpoint(t.db, id);
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await t?.close();
  });

  it('sends a price change once, signed, with the previous price in the key\u2019s prices and a cursor that covers it', async () => {
    const { secret } = await endpoint('/price');
    await importing({ units: [unit(11, 1, 1_100_000, { status: 4 })] });
    const received = await receiver.waitFor((all) => bodiesAt(all, '/price').length === 1);
    // Nothing else comes (queued in the same transaction, it would have been claimed with it).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const requests = received.filter((r) => r.path === '/price');
    for (const request of requests) {
      // As a receiver verifies: raw body, the three headers, the secret.
      expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    }
    const change = bodiesAt(received, '/price').find((b) => b.type === 'unit.changed' && b.data.id === 11)!;
    expect(change.data).toMatchObject({ project_id: 1, changes: ['price', 'status'], price: 1_210_000, previous_price: 1_100_000, status: 4, previous_status: 3 });
    // One event: the project's own answer (its lowest price, unit 12's) did not change, and its other
    // unit changed in nothing of its own. The feed lists all three: a mirror re-reads what embeds the unit.
    expect(bodiesAt(received, '/price').map((b) => `${b.type} ${b.data.id}`)).toEqual(['unit.changed 11']);
    // The cursor: the feed from there lists this change.
    const feed = await t.app.inject({ url: `/changes?cursor=${change.data.cursor as string}`, headers: { 'x-api-key': keySecret } });
    expect(feed.statusCode).toBe(200);
    expect(feed.json().data.items.map((i: { type: string; id: number; change: string }) => `${i.type} ${i.id} ${i.change}`)).toEqual(['project 1 upsert', 'unit 11 upsert', 'unit 12 upsert']);
    expect(feed.json().data.catalogue_version).toBe(change.data.catalogue_version);
  });

  it('says availability when a unit is added or restored, and sends removals', async () => {
    await endpoint('/avail', ['unit.changed', 'unit.removed']);
    await importing({ units: [unit(12, 1, 900_000, { deleted: true })] });
    await receiver.waitFor((all) => bodiesAt(all, '/avail').some((b) => b.type === 'unit.removed' && b.data.id === 12));
    await importing({ units: [unit(12, 1, 900_000), unit(13, 1, 700_000)] });
    const received = await receiver.waitFor((all) => bodiesAt(all, '/avail').filter((b) => b.type === 'unit.changed' && [12, 13].includes(b.data.id as number)).length === 2);
    const changed = bodiesAt(received, '/avail').filter((b) => b.type === 'unit.changed' && [12, 13].includes(b.data.id as number));
    expect(changed.map((b) => [b.data.id, b.data.changes])).toEqual(expect.arrayContaining([[12, ['availability']], [13, ['availability']]]));
  });

  it('writes events in the change\u2019s transaction: a rolled-back change sends nothing', async () => {
    const { endpoint: e } = await endpoint('/rollback');
    await expect(
      t.db.transaction().execute(async (trx) => {
        await trx.updateTable('units').set({ price: 1 }).where('id', '=', 11).execute();
        expect(await recordCatalogueEvents(trx)).toBeGreaterThan(0);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A refused application (unknown unit) writes nothing either.
    const refused = await t.app.inject({ method: 'POST', url: '/units/999/applications', headers: { 'x-api-key': keySecret }, payload: { client: { first_name: 'A', email: 'a@b.ae' } } });
    expect(refused.statusCode).toBe(404);
    expect(await t.db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', e.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('webhook_unit_before').selectAll().execute()).toEqual([]);
  });

  it('sends application.created to the endpoints of every key of the agency, with the offer\u2019s price in the sending key\u2019s prices', async () => {
    const { secret } = await endpoint('/apps', ['application.created']);
    const otherKey = await t.key({ priceVector: -5 });
    const res = await t.app.inject({ method: 'POST', url: '/units/11/applications', headers: { 'x-api-key': otherKey }, payload: { client: { first_name: 'Jane', email: 'jane@example.ae' } } });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    const [request] = await receiver.waitFor((all) => all.some((r) => r.path === '/apps')).then((all) => all.filter((r) => r.path === '/apps'));
    expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'application.created',
      data: { client_id: data.client.id, opportunity_id: data.opportunity.id, offer_id: data.offer.id, offer_uuid: data.offer.uuid, unit_id: 11, project_id: 1, price: data.offer.price },
    });
    // The price is the offer's as stored (docs/integrating.md section 7), not the unit in the receiving key's prices (vector 10).
    const ownPrice = (await t.app.inject({ url: '/units/11', headers: { 'x-api-key': keySecret } })).json().data.price as number;
    expect(ownPrice).not.toBe(data.offer.price);
  });

  it('does not tell an endpoint of a key with private applications which client an application found', async () => {
    const privateKey = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: 'web page' });
    await t.db.updateTable('api_keys').set({ private_applications: true }).where('id', '=', privateKey.key.id).execute();
    await endpoint('/private-apps', ['application.created'], privateKey.key.id);
    const res = await t.app.inject({ method: 'POST', url: '/units/11/applications', headers: { 'x-api-key': keySecret }, payload: { client: { first_name: 'Jane', email: 'jane@example.ae' } } });
    expect(res.statusCode).toBe(201);
    const [body] = bodiesAt(await receiver.waitFor((all) => all.some((r) => r.path === '/private-apps')), '/private-apps');
    expect(body.data).toMatchObject({ opportunity_id: res.json().data.opportunity.id, unit_id: 11 });
    expect(body.data).not.toHaveProperty('client_id');
    expect(body.data).not.toHaveProperty('client_created');
  });

  it('never sends what the key cannot see: other developers, pending contracts, drafts, an unlicensed agency', async () => {
    await endpoint('/visible');
    const unlicensed = await createApiKey(t.db, { companyId: UNLICENSED_AGENCY, authorId: 102, name: 'unlicensed' });
    await endpoint('/unlicensed', undefined, unlicensed.key.id);
    const feedBefore = (await t.app.inject({ url: '/changes', headers: { 'x-api-key': keySecret } })).json().data.next_cursor as string;
    await importing({ units: [unit(501, 50, 1), unit(601, 60, 2), unit(21, 2, 3)], projects: [project(50, DEV_NO_CONTRACT, { name: 'Renamed' }), project(2, DEV, { is_draft: true, name: 'Still a draft' })] });
    // A visible change after them: once it arrives, anything queued before it has been sent too.
    await importing({ units: [unit(11, 1, 1_234_567)] });
    // The webhooks say nothing the feed does not say for the key (they leave out what only embeds a change).
    const feed = (await t.app.inject({ url: `/changes?cursor=${feedBefore}`, headers: { 'x-api-key': keySecret } })).json().data.items as { type: string; id: number; change: string }[];
    const received = await receiver.waitFor((all) => bodiesAt(all, '/visible').some((b) => b.type === 'unit.changed' && b.data.id === 11));
    const events = bodiesAt(received, '/visible').map((b) => `${b.type} ${b.data.id}`);
    expect(feed.map((i) => `${i.type}.${i.change === 'upsert' ? 'changed' : 'removed'} ${i.id}`)).toEqual(expect.arrayContaining(events));
    expect(events).toContain('unit.changed 11');
    // Nothing of them is shown as visible, and the unlicensed agency’s key gets nothing at all.
    expect(events.filter((e) => /^(project|unit)\.changed (2|21|50|501|60|601)$/.test(e))).toEqual([]);
    expect(bodiesAt(received, '/unlicensed')).toEqual([]);
    // A record the key never saw is never "removed" either (the feed's rule, migration 0009, followed
    // here because the events are the feed's entries).
    expect(events.filter((e) => / (2|21|50|501|60|601)$/.test(e))).toEqual([]);
  });

  it('retries a 500 with the same webhook-id until a 2xx, and logs the attempts', async () => {
    const tries = new Map<string, number>();
    receiver.on('/flaky', (request) => {
      const id = String(request.headers['webhook-id']);
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return tries.get(id)! < 3 ? 500 : 204;
    });
    const { endpoint: e } = await endpoint('/flaky', ['unit.changed']);
    await importing({ units: [unit(12, 1, 950_000)] });
    const received = await receiver.waitFor((all) => about(all, '/flaky', 12).length >= 3);
    const ids = new Set(about(received, '/flaky', 12).map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    await expect.poll(async () => (await listDeliveries(t.db, e.id, {})).find((d) => d.message_id === [...ids][0])).toMatchObject({ state: 'delivered', attempts: 3, last_status: 204 });
    // The retries were spaced out (backoff), not sent back to back.
    const times = about(received, '/flaky', 12).map((r) => r.at);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(RETRY.baseMs);
  });

  it('disables an endpoint at once on 410 Gone, and says why', async () => {
    receiver.on('/gone', 410);
    const { endpoint: e } = await endpoint('/gone', ['unit.changed']);
    await importing({ units: [unit(12, 1, 960_000)] });
    await expect.poll(async () => (await findEndpoint(t.db, e.id))?.enabled, { timeout: 10_000 }).toBe(false);
    expect((await findEndpoint(t.db, e.id))?.disabled_reason).toMatch(/410 Gone/);
    // Each attempt that got the 410 is failed, after one attempt; none is retried.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const deliveries = await listDeliveries(t.db, e.id, {});
    const sent = receiver.received.filter((r) => r.path === '/gone').length;
    expect((await listDeliveries(t.db, e.id, {})).filter((d) => d.state === 'failed').every((d) => d.attempts === 1 && d.last_status === 410)).toBe(true);
    expect(deliveries.filter((d) => d.state === 'failed').length).toBeGreaterThanOrEqual(1);
    // Nothing more is attempted, nor recorded, while disabled; enabling sends what was held.
    await importing({ units: [unit(12, 1, 970_000)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(sent);
    expect(await listDeliveries(t.db, e.id, {})).toHaveLength(deliveries.length);
    receiver.on('/gone', 200);
    const held = deliveries.filter((d) => d.state === 'pending').length;
    await updateEndpoint(t.db, e.id, { enabled: true });
    await receiver.waitFor((all) => all.filter((r) => r.path === '/gone').length === sent + held);
    await expect.poll(async () => (await listDeliveries(t.db, e.id, {})).filter((d) => d.state === 'pending')).toEqual([]);
  });

  it('times out a receiver that hangs, retries, and after the retry window disables the endpoint', async () => {
    receiver.on('/hang', 'hang');
    const { endpoint: e } = await endpoint('/hang', ['unit.changed']);
    await importing({ units: [unit(12, 1, 980_000)] });
    await expect.poll(async () => (await findEndpoint(t.db, e.id))?.enabled, { timeout: 30_000 }).toBe(false);
    expect((await findEndpoint(t.db, e.id))?.disabled_reason).toMatch(/failed for .*no answer within 400 ms/);
    const delivery = (await listDeliveries(t.db, e.id, {})).find((d) => d.state === 'failed')!;
    expect(delivery.attempts).toBeGreaterThanOrEqual(2);
    expect(delivery.last_error).toMatch(/no answer within 400 ms/);
  }, 30_000);

  it('retries when the receiver is down (connection refused) and delivers once it is up', async () => {
    const down = await startReceiver();
    const url = down.url('/later');
    await down.close();
    const created = await createEndpoint(t.db, { keyId, url, eventTypes: ['unit.changed'] });
    endpoints.push(created.endpoint.id);
    await importing({ units: [unit(12, 1, 990_000)] });
    await expect.poll(async () => (await listDeliveries(t.db, created.endpoint.id, {}))[0]?.last_error ?? '').toMatch(/ECONNREFUSED/);
    // The receiver comes up (here: at another port, so the URL is updated); the retries reach it.
    await updateEndpoint(t.db, created.endpoint.id, { url: receiver.url('/later') });
    await receiver.waitFor((all) => about(all, '/later', 12).length > 0);
    await expect.poll(async () => (await listDeliveries(t.db, created.endpoint.id, {})).map((d) => d.state), { timeout: 10_000 }).toEqual(['delivered']);
  });

  it('while an endpoint does not answer, its other deliveries wait for one probe, and all go once a probe is answered', async () => {
    const down = await startReceiver();
    const url = down.url('/probed');
    await down.close();
    const created = await createEndpoint(t.db, { keyId, url, eventTypes: ['unit.changed'] });
    endpoints.push(created.endpoint.id);
    // 40 deliveries due at once (the worker claims 16 at a time): the first claims are refused.
    const pingBody = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: { endpoint_id: created.endpoint.id, message: 'ping from the Catalogue API' } });
    await sql`
      WITH m AS (
        INSERT INTO webhook_messages (id, endpoint_id, event_type, body)
        SELECT 'msg_probe_' || n, ${created.endpoint.id}, 'ping', ${pingBody} FROM generate_series(1, 40) n
        RETURNING id, endpoint_id
      )
      INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at) SELECT id, endpoint_id, now() FROM m`.execute(t.db);
    worker.wake();
    const deliveries = () =>
      t.db.selectFrom('webhook_deliveries').select(['id', 'attempts', 'state', 'waits_for_probe']).where('endpoint_id', '=', created.endpoint.id).execute();
    await expect.poll(async () => (await deliveries()).filter((d) => d.attempts > 0).length).toBeGreaterThan(0);
    // Refused for a while: the probes retry (every 40 ms and more), the rest are never attempted.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const whileDown = await deliveries();
    const waiting = whileDown.filter((d) => d.attempts === 0);
    expect(waiting.length).toBeGreaterThanOrEqual(40 - 16);
    expect(waiting.every((d) => d.waits_for_probe !== null)).toBe(true);
    expect(Math.max(...whileDown.map((d) => d.attempts))).toBeGreaterThan(1);
    // The endpoint answers again (here at another port): the next probe's 2xx releases the others at
    // once (without the release they would wait for their hold, past the 5.8 s lease of this worker).
    await updateEndpoint(t.db, created.endpoint.id, { url: receiver.url('/probed') });
    await expect.poll(async () => (await deliveries()).filter((d) => d.state === 'delivered').length, { timeout: 5_000 }).toBe(40);
    const after = await deliveries();
    expect(after.filter((d) => waiting.some((w) => w.id === d.id)).every((d) => d.attempts === 1)).toBe(true);
    expect(after.every((d) => d.waits_for_probe === null || d.state === 'delivered')).toBe(true);
    expect(new Set(receiver.received.filter((r) => r.path === '/probed').map((r) => r.headers['webhook-id'])).size).toBe(40);
  }, 30_000);

  it('signs with both secrets for 24 h after a rotation', async () => {
    const { endpoint: e, secret: old } = await endpoint('/rotate', ['unit.changed']);
    const rotated = await rotateSecret(t.db, e.id);
    expect(Date.parse(rotated!.previousUntil) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await importing({ units: [unit(12, 1, 1_000_001)] });
    const [request] = about(await receiver.waitFor((all) => about(all, '/rotate', 12).length > 0), '/rotate', 12);
    expect(request.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [old, rotated!.secret]) expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    // Once the 24 h are over, the old secret no longer signs.
    await t.db.updateTable('webhook_endpoints').set({ previous_secret_until: sql`now() - interval '1 second'` }).where('id', '=', e.id).execute();
    await importing({ units: [unit(12, 1, 1_000_002)] });
    const second = about(await receiver.waitFor((all) => about(all, '/rotate', 12).length === 2), '/rotate', 12)[1];
    expect(() => new Webhook(old).verify(second.body, second.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(rotated!.secret).verify(second.body, second.headers as Record<string, string>)).not.toThrow();
  });

  it('redelivers one delivery, or everything since a time, with the same webhook-id and body', async () => {
    const { endpoint: e } = await endpoint('/again', ['project.changed']);
    const start = new Date(Date.now() - 1000).toISOString();
    await importing({ projects: [project(1, DEV, { name: 'Tower 1, phase 2' })] });
    const [first] = await receiver.waitFor((all) => about(all, '/again', 1).length > 0);
    await expect.poll(async () => (await listDeliveries(t.db, e.id, {}))[0]?.state).toBe('delivered');
    const [delivery] = await listDeliveries(t.db, e.id, {});
    expect(await redeliverOne(t.db, delivery.id)).toMatchObject({ endpoint_id: e.id, message_id: delivery.message_id });
    const again = about(await receiver.waitFor((all) => about(all, '/again', 1).length === 2), '/again', 1)[1];
    expect(again.headers['webhook-id']).toBe(about(receiver.received, '/again', 1)[0].headers['webhook-id']);
    expect(again.body).toBe(about(receiver.received, '/again', 1)[0].body);
    await expect.poll(async () => (await listDeliveries(t.db, e.id, {})).every((d) => d.state === 'delivered')).toBe(true);
    expect(await redeliverSince(t.db, e.id, start)).toBe(1);
    await receiver.waitFor((all) => about(all, '/again', 1).length === 3);
    expect(await redeliverSince(t.db, e.id, new Date(Date.now() + 60_000).toISOString())).toBe(0);
    expect(first).toBeDefined();
  });

  it('/health shows the queue depth and the oldest pending delivery’s age', async () => {
    receiver.on('/held', 500);
    const { endpoint: e } = await endpoint('/held', ['project.changed']);
    await importing({ projects: [project(1, DEV, { name: 'Tower 1, phase 3' })] });
    await receiver.waitFor((all) => all.some((r) => r.path === '/held'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pending = (await t.app.inject({ url: '/health' })).json().data.webhooks;
    expect(pending.pending).toBe(1);
    expect(pending.oldest_pending_age_s).toBeGreaterThan(0);
    expect(Date.parse(pending.as_of)).toBeGreaterThan(Date.now() - 5_000);
    // Disabled, its delivery is held, not pending.
    await updateEndpoint(t.db, e.id, { enabled: false });
    const held = (await t.app.inject({ url: '/health' })).json().data.webhooks;
    expect(held).toMatchObject({ pending: 0, oldest_pending_age_s: null, held: 1 });
  });

  it('sends an endpoint only the event types it subscribes to, and records nothing else for it', async () => {
    const units = await endpoint('/types-units', ['unit.changed']);
    const projects = await endpoint('/types-projects', ['project.changed']);
    const removals = await endpoint('/types-removals', ['unit.removed', 'project.removed']);
    await importing({ units: [unit(12, 1, 1_000_005)], projects: [project(1, DEV, { name: 'Tower 1, phase 4' })] });
    const received = await receiver.waitFor((all) => about(all, '/types-units', 12).length > 0 && about(all, '/types-projects', 1).length > 0);
    expect([...new Set(bodiesAt(received, '/types-units').map((b) => b.type))]).toEqual(['unit.changed']);
    expect(bodiesAt(received, '/types-projects').map((b) => `${b.type} ${b.data.id}`)).toEqual(['project.changed 1']);
    const recorded = async (id: number) => (await t.db.selectFrom('webhook_messages').select('event_type').where('endpoint_id', '=', id).execute()).map((m) => m.event_type);
    expect(new Set(await recorded(units.endpoint.id))).toEqual(new Set(['unit.changed']));
    expect(await recorded(projects.endpoint.id)).toEqual(['project.changed']);
    expect(await recorded(removals.endpoint.id)).toEqual([]);
    expect(bodiesAt(receiver.received, '/types-removals')).toEqual([]);
  });

  it(`keeps the delivery log ${LOG_RETENTION_DAYS} days, and never drops a message whose delivery is still pending`, async () => {
    const { endpoint: e } = await endpoint('/log', ['unit.changed']);
    // Disabled: the worker leaves its pending delivery alone (held).
    await updateEndpoint(t.db, e.id, { enabled: false });
    const message = async (id: string, daysAgo: number, state: 'delivered' | 'failed' | 'pending') => {
      await sql`INSERT INTO webhook_messages (id, endpoint_id, event_type, body, created_at) VALUES (${id}, ${e.id}, 'unit.changed', '{}', now() - ${daysAgo}::float * interval '1 day')`.execute(t.db);
      await sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, state, created_at) VALUES (${id}, ${e.id}, ${state}, now() - ${daysAgo}::float * interval '1 day')`.execute(t.db);
    };
    await message('msg_old_delivered', LOG_RETENTION_DAYS + 1, 'delivered');
    await message('msg_old_failed', LOG_RETENTION_DAYS + 1, 'failed');
    await message('msg_old_pending', LOG_RETENTION_DAYS + 1, 'pending');
    await message('msg_recent', LOG_RETENTION_DAYS - 0.5, 'delivered');
    expect(await pruneDeliveryLog(t.db)).toBe(2);
    const left = await t.db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', e.id).orderBy('id').execute();
    expect(left.map((m) => m.id)).toEqual(['msg_old_pending', 'msg_recent']);
    // Their deliveries went with them.
    expect((await listDeliveries(t.db, e.id, {})).map((d) => d.message_id).sort()).toEqual(['msg_old_pending', 'msg_recent']);
  });

  it('sends bodies that match the documented schemas (OpenAPI webhooks:), whose examples match them too', async () => {
    if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value));
    if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value));
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { type: EventType });
    expect([...new Set(bodies.map((b) => b.type))].sort()).toEqual(expect.arrayContaining(['application.created', 'project.changed', 'unit.changed', 'unit.removed']));
    for (const body of bodies) expect(Value.Errors(webhookBodySchema(body.type), body).First()?.message, JSON.stringify(body)).toBeUndefined();
    for (const [type, event] of Object.entries(WEBHOOK_EVENTS)) expect(Value.Check(webhookBodySchema(type as EventType), { type, timestamp: '2026-11-25T09:30:00.000Z', data: event.example }), type).toBe(true);
    const document = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(Object.keys(document.webhooks).sort()).toEqual(Object.keys(WEBHOOK_EVENTS).sort());
    expect(document.webhooks['unit.changed'].post.parameters.map((p: { name: string }) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });
});
