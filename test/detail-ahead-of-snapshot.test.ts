import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkBuilder } from '../src/contract/links.js';
import { buildApp, type App } from '../src/http/app.js';
import { unitPages, type UnitPages } from '../src/details/unit-detail-body.js';
import { detailCaches } from '../src/details/detail-caches.js';
import { detailCacheBounds } from '../src/details/detail-cache-budget.js';
import { identityBodyRequests } from '../src/metrics/instruments.js';
import { importBundle } from '../src/import/import-bundle.js';
import { SearchModel } from '../src/search/search-model.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * GET /units/{id} and GET /projects/{id} read the parts a snapshot does not hold (a project's unit
 * page, the project's detail) at the snapshot's catalogue version, and keep them with the snapshot.
 * Between a commit and the refresh it signals, the database is ahead of the snapshot: what was kept
 * is still the snapshot's (the same catalogue as GET /projects), and what is read then is the
 * database's own answer by the SQL path, never the snapshot's columns mixed with newer rows, and never
 * kept. Here the app's search model follows no signal (only refresh() moves it), so the window stays
 * open for as long as the test needs; the pages' warm-up is off, so that a project's page is read when
 * its unit is asked (with it on, a second test shows the cold project's page read ahead, at the
 * snapshot's version).
 */

const UNIT_PAGED = 5001;
const UNIT_COLD = 5101;
const UNIT_GONE = 5102;

/** The two projects and three units, named with `suffix`, at `prices`; the third unit deleted or not. */
function records(suffix: string, prices: [number, number, number], goneDeleted: boolean): Bundle {
  return {
    projects: [
      { id: 500, company_id: DEV, name: `Paged Tower${suffix}`, currency: 'AED' },
      { id: 501, company_id: DEV, name: `Cold Tower${suffix}`, currency: 'AED' },
    ],
    units: [
      { id: UNIT_PAGED, project_id: 500, unit_number: 'P-1', price: prices[0], unit_area: 80 },
      { id: UNIT_COLD, project_id: 501, unit_number: 'C-1', price: prices[1], unit_area: 90 },
      { id: UNIT_GONE, project_id: 501, unit_number: 'C-2', price: prices[2], unit_area: 95, ...(goneDeleted ? { deleted: true } : {}) },
    ],
  };
}

function catalogue(): Bundle {
  return withRecords(baseBundle(), records('', [1_000_000, 2_000_000, 3_000_000], false));
}

describe.each(drivers)('details while the database is ahead of the snapshot (%s)', (driver) => {
  let t: TestApp;
  let app: App;
  let frozen: SearchModel;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key();
    frozen = await SearchModel.create(t.db, { links: linkBuilder(undefined) });
    // Pages read on demand only: what a request reads is what is kept.
    const pages = unitPages(t.database, linkBuilder(undefined), { warm: false });
    app = await buildApp({ database: t.database, config: t.config, search: frozen, logger: false, details: detailCaches(t.database, linkBuilder(t.config.staticBaseUrl), detailCacheBounds(t.config.detailCacheMb), pages) });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key, 'accept-encoding': 'br' } });
    return { status: res.statusCode, etag: res.headers.etag, data: res.statusCode === 200 ? JSON.parse(await decoded(res.rawPayload, res.headers['content-encoding'])).data : res.json() };
  };

  it('answers from the snapshot, from the database while it is ahead, and from the new snapshot after the refresh', async () => {
    // The paged project's page and the project's detail are made and kept on this snapshot.
    expect((await get(`/units/${UNIT_PAGED}`)).data).toMatchObject({ id: UNIT_PAGED, price: 1_000_000, project: { name: 'Paged Tower' } });
    expect((await get('/projects/500')).data).toMatchObject({ name: 'Paged Tower', units: [{ id: UNIT_PAGED, price: 1_000_000 }] });

    await importBundle(
      t.db,
      records(' II', [1_100_000, 2_200_000, 3_000_000], true),
      { facilityLinkRadiusM: t.config.facilityLinkRadiusM },
    );
    expect(frozen.current().catalogueVersion).toBeLessThan(Number((await t.db.selectFrom('catalogue_state').select('version').executeTakeFirstOrThrow()).version));

    // What was kept is the snapshot's catalogue, as the search shows it.
    expect((await get(`/units/${UNIT_PAGED}`)).data).toMatchObject({ price: 1_000_000, project: { name: 'Paged Tower' } });
    expect((await get('/projects?search=Tower')).data.items.map((item: { name: string }) => item.name).sort()).toEqual(['Cold Tower', 'Paged Tower']);
    // What is read now is the database's answer, whole: the new price with the new name, not the
    // snapshot's price with the new page; and a unit deleted since is not found.
    for (let ask = 0; ask < 2; ask++) {
      expect((await get(`/units/${UNIT_COLD}`)).data).toMatchObject({ id: UNIT_COLD, price: 2_200_000, project: { name: 'Cold Tower II' } });
      expect((await get(`/units/${UNIT_GONE}`))).toMatchObject({ status: 404, data: { status: 'error', message: 'unit not found' } });
      expect((await get('/projects/501')).data).toMatchObject({ name: 'Cold Tower II', units: [{ id: UNIT_COLD, price: 2_200_000 }] });
    }

    await frozen.refresh();
    expect((await get(`/units/${UNIT_PAGED}`)).data).toMatchObject({ price: 1_100_000, project: { name: 'Paged Tower II' } });
    expect((await get(`/units/${UNIT_COLD}`)).data).toMatchObject({ price: 2_200_000, project: { name: 'Cold Tower II' } });
    expect((await get(`/units/${UNIT_GONE}`)).status).toBe(404);
    expect((await get('/projects/500')).data).toMatchObject({ name: 'Paged Tower II', units: [{ id: UNIT_PAGED, price: 1_100_000 }] });
  });
});

async function decoded(body: Buffer, coding: string | string[] | undefined): Promise<string> {
  const { brotliDecompressSync } = await import('node:zlib');
  return (coding === 'br' ? brotliDecompressSync(body) : body).toString('utf8');
}

describe.each(drivers)('a snapshot behind the signalled catalogue (%s)', (driver) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
  });
  afterAll(() => t?.close());

  it('is told apart, so that the detail routes send nothing kept with it (SearchModel.isBehind)', async () => {
    // A signal this test moves by hand; the model builds only when asked.
    const signal = { catalogueVersion: 0, subscribe: () => () => {} };
    const model = await SearchModel.create(t.db, { links: linkBuilder(undefined), changes: signal });
    const snapshot = model.current();
    signal.catalogueVersion = snapshot.catalogueVersion;
    expect(model.isBehind(snapshot)).toBe(false);
    signal.catalogueVersion = snapshot.catalogueVersion + 1;
    expect(model.isBehind(snapshot)).toBe(true);
    await importBundle(t.db, records(' II', [1_100_000, 2_200_000, 3_000_000], true), { facilityLinkRadiusM: t.config.facilityLinkRadiusM });
    const built = await model.latest();
    expect(built).not.toBe(snapshot);
    expect(model.isBehind(built)).toBe(false);
    expect(model.isBehind(snapshot)).toBe(true);
  });

  it('a detail asked again while the signalled catalogue cannot be built is made anew, not sent as kept', async () => {
    const signal = { catalogueVersion: 0, subscribe: () => () => {} };
    let buildsFail = false;
    const model = await SearchModel.create(t.db, {
      links: linkBuilder(undefined),
      changes: signal,
      // The build's reader: failing, the previous snapshot stays in service (a database a build cannot read).
      readFrom: async () => {
        if (buildsFail) throw new Error('the build cannot read');
        return t.db;
      },
    });
    signal.catalogueVersion = model.current().catalogueVersion;
    const app = await buildApp({ database: t.database, config: t.config, search: model, logger: false });
    try {
      const key = await t.key();
      const get = () => app.inject({ method: 'GET', url: `/units/${UNIT_PAGED}`, headers: { 'x-api-key': key } });
      const hits = async () => (await identityBodyRequests.get()).values.find((value) => value.labels.result === 'hit')?.value ?? 0;
      const made = await get();
      const before = await hits();
      expect((await get()).body).toBe(made.body);
      expect(await hits()).toBe(before + 1);

      // A newer catalogue is signalled and its build fails: the same snapshot serves, nothing kept is sent.
      buildsFail = true;
      signal.catalogueVersion += 1;
      const again = await get();
      expect(model.isBehind(model.current())).toBe(true);
      expect(again.statusCode).toBe(200);
      expect(await hits()).toBe(before + 1);
    } finally {
      await app.close();
    }
  });
});

describe.each(drivers)('unit pages read ahead (%s)', (driver) => {
  let t: TestApp;
  let app: App;
  let pages: UnitPages;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key();
    pages = unitPages(t.database, linkBuilder(undefined));
    app = await buildApp({ database: t.database, config: t.config, search: t.search, changes: t.changes, logger: false, details: detailCaches(t.database, linkBuilder(t.config.staticBaseUrl), detailCacheBounds(t.config.detailCacheMb), pages) });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('after the first unit asked of a snapshot, the other projects\u2019 pages are read in the background and answer as they would on demand', async () => {
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const snapshot = t.search.current();
    expect(pages.kept(snapshot).pages).toBe(0);
    expect((await get(`/units/${UNIT_PAGED}`)).statusCode).toBe(200);
    for (let waited = 0; pages.kept(snapshot).pages < snapshot.projects.count && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pages.kept(snapshot).pages).toBe(snapshot.projects.count);
    expect((await get(`/units/${UNIT_COLD}`)).json().data).toMatchObject({ id: UNIT_COLD, price: 2_000_000, project: { name: 'Cold Tower' } });
    expect((await get(`/units/${UNIT_GONE}`)).json().data).toMatchObject({ id: UNIT_GONE, price: 3_000_000, unit_number: 'C-2' });
  });
});
