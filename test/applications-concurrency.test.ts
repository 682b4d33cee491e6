import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/domain/api-key.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * What several API processes racing on one PostgreSQL must still guarantee. PGlite has a single
 * connection, so transactions there never overlap and these tests would prove nothing: they run on
 * PostgreSQL only (TEST_DATABASE_URL).
 */
const UNIT = 1000;
const PARALLEL = 20;

function catalogue(): Bundle {
  return withRecords(baseBundle(), {
    projects: [{ id: 100, company_id: DEV, name: 'Marina Heights', area_id: 1, type: 3, feature_ids: [1] }],
    units: [{ id: UNIT, project_id: 100, unit_number: 'A-101', price: 1_000_000, tag_ids: [1] }],
  });
}

describe.each(drivers)('POST /units/{id}/applications under concurrency (%s)', (driver) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function setup(bundle: Bundle = catalogue()) {
    t = await createTestApp(driver, bundle);
    const key = await t.key();
    const apply = (body: unknown, headers: Record<string, string> = {}) =>
      t!.app.inject({ method: 'POST', url: `/units/${UNIT}/applications`, headers: { 'x-api-key': key, ...headers }, payload: body as object });
    return { t, key, apply };
  }

  const parallel = <T>(n: number, run: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => run(i)));

  it.skipIf(driver === 'pglite')(`${PARALLEL} parallel applications for the same new client create exactly one client`, async () => {
    const { t, apply } = await setup();
    const responses = await parallel(PARALLEL, () => apply({ client: { first_name: 'Jane', email: 'jane@example.com', mobile_number: '+971 50 111 2222' } }));
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    const clients = responses.map((res) => res.json().data.client);
    expect(new Set(clients.map((c) => c.id)).size).toBe(1);
    expect(clients.filter((c) => c.created)).toHaveLength(1);
    const rows = await t.db.selectFrom('clients').select('id').where('company_id', '=', AGENCY).execute();
    expect(rows).toHaveLength(1);
    expect(await t.db.selectFrom('opportunities').select('id').where('client_id', '=', rows[0].id).execute()).toHaveLength(PARALLEL);
  });

  it.skipIf(driver === 'pglite')('matches concurrent clients on either unique index (email, or mobile digits in any format)', async () => {
    const { t, apply } = await setup();
    const formats = ['+971 50 111 2222', '971501112222', '(971) 50-111-2222', '00971501112222'.slice(2)];
    const responses = await parallel(PARALLEL, (i) =>
      apply({ client: i % 2 ? { first_name: 'Jane', mobile_number: formats[i % formats.length] } : { first_name: 'Jane', email: 'JANE@example.com', mobile_number: formats[i % formats.length] } }),
    );
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    expect(new Set(responses.map((res) => res.json().data.client.id)).size).toBe(1);
    expect(await t.db.selectFrom('clients').select('id').execute()).toHaveLength(1);
  });

  it.skipIf(driver === 'pglite')(`${PARALLEL} parallel applications get distinct, gap-free positions 0..${PARALLEL - 1}`, async () => {
    const { t, apply } = await setup();
    const responses = await parallel(PARALLEL, (i) => apply({ client: { first_name: `Client ${i}`, email: `client${i}@example.com` } }));
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    const positions = responses.map((res) => res.json().data.opportunity.position).sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: PARALLEL }, (_, i) => i));
    const stored = await t.db.selectFrom('opportunities').select('position').where('stage_id', '=', 1).orderBy('position').execute();
    expect(stored.map((r) => r.position)).toEqual(positions);
  });

  it.skipIf(driver === 'pglite')('parallel first applications of an agency without a board agree on one default stage', async () => {
    const bundle = catalogue();
    bundle.board_stages = [];
    const { t, apply } = await setup(bundle);
    const responses = await parallel(10, (i) => apply({ client: { first_name: `Client ${i}`, email: `client${i}@example.com` } }));
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    const stages = await t.db.selectFrom('board_stages').selectAll().where('company_id', '=', AGENCY).execute();
    expect(stages).toHaveLength(1);
    expect(stages[0]).toMatchObject({ name: 'New', position: 0 });
    expect(responses.map((res) => res.json().data.opportunity.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it.skipIf(driver === 'pglite')('parallel duplicates with one Idempotency-Key write once and all get the same response', async () => {
    const { t, apply } = await setup();
    const body = { client: { first_name: 'Jane', email: 'jane@example.com' }, preferences: { based_on_unit: true } };
    const responses = await parallel(10, () => apply(body, { 'idempotency-key': 'same-order' }));
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    expect(new Set(responses.map((res) => res.body)).size).toBe(1);
    expect(await t.db.selectFrom('opportunities').select('id').execute()).toHaveLength(1);
    expect(await t.db.selectFrom('offers').select('id').execute()).toHaveLength(1);
  });

  it.skipIf(driver === 'pglite')('a duplicate sent while the first request runs waits for it and replays its response', async () => {
    const { t, apply } = await setup();
    // Slows the first request down inside its transaction, after the reservation.
    await sql`CREATE FUNCTION slow_offer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$`.execute(t.db);
    await sql`CREATE TRIGGER slow_offer BEFORE INSERT ON offers FOR EACH ROW EXECUTE FUNCTION slow_offer()`.execute(t.db);
    const body = { client: { first_name: 'Jane', email: 'jane@example.com' } };
    const first = apply(body, { 'idempotency-key': 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const duplicate = apply(body, { 'idempotency-key': 'slow' });
    const changed = apply({ ...body, message: 'other' }, { 'idempotency-key': 'slow' });
    const [a, b, c] = await Promise.all([first, duplicate, changed]);
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.body).toBe(a.body);
    expect(c.statusCode).toBe(409);
    expect(c.json().message).toBe('Idempotency-Key was already used with a different request body');
    expect(await t.db.selectFrom('offers').select('id').execute()).toHaveLength(1);
  });

  it.skipIf(driver === 'pglite')('answers 409 in flight when the first request holds the key for too long', async () => {
    const { t, key, apply } = await setup();
    const { id: apiKeyId } = await t.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow();
    await t.db.connection().execute(async (holder) => {
      await sql`BEGIN`.execute(holder);
      try {
        await sql`INSERT INTO idempotency_keys (api_key_id, key, request_hash) VALUES (${apiKeyId}, 'held', 'x')`.execute(holder);
        const started = Date.now();
        const res = await apply({ client: { first_name: 'Jane', email: 'jane@example.com' } }, { 'idempotency-key': 'held' });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({ status: 'error', message: 'a request with this Idempotency-Key is still being processed; retry later' });
        expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
      } finally {
        await sql`ROLLBACK`.execute(holder);
      }
    });
    expect(await t.db.selectFrom('clients').select('id').execute()).toHaveLength(0);
  });
});
