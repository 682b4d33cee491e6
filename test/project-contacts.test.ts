import Fastify from 'fastify';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { linkBuilder } from '../src/contract/links.js';
import { ok, Success } from '../src/contract/schemas/envelope.js';
import { ProjectContacts } from '../src/contract/schemas/projects.js';
import { companyContacts } from '../src/details/company-contacts.js';
import { toProjectContacts } from '../src/details/contacts-presenter.js';
import { findProjectContacts } from '../src/queries/contacts.js';
import type { Change } from '../src/changes/change-kinds.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { catalogueBundle } from './helpers/project-scenarios.js';
import { keysByPriceVector } from './helpers/sql-reference-body.js';

/*
 * GET /projects/{id}/contacts from memory (src/details/company-contacts.ts): the developer's contacts are
 * read once and kept per snapshot until the next change signal. Against the SQL reference
 * (findProjectContacts: visibility and contacts in one query), byte for byte through the route's
 * serializer; and fresh after writes to the access tables, which make no new snapshot.
 */

const STATIC = 'https://static.example.com';

describe.each(drivers)('GET /projects/{id}/contacts from memory (%s)', (driver) => {
  let t: TestApp;
  let serializer: ReturnType<typeof Fastify>;
  let serializing: unknown;
  const links = linkBuilder(STATIC);

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle(), { STATIC_BASE_URL: STATIC });
    serializer = Fastify();
    serializer.get('/', { schema: { response: { 200: Success(ProjectContacts, 'the route schema') } } }, async () => serializing);
    await serializer.ready();
  }, 120_000);
  afterAll(async () => {
    await serializer?.close();
    await t?.close();
  });

  const get = (key: string, id: number) => t.app.inject({ method: 'GET', url: `/projects/${id}/contacts`, headers: { 'x-api-key': key } });

  /** The SQL reference's answer for the key and project: the body the route should send, or undefined (404). */
  async function reference(record: Parameters<typeof findProjectContacts>[1], id: number): Promise<string | undefined> {
    const row = await findProjectContacts(t.db, record, id);
    if (!row) return undefined;
    serializing = ok(toProjectContacts(row, links));
    return (await serializer.inject({ method: 'GET', url: '/' })).body;
  }

  /** Resolves once this process has got `count` more change signals of `kind`. */
  function nextSignals(kind: Change['kind'], count: number): Promise<void> {
    return new Promise((resolve) => {
      let left = count;
      const stop = t.changes.subscribe((change) => {
        if (change.kind !== kind || --left > 0) return;
        stop();
        resolve();
      });
    });
  }
  const nextSignal = (kind: Change['kind']) => nextSignals(kind, 1);

  it('differential: the same body or 404 as the SQL reference, for random projects and keys of agencies with and without contracts', async () => {
    const projectIds = (await t.db.selectFrom('projects').select('id').execute()).map((row) => row.id);
    const agencies = await t.db.selectFrom('companies').select('id').where('company_type', '=', 1).execute();
    const keysOf = new Map(agencies.map(({ id }) => [id, keysByPriceVector(t, { id, author: DEMO_AUTHOR_ID })]));
    keysOf.set(DEMO_AGENCY_ID, keysByPriceVector(t));
    const seen = { found: 0, missing: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...keysOf.keys()),
        fc.oneof(fc.constantFrom(...projectIds), fc.integer({ min: 1, max: 100_000 })),
        fc.integer({ min: 0, max: 3 }),
        async (agency, id, repeat) => {
          const { secret, record } = await keysOf.get(agency)!(0);
          const expected = await reference(record, id);
          // Asked again: the kept answer is the same as the one first read.
          for (let i = 0; i <= repeat; i++) {
            const res = await get(secret, id);
            if (expected === undefined) {
              expect(res.statusCode).toBe(404);
              expect(res.json()).toEqual({ status: 'error', message: 'project not found' });
            } else {
              expect(res.statusCode).toBe(200);
              expect(res.body).toBe(expected);
            }
          }
          seen[expected === undefined ? 'missing' : 'found']++;
        },
      ),
      { numRuns: 80, seed: 20261126 },
    );
    expect(seen.found).toBeGreaterThan(10);
    expect(seen.missing).toBeGreaterThan(10);
  }, 120_000);

  it('follows writes to users and company_members, which make no new catalogue version, once their signal arrives', async () => {
    const { secret, record } = await keysByPriceVector(t)(0);
    const listed = (await t.app.inject({ method: 'GET', url: '/projects/list', headers: { 'x-api-key': secret } })).json().data.items as { id: number }[];
    const projectId = listed.find(() => true)!.id;
    const before = (await get(secret, projectId)).json().data;
    expect(before.workers.length).toBeGreaterThan(1);
    const [first, second] = before.workers as { user_id: number; role: string }[];
    const version = t.changes.catalogueVersion;

    // A member becomes the CEO (left out), another user is deleted (left out).
    let signalled = nextSignal('access');
    await sql`UPDATE company_members SET role = ' Ceo ' WHERE company_id = ${before.company.id} AND user_id = ${first.user_id}`.execute(t.db);
    await signalled;
    const afterCeo = (await get(secret, projectId)).json().data;
    expect(afterCeo.workers.map((w: { user_id: number }) => w.user_id)).not.toContain(first.user_id);
    expect((await get(secret, projectId)).body).toBe(await reference(record, projectId));
    // The write made no new catalogue version: the same snapshot answered, and the kept answer went.
    expect(t.changes.catalogueVersion).toBe(version);

    // (A write to users also touches the projects the user authored, for GET /changes: that one may.)
    signalled = nextSignal('access');
    await sql`UPDATE users SET deleted_at = now() WHERE id = ${second.user_id}`.execute(t.db);
    await signalled;
    const afterDelete = (await get(secret, projectId)).json().data;
    expect(afterDelete.workers.map((w: { user_id: number }) => w.user_id)).not.toContain(second.user_id);
    expect((await get(secret, projectId)).body).toBe(await reference(record, projectId));

    // Two writes, two transactions: two signals, both awaited.
    signalled = nextSignals('access', 2);
    await sql`UPDATE users SET deleted_at = NULL WHERE id = ${second.user_id}`.execute(t.db);
    await sql`UPDATE company_members SET role = ${first.role} WHERE company_id = ${before.company.id} AND user_id = ${first.user_id}`.execute(t.db);
    await signalled;
    expect((await get(secret, projectId)).json().data).toEqual(before);
  });

  it('a read in flight when a change signal arrives is not kept, and nothing is kept while the signal cannot be trusted', async () => {
    const [{ id: companyId }] = await t.db.selectFrom('companies').select('id').where('company_type', '=', 2).where('deleted_at', 'is', null).orderBy('id').limit(1).execute();
    const snapshot = await t.search.latest();
    const listeners: ((change: Change) => void)[] = [];
    const signal = { listening: true, subscribe: (listener: (change: Change) => void) => (listeners.push(listener), () => {}) };
    const contacts = companyContacts(t.database, links, signal);
    const names = async () => (await contacts.of(snapshot, companyId))!.data.company.name;
    const original = await names();

    // In flight: a read (the signal first, so that it is not answered from what was kept), then a
    // signal before its answer, then a write that sends none: the read is not kept, the next ask
    // reads again and sees the write (were the read kept, it would answer the name before it).
    const signalAll = () => listeners.forEach((listener) => listener({ kind: 'access' }));
    signalAll();
    const inFlight = contacts.of(snapshot, companyId);
    signalAll();
    await sql`UPDATE companies SET company_name = 'Renamed While Reading' WHERE id = ${companyId}`.execute(t.db);
    await inFlight;
    expect(await names()).toBe('Renamed While Reading');

    // Kept: without a signal the kept answer stays (this is what the signal is for).
    await sql`UPDATE companies SET company_name = 'Renamed Unsignalled' WHERE id = ${companyId}`.execute(t.db);
    expect(await names()).toBe('Renamed While Reading');

    // Not listening: every ask reads.
    signal.listening = false;
    expect(await names()).toBe('Renamed Unsignalled');
    await sql`UPDATE companies SET company_name = ${original} WHERE id = ${companyId}`.execute(t.db);
    expect(await names()).toBe(original);
  });
});
