import { describe, expect, it } from 'vitest';
import type { Change } from '../src/changes/change-kinds.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { importBundle } from '../src/import/import-bundle.js';
import { linkBuilder } from '../src/contract/links.js';
import { findProjects } from '../src/search/find-projects.js';
import { SearchModel } from '../src/search/search-model.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, type Bundle } from './helpers/fixtures.js';

/*
 * The search model's life cycle: a catalogue change reaches the API once refresh() has run, a request
 * works on one snapshot from start to end even when a refresh swaps in another meanwhile, and refresh
 * calls that pile up while one runs cause exactly one more build.
 */

const PROJECTS = 30;

function projects(version: number, count: number): Bundle {
  return {
    projects: Array.from({ length: count }, (_, i) => ({ id: 1000 + i, company_id: DEV, name: `Tower ${String(i).padStart(2, '0')} v${version}`, area_id: 1 })),
    units: Array.from({ length: count }, (_, i) => ({ id: 5000 + i, project_id: 1000 + i, unit_number: `U${i}`, bedrooms: i % 4, price: 100_000 * (version + i), unit_area: 50 + i })),
  };
}

describe.each(drivers)('search model refresh (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  const importOptions = { facilityLinkRadiusM: 1000 };

  useTestApp(driver, { ...baseBundle(), ...projects(1, PROJECTS) }, (started) => ({ t, key } = started));

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { total: number; items: { id: number; name: string; price_from: number | null }[] };
  };

  it('serves an import on the first request after its change signal, with no refresh() asked', async () => {
    const before = await get('/projects?limit=100');
    expect(before.total).toBe(PROJECTS);
    expect(before.items.every((item) => item.name.endsWith(' v1'))).toBe(true);

    const signalled = t.changes.catalogueVersion;
    const version = t.search.version;
    await importBundle(t.db, projects(2, PROJECTS + 1), importOptions);
    // PGlite signals before the import's await returns; PostgreSQL a moment after the commit.
    for (let waited = 0; t.changes.catalogueVersion === signalled; waited += 5) {
      if (waited > 5_000) throw new Error('no change signal within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The request waits for the refresh the signal asked for: never the catalogue from before it.
    const after = await get('/projects?limit=100');
    // At least one rebuild (a late signal of the set-up's own writes may have asked for one more).
    expect(t.search.version).toBeGreaterThan(version);
    expect(t.search.current().catalogueVersion).toBe(t.changes.catalogueVersion);
    expect(after.total).toBe(PROJECTS + 1);
    expect(after.items.every((item) => item.name.endsWith(' v2'))).toBe(true);
    expect(after.items.find((item) => item.id === 1000)!.price_from).toBe(200_000);
    expect((await get('/projects/list')).items).toHaveLength(PROJECTS + 1);
  });

  /*
   * A model of its own on the same database, with the signal's timing in the test's hands, so that the
   * requests arrive while the signal's rebuild runs (or waits behind another), on both drivers.
   */
  const readVersion = async () => (await t.db.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version;
  const modelWithSignal = async (readFrom?: () => Promise<typeof t.db>) => {
    let listener: ((change: Change) => void) | undefined;
    const changes = { catalogueVersion: await readVersion(), subscribe: (on: (change: Change) => void) => ((listener = on), () => undefined) };
    const model = await SearchModel.create(t.db, { links: linkBuilder(undefined), changes, readFrom });
    const signal = (version: number) => {
      changes.catalogueVersion = version;
      listener!({ kind: 'catalogue', version });
    };
    // Eight requests before the swap, each waiting for the snapshot that holds the signalled version.
    const eightRequests = async () => {
      for (const snapshot of await Promise.all(Array.from({ length: 8 }, () => model.latest()))) expect(snapshot.catalogueVersion).toBe(changes.catalogueVersion);
    };
    return { model, signal, eightRequests };
  };

  it('atLeast(a version read from the database) holds that version before its signal has come (GET /changes then a detail)', async () => {
    const { model } = await modelWithSignal();
    const before = model.current().catalogueVersion;
    await importBundle(t.db, projects(3, PROJECTS), importOptions);
    const committed = await readVersion();
    expect(committed).toBeGreaterThan(before);
    // The signal is held back: latest() knows of nothing newer, atLeast() reads what it is told.
    expect((await model.latest()).catalogueVersion).toBe(before);
    const caughtUp = await model.atLeast(committed);
    expect(caughtUp.catalogueVersion).toBeGreaterThanOrEqual(committed);
    const page = findProjects(caughtUp, { contracted_developer_ids: [DEV], price_vector: 0 }, parseProjectsQuery({ limit: 100 }), { amenitiesRadiusM: undefined });
    expect(page.items).toContain(' v3');
  });

  it('builds once for a signal, however many requests wait for its swap', async () => {
    const { model, signal, eightRequests } = await modelWithSignal();
    expect(model.version).toBe(1);
    await importBundle(t.db, projects(8, PROJECTS + 1), importOptions);
    signal(await readVersion());
    await eightRequests();
    // One build for the signal: a waiting request did not queue another full build behind it.
    expect(model.version).toBe(2);
    // Nothing left running or queued either: the next refresh builds exactly once more.
    await model.refresh();
    expect(model.version).toBe(3);
  });

  it('builds once for a signal that came while another build ran, however many requests wait', async () => {
    // The second build (the one the signal queues) waits at a gate until the import has committed, so
    // that the first one surely reads the catalogue from before it.
    let builds = 0;
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const { model, signal, eightRequests } = await modelWithSignal(async () => {
      if (++builds === 2) await gate;
      return t.db;
    });
    const first = model.refresh();
    // The signal of the import about to commit (an import takes exactly one version) arrives while the
    // first build runs: its build is queued behind it, and eight requests wait for that one.
    const importVersion = (await readVersion()) + 1;
    signal(importVersion);
    const requests = eightRequests();
    await first;
    await importBundle(t.db, projects(9, PROJECTS + 1), importOptions);
    expect(await readVersion()).toBe(importVersion);
    openGate();
    await requests;
    // The first build and the signal's: none queued by a waiting request.
    expect(model.version).toBe(3);
    await model.refresh();
    expect(model.version).toBe(4);
  });

  it('answers every request from one snapshot while refreshes swap catalogues', async () => {
    // Requests in flight across several swaps between two catalogues that differ in every item.
    const responses: Promise<Awaited<ReturnType<typeof get>>>[] = [];
    for (let round = 3; round <= 6; round++) {
      await importBundle(t.db, projects(round, PROJECTS + 1), importOptions);
      const refreshing = t.refresh();
      for (let i = 0; i < 25; i++) responses.push(get('/projects?limit=100&sort=-price_from'));
      await refreshing;
    }
    for (const data of await Promise.all(responses)) {
      const versions = new Set(data.items.map((item) => item.name.split(' v')[1]));
      // One catalogue per response: all names of one import, and the total of that same import.
      expect(versions.size).toBe(1);
      expect(data.total).toBe(PROJECTS + 1);
      expect(data.items).toHaveLength(data.total);
      // The order of that same snapshot (prices grow with the version and the project).
      const prices = data.items.map((item) => item.price_from!);
      expect(prices).toEqual([...prices].sort((a, b) => b - a));
    }
  });

  it('keeps a snapshot taken by a request intact after the swap', async () => {
    const page = parseProjectsQuery({ limit: 100 });
    const scope = { contracted_developer_ids: [DEV], price_vector: 0 };
    const old = t.search.current();
    // What an answer shows (the kept result's inner state, made lazily, is not part of it).
    const shown = ({ total, items, facets }: ReturnType<typeof findProjects>) => ({ total, items, facets });
    const oldAnswer = shown(findProjects(old, scope, page, { amenitiesRadiusM: undefined }));
    await importBundle(t.db, projects(7, PROJECTS + 1), importOptions);
    await t.refresh();
    expect(t.search.current()).not.toBe(old);
    // The old snapshot still answers as before; the new one sees the import.
    expect(shown(findProjects(old, scope, page, { amenitiesRadiusM: undefined }))).toEqual(oldAnswer);
    expect(findProjects(t.search.current(), scope, page, { amenitiesRadiusM: undefined }).items).toContain(' v7"');
  });

  it('coalesces refreshes asked for while one runs into exactly one more build', async () => {
    const version = t.search.version;
    await Promise.all(Array.from({ length: 5 }, () => t.refresh()));
    expect(t.search.version).toBe(version + 2);
    // Nothing running: the next call builds once.
    await t.refresh();
    expect(t.search.version).toBe(version + 3);
  });
});
