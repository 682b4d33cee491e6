import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { createEndpoint } from '../src/queries/webhook-endpoints.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/webhooks/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords, type Bundle } from './helpers/fixtures.js';
import { bodiesAt, startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/*
 * Webhooks say what changed, once (issue 51): a change reaches each endpoint as one event per record
 * whose own answer changed, never a delivery that says nothing changed, while GET /changes keeps
 * listing everything a mirror must re-read (a project's detail lists its units; a unit's embeds its
 * project). A project of 30 units, two endpoints on two keys (different prices), real imports, the
 * delivery worker posting to a real receiver.
 */
const UNITS = 30;
const project = (extra: Record<string, unknown> = {}) => ({
  id: 1,
  company_id: DEV,
  author_id: 110,
  area_id: 1,
  name: 'Harbour Gate',
  payment_plans: [
    { type: 1, percent: 20 },
    { type: 2, percent: 80 },
  ],
  image_file_ids: [2, 1],
  feature_ids: [3, 1],
  ...extra,
});
/** Unit 100 + i; unit 100 is the lowest priced (price_from) and none is smaller than 100 m². */
const unit = (i: number, extra: Record<string, unknown> = {}) => ({ id: 100 + i, project_id: 1, unit_number: `H-${i}`, bedrooms: 2, status: 3, price: 1_000_000 + i * 10_000, unit_area: 100, ...extra });
const catalogue = (): Bundle => withRecords(baseBundle(), { projects: [project()], units: Array.from({ length: UNITS }, (_, i) => unit(i)), api_keys: [] });

type Body = ReturnType<typeof bodiesAt>[number];
const names = (bodies: Body[]) => bodies.map((body) => `${body.type} ${body.data.id as number}`).sort();

describe.each(drivers)('webhooks say what changed, once (%s)', (driver) => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let secrets: string[] = [];
  const paths = ['/a', '/b'];
  let seen = 0;

  /** Imports `bundle`, and returns what each endpoint then received (waits for `expected` requests each, then a moment for any more). */
  async function importAndReceive(bundle: Bundle, expected: number): Promise<Body[][]> {
    const before = receiver.received.length;
    await importBundle(t.db, bundle, { facilityLinkRadiusM: 10_000 });
    await receiver.waitFor((all) => paths.every((path) => bodiesAt(all.slice(before), path).length >= expected));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const got = paths.map((path) => bodiesAt(receiver.received.slice(before), path));
    seen += got.flat().length;
    return got;
  }

  /** What GET /changes lists for key `index` between two cursors. */
  const feedSince = async (cursor: string, index = 0) =>
    ((await t.app.inject({ url: `/changes?cursor=${cursor}&limit=1000`, headers: { 'x-api-key': secrets[index] } })).json().data.items as { type: string; id: number; change: string }[]).map(
      (item) => `${item.type} ${item.id} ${item.change}`,
    );
  const cursorNow = async () => (await t.app.inject({ url: '/changes?limit=1000', headers: { 'x-api-key': secrets[0] } })).json().data.next_cursor as string;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue(), { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startReceiver();
    secrets = [];
    for (const [index, priceVector] of [0, 10].entries()) {
      const key = await createApiKey(t.db, { companyId: AGENCY, authorId: OWNER, name: `mirror ${index}`, priceVector });
      secrets.push(key.secret);
      await createEndpoint(t.db, { keyId: key.key.id, url: receiver.url(paths[index]), eventTypes: ['project.changed', 'project.removed', 'unit.changed', 'unit.removed'] });
    }
    worker = await startDeliveryWorker(t.database, { timeoutMs: 1_000, allowPrivate: true, retry: { baseMs: 40, retryForMs: 6_000 } });
  }, 180_000);
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await t?.close();
  });

  it('one unit\u2019s price change: exactly one unit.changed ["price"] per endpoint, in its key\u2019s prices; the feed lists the project and all its units', async () => {
    const cursor = await cursorNow();
    const [a, b] = await importAndReceive({ units: [unit(7, { price: 1_075_000 })] }, 1);
    for (const bodies of [a, b]) expect(names(bodies)).toEqual(['unit.changed 107']);
    expect(a[0].data).toMatchObject({ project_id: 1, changes: ['price'], price: 1_075_000, previous_price: 1_070_000, status: 3 });
    expect(b[0].data).toMatchObject({ changes: ['price'], price: 1_182_500, previous_price: 1_177_000 });
    expect(await feedSince(cursor)).toHaveLength(1 + UNITS);
  });

  it('a price change that moves the project\u2019s price_from: the unit\u2019s event and one project.changed', async () => {
    const [a, b] = await importAndReceive({ units: [unit(0, { price: 990_000 })] }, 2);
    for (const bodies of [a, b]) expect(names(bodies)).toEqual(['project.changed 1', 'unit.changed 100']);
    expect(a.find((body) => body.type === 'unit.changed')!.data).toMatchObject({ changes: ['price'], price: 990_000, previous_price: 1_000_000 });
    const detail = (await t.app.inject({ url: '/projects/1', headers: { 'x-api-key': secrets[0] } })).json().data;
    expect(detail.price_from).toBe(990_000);
  });

  it('a change of a unit\u2019s other fields says `details`; price and status together say both', async () => {
    const [a] = await importAndReceive({ units: [unit(3, { unit_area: 120, furnishing: 2 })] }, 1);
    expect(names(a)).toEqual(['unit.changed 103']);
    expect(a[0].data.changes).toEqual(['details']);
    const [both] = await importAndReceive({ units: [unit(4, { price: 1_045_000, status: 4 })] }, 1);
    expect(both[0].data).toMatchObject({ changes: ['price', 'status'], previous_status: 3 });
  });

  it('a change of the project alone: one project.changed, no event for its 30 units (which GET /changes lists)', async () => {
    const cursor = await cursorNow();
    const [a, b] = await importAndReceive({ projects: [project({ name: 'Harbour Gate North' })] }, 1);
    for (const bodies of [a, b]) expect(names(bodies)).toEqual(['project.changed 1']);
    expect(await feedSince(cursor)).toHaveLength(1 + UNITS);
  });

  it('a project hidden then shown again: project.removed, then project.changed and each unit with ["availability"]', async () => {
    const [hidden] = await importAndReceive({ projects: [project({ name: 'Harbour Gate North', is_draft: true })] }, 1);
    expect(names(hidden)).toEqual(['project.removed 1']);
    const [shown, other] = await importAndReceive({ projects: [project({ name: 'Harbour Gate North' })] }, 1 + UNITS);
    for (const bodies of [shown, other]) expect(names(bodies)).toEqual(names([{ type: 'project.changed', timestamp: '', data: { id: 1 } }, ...Array.from({ length: UNITS }, (_, i) => ({ type: 'unit.changed', timestamp: '', data: { id: 100 + i } }))]));
    expect(shown.filter((body) => body.type === 'unit.changed').every((body) => JSON.stringify(body.data.changes) === '["availability"]')).toBe(true);
  });

  it('restating the catalogue as it is (lists included) sends nothing; a list changed is the project\u2019s own change', async () => {
    const before = receiver.received.length;
    const current = await t.db.selectFrom('units').select(['id', 'price', 'status', 'unit_area', 'furnishing']).orderBy('id').execute();
    await importBundle(t.db, { projects: [project({ name: 'Harbour Gate North' })], units: current.map((row) => unit(row.id - 100, { price: Number(row.price), status: row.status, unit_area: Number(row.unit_area), furnishing: row.furnishing })) }, { facilityLinkRadiusM: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.slice(before)).toEqual([]);
    const [a] = await importAndReceive({ projects: [project({ name: 'Harbour Gate North', feature_ids: [1, 3, 4] })] }, 1);
    expect(names(a)).toEqual(['project.changed 1']);
  });

  it('no delivery ever said that nothing changed', () => {
    const all = paths.flatMap((path) => bodiesAt(receiver.received, path));
    expect(all).toHaveLength(seen);
    expect(all.filter((body) => body.type === 'unit.changed' && (body.data.changes as string[]).length === 0)).toEqual([]);
  });
});
