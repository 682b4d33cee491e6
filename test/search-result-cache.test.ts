import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, SECOND_AGENCY_AUTHOR_ID, SECOND_AGENCY_ID } from '../src/demo/demo-bundle.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { FACET_NAMES, SORT_VALUES, type ProjectsPage } from '../src/domain/project-filters.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { ProjectsQuery } from '../src/contract/schemas/projects.js';
import { findActiveKeyByHash } from '../src/queries/api-keys.js';
import type { KeyScope } from '../src/domain/key-scope.js';
import { findProjects, type FoundProjects } from '../src/search/find-projects.js';
import { RESULT_CACHE_SEEN_BYTES, ResultCache } from '../src/search/result-cache.js';
import type { Snapshot } from '../src/search/snapshot.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { catalogueBundle, priceVectorArb, scenarioArb, type Query } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';
import { Matches } from '../src/search/matches.js';

/*
 * The result cache (src/search/result-cache.ts) is a fast path: a search asked again is answered from
 * the list kept for it. Differential test against the same search with the cache off, over random
 * sequences of searches sharing one snapshot's cache, and over "near twins": a search cached first,
 * then the same search with one thing changed (the scope, the price vector, the amenities radius, the
 * sort, the facets, each filter in turn), which must never be answered with the first one's result.
 * A result is kept from the second time its search is asked, so each search here is asked three times.
 * The pass itself is checked against the SQL path by search-differential.test.ts (which also asks each
 * search again for another page); the cache lives on the snapshot, so a refresh starts it empty.
 */

const SEED = 20261125;
const RADIUS_M = 1500;

describe('search result cache (pglite)', () => {
  let t: TestApp;
  let catalogue: ReferenceCatalogue;
  let developerIds: (readonly number[])[];

  beforeAll(async () => {
    t = await createTestApp('pglite', catalogueBundle(), { FACILITY_LINK_RADIUS_M: '4000' });
    catalogue = await loadReferenceCatalogue(t.db);
    developerIds = [];
    for (const [companyId, authorId] of [
      [DEMO_AGENCY_ID, DEMO_AUTHOR_ID],
      [SECOND_AGENCY_ID, SECOND_AGENCY_AUTHOR_ID],
    ]) {
      const secret = await t.key({ companyId, authorId });
      developerIds.push((await findActiveKeyByHash(t.db, hashApiKey(secret)))!.contracted_developer_ids);
    }
    expect(developerIds[0]).not.toEqual(developerIds[1]);
  });
  afterAll(() => t?.close());

  const pageOf = (query: Query): ProjectsPage => parseProjectsQuery(Value.Convert(ProjectsQuery, Value.Default(ProjectsQuery, { ...query })) as never);

  /** The cached answer must be the fresh one (and the fresh one is then what the cache holds). */
  function check(snapshot: Snapshot, scope: KeyScope, query: Query, radius: number | undefined, label: string) {
    let page: ProjectsPage;
    try {
      page = pageOf(query);
    } catch {
      return false; // a combination the parser refuses (tested elsewhere)
    }
    const context = { amenitiesRadiusM: radius };
    // What an answer is made of: the page, the total and facets, and every match in order.
    const answer = (found: FoundProjects) => ({ total: found.total, items: found.items, facets: found.facets, order: found.kept.matches.all() });
    const fresh = answer(findProjects(snapshot, scope, page, context, { cache: false }));
    const text = `${label}: ${new URLSearchParams(query)} (vector ${scope.price_vector}, radius ${radius})`;
    // The first ask may be answered by a kept result (under a key the search shares with an earlier one)...
    expect(answer(findProjects(snapshot, scope, page, context)), text).toEqual(fresh);
    // ...the second is kept (a result is kept from its second sighting), the third is served from it.
    findProjects(snapshot, scope, page, context);
    expect(answer(findProjects(snapshot, scope, page, context)), `${text}, kept`).toEqual(fresh);
    return true;
  }

  const queryArb = () =>
    fc
      .record({
        scenario: scenarioArb(catalogue),
        agency: fc.nat(1),
        sort: fc.option(fc.constantFrom(...SORT_VALUES.filter((value) => !value.endsWith('distance'))), { freq: 2 }),
        facets: fc.option(fc.subarray([...FACET_NAMES], { minLength: 1 }), { freq: 3 }),
      })
      .map(({ scenario, agency, sort, facets }) => {
        const query: Query = { ...scenario.query };
        if (sort !== null) query.sort = sort;
        if (facets !== null) query.facets = facets.join(',');
        return { query, agency, priceVector: scenario.priceVector, radius: scenario.withRadius ? RADIUS_M : undefined };
      });

  it('random sequences of searches on one snapshot: every answer is the uncached one', () => {
    const snapshot = t.search.current();
    let checked = 0;
    fc.assert(
      fc.property(fc.array(queryArb(), { minLength: 1, maxLength: 20 }), (searches) => {
        for (const search of searches) {
          const scope = { contracted_developer_ids: developerIds[search.agency], price_vector: search.priceVector };
          if (check(snapshot, scope, search.query, search.radius, 'sequence')) checked++;
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
    expect(checked).toBeGreaterThan(600);
    expect(snapshot.results.size).toBeGreaterThan(100);
  });

  it('near twins: a search changed in one thing is never answered with the cached original', () => {
    const snapshot = t.search.current();
    let twins = 0;
    fc.assert(
      fc.property(queryArb(), priceVectorArb, (search, otherVector) => {
        const scope = { contracted_developer_ids: developerIds[search.agency], price_vector: search.priceVector };
        if (!check(snapshot, scope, search.query, search.radius, 'original')) return;
        const variants: [string, KeyScope, Query, number | undefined][] = [
          ['other scope', { ...scope, contracted_developer_ids: developerIds[1 - search.agency] }, search.query, search.radius],
          ['other price vector', { ...scope, price_vector: otherVector }, search.query, search.radius],
          ['other radius', scope, search.query, search.radius === undefined ? RADIUS_M : undefined],
          ['other sort', scope, { ...search.query, sort: search.query.sort === '-price_from' ? 'size_from' : '-price_from' }, search.radius],
          ['other facets', scope, { ...search.query, facets: search.query.facets === 'bedrooms' ? 'area,statuses' : 'bedrooms' }, search.radius],
          ['other page', scope, { ...search.query, offset: String(Number(search.query.offset ?? 0) + 1), limit: '7' }, search.radius],
        ];
        for (const name of Object.keys(search.query)) {
          const { [name]: _left, ...without } = search.query;
          variants.push([`without ${name}`, scope, without, search.radius]);
        }
        for (const [label, variantScope, query, radius] of variants) if (check(snapshot, variantScope, query, radius, label)) twins++;
      }),
      { seed: SEED + 1, numRuns: 300 },
    );
    expect(twins).toBeGreaterThan(2000);
  });

  it('drawn shapes: a shape kept is never the answer for another (a vertex moved, a hole, the next star), parsed once per text', () => {
    const snapshot = t.search.current();
    const points = catalogue.projects.filter((p) => p.latitude !== null && p.longitude !== null);
    const star = (lng: number, lat: number, radius: number, vertices: number) =>
      Array.from({ length: vertices }, (_, k) => {
        const angle = (2 * Math.PI * k) / vertices;
        const r = k % 2 === 0 ? radius : radius * 0.6;
        return `${lng + r * Math.cos(angle)},${lat + r * Math.sin(angle)}`;
      }).join(',');
    let twins = 0;
    let nonEmpty = 0;
    fc.assert(
      fc.property(fc.nat(points.length - 1), fc.constantFrom(0.01, 0.03, 0.08), fc.constantFrom(8, 12, 50), fc.nat(1), priceVectorArb, (k, radius, vertices, agency, priceVector) => {
        const { longitude: lng, latitude: lat } = points[k];
        const scope = { contracted_developer_ids: developerIds[agency], price_vector: priceVector };
        const original = star(lng!, lat!, radius, vertices);
        const [x0, y0, ...rest] = original.split(',').map(Number);
        const shapes = [
          original,
          [x0 + radius / 2, y0, ...rest].join(','), // the first vertex moved outwards
          `${original};${star(lng!, lat!, radius / 4, 6)}`, // a hole around the centre
          star(lng! + radius / 2, lat!, radius, vertices), // the same star, moved
        ];
        for (const [n, polygon] of shapes.entries()) {
          // Each twin is asked after the original is kept, under the same other filters.
          if (check(snapshot, scope, { polygon }, undefined, n === 0 ? 'original' : `twin ${n}`)) twins++;
          if (findProjects(snapshot, scope, pageOf({ polygon }), { amenitiesRadiusM: undefined }).total > 0) nonEmpty++;
          expect(pageOf({ polygon }).filters.polygon, 'parsed once per text').toBe(pageOf({ polygon }).filters.polygon);
        }
      }),
      { seed: SEED + 2, numRuns: 60 },
    );
    expect(twins).toBe(240);
    expect(nonEmpty).toBeGreaterThan(60);
  });

  it('a search asked again is served from the cache, for any page', async () => {
    await t.refresh(); // an empty cache: the earlier tests filled this one to its bounds
    const snapshot = t.search.current();
    const scope = { contracted_developer_ids: developerIds[0], price_vector: 1.1 };
    const context = { amenitiesRadiusM: undefined };
    const search = { bedrooms: '1,2', facets: 'developer', limit: '3' };
    const empty = snapshot.results.size;
    findProjects(snapshot, scope, pageOf(search), context);
    expect(snapshot.results.size, 'asked once: only noted').toBe(empty);
    const first = findProjects(snapshot, scope, pageOf(search), context);
    expect(snapshot.results.size, 'asked twice: kept').toBe(empty + 1);
    const second = findProjects(snapshot, scope, pageOf({ ...search, offset: '3' }), context);
    expect(snapshot.results.size).toBe(empty + 1);
    expect(second.total).toBe(first.total);
    expect(second.facets).toBe(first.facets); // the very object kept: no second pass
    expect(first.total).toBeGreaterThan(6);
    expect(second.items).not.toBe(first.items);
  });

  it('is bounded: the least recently used searches go first', () => {
    const cache = new ResultCache(3, 1 << 20);
    // Each offered twice: a result is kept from its second sighting.
    for (let k = 0; k < 5; k++) for (let ask = 0; ask < 2; ask++) cache.offer(`search ${k}`, { matches: Matches.listed(new Int32Array(10), 10) });
    expect(cache.size).toBe(3);
    expect(cache.get('search 0')).toBeUndefined();
    expect(cache.get('search 4')).toBeDefined();
    // Searches seen once are bounded in bytes of keys too (a drawn shape's key is tens of kB).
    const huge = new ResultCache();
    for (let k = 0; k < 200; k++) huge.offer(`${k} ${'5'.repeat(40_000)}`, { matches: Matches.listed(new Int32Array(1), 1) });
    expect(huge.seenBytes).toBeGreaterThan(RESULT_CACHE_SEEN_BYTES / 2);
    expect(huge.seenBytes).toBeLessThanOrEqual(RESULT_CACHE_SEEN_BYTES);
    huge.offer('asked twice', { matches: Matches.listed(new Int32Array(1), 1) });
    huge.offer('asked twice', { matches: Matches.listed(new Int32Array(1), 1) });
    expect(huge.get('asked twice')).toBeDefined();
    const bytes = new ResultCache(100, 12_000); // each entry counts ~5 kB (4 kB of list, key, envelope allowance)
    for (let k = 0; k < 10; k++) for (let ask = 0; ask < 2; ask++) bytes.offer(`big ${k}`, { matches: Matches.listed(new Int32Array(1_000), 1_000) });
    expect(bytes.size).toBe(2);
  });

  it('a new snapshot starts with an empty cache', async () => {
    const before = t.search.current();
    for (let ask = 0; ask < 2; ask++) findProjects(before, { contracted_developer_ids: developerIds[0], price_vector: 0 }, pageOf({}), { amenitiesRadiusM: undefined });
    expect(before.results.size).toBeGreaterThan(0);
    await t.refresh();
    expect(t.search.current()).not.toBe(before);
    expect(t.search.current().results.size).toBe(0);
  });
});
