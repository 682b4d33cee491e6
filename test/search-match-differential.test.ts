import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID } from '../src/demo/demo-bundle.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { linkBuilder } from '../src/contract/links.js';
import { ListProjectsQuery, ProjectsQuery } from '../src/contract/schemas/projects.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { catalogueBundle, scenarioArb, type Query } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, referenceProjects, type ReferenceCatalogue } from './helpers/projects-reference.js';
import { keysByPriceVector, sqlReferenceBodies, type KeyWithRecord, type SqlReferenceBodies } from './helpers/sql-reference-body.js';

/*
 * `match=true` of GET /projects (and its POST form) from the in-memory search against the SQL reference
 * (src/queries/projects-sql-reference.ts computes `match` with the unit EXISTS's own predicates), byte
 * for byte, for random filters (unit-level ones half the time more), sorts, pages, price vectors and
 * `currency=`; against the naive reference (helpers/projects-reference.ts) figure by figure; and the
 * answer without `match=true` is the one with it less its `match` objects.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261127);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 400);
const STATIC_BASE = 'https://cdn.example.test/media';

/** The scenarios' catalogue with a project in a currency of 0 decimals and one in a currency without a rate. */
function matchBundle() {
  const bundle = catalogueBundle();
  bundle.projects.find((record) => record.id === 13)!.currency = 'JPY';
  bundle.projects.find((record) => record.id === 21)!.currency = 'XYZ';
  bundle.currency_rates.push({ currency: 'JPY', aed_per_unit: 0.02391, as_of: '2026-11-20T12:00:00Z' });
  return bundle;
}

const PRICE_BOUNDS = ['price_min', 'price_max', 'price_per_m2_min', 'price_per_m2_max', 'price_per_ft2_min', 'price_per_ft2_max'];
const DISPLAY_CURRENCIES = ['AED', 'USD', 'EUR', 'JPY'];
const SORTS = ['price_from', '-price_from', 'size_from', 'newest', '-name'];
/** The `match` objects of an answer's items, cut from its text. */
const MATCH_OBJECT = /,"match":\{[^{}]*\}/g;

describe.each(drivers)('match=true from memory agrees with the SQL reference (%s)', (driver) => {
  let t: TestApp;
  let reference: SqlReferenceBodies;
  let catalogue: ReferenceCatalogue;
  let keyFor: (priceVector: number) => Promise<KeyWithRecord>;

  beforeAll(async () => {
    t = await createTestApp(driver, matchBundle(), { STATIC_BASE_URL: STATIC_BASE });
    reference = await sqlReferenceBodies(t, linkBuilder(STATIC_BASE));
    catalogue = await loadReferenceCatalogue(t.db);
    keyFor = keysByPriceVector(t);
  });
  afterAll(async () => {
    await reference?.close();
    await t?.close();
  });

  const aedPerUnit = (code: string) => {
    const rate = code === 'AED' ? { n: 1n, d: 1n } : catalogue.rates.get(code)!;
    return Number(rate.n) / Number(rate.d);
  };

  it('random filters, sorts, pages, price vectors and currency=: the SQL reference\u2019s body, the naive reference\u2019s figures, and without match= the same less `match`', async () => {
    let unitLevel = 0;
    let narrowed = 0;
    let unpricedMatch = 0;
    let converted = 0;
    let posted = 0;
    await fc.assert(
      fc.asyncProperty(
        scenarioArb(catalogue),
        fc.record({
          bedrooms: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
          sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
          currency: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...DISPLAY_CURRENCIES) }),
          post: fc.boolean(),
        }),
        async (scenario, extra) => {
          const query: Query = { ...scenario.query, match: 'true' };
          // More unit-level filters than the scenarios draw: what `match` is about.
          if (extra.bedrooms !== undefined && query.bedrooms === undefined) query.bedrooms = String(extra.bedrooms);
          if (extra.sort !== undefined) query.sort = extra.sort;
          if (extra.currency !== undefined) {
            query.currency = extra.currency;
            // Bounds drawn from AED prices, taken to the asked currency (as search-differential.test.ts does).
            for (const name of PRICE_BOUNDS) if (query[name] !== undefined) query[name] = String(Number((Number(query[name]) / aedPerUnit(extra.currency)).toFixed(3)));
            converted++;
          }
          const { secret, record } = await keyFor(scenario.priceVector);
          const url = `/projects?${new URLSearchParams(query)}`;
          const context = `${url} (price vector ${scenario.priceVector})`;
          const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
          expect(res.statusCode, `${context}: ${res.body}`).toBe(200);
          expect(res.body, context).toBe(await reference.body(query, record));

          const items = res.json().data.items as { id: number; price_from: number | null; match: { units: number; price_from: number | null; size_from: number | null } }[];
          if (extra.sort === undefined) {
            const naive = referenceProjects(catalogue, query, { agencyId: DEMO_AGENCY_ID, priceVector: String(scenario.priceVector) }, undefined);
            expect(items.map(({ id, price_from, match }) => ({ id, price_from, match })), `${context}: the naive reference`).toEqual(naive.items);
          }
          const hasUnitLevel = parseProjectsQuery(Value.Convert(ProjectsQuery, { ...query }) as never).filters.units !== undefined;
          if (hasUnitLevel && items.length > 0) {
            unitLevel++;
            for (const item of items) expect(item.match.units, `${context}: a match has its unit`).toBeGreaterThan(0);
            if (items.some((item) => item.match.price_from !== item.price_from)) narrowed++;
            if (items.some((item) => item.match.price_from === null)) unpricedMatch++;
          }

          const { match: _match, ...without } = query;
          const plain = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams(without)}`, headers: { 'x-api-key': secret } });
          expect(res.body.replace(MATCH_OBJECT, ''), `${context}: less match, the answer without it`).toBe(plain.body);
          expect(plain.body, context).not.toContain('"match"');

          if (extra.post) {
            posted++;
            const body = Value.Convert(ListProjectsQuery, { ...query }) as Record<string, unknown>;
            const viaPost = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': secret }, payload: body });
            expect(viaPost.body, `${context}: POST /projects/search`).toBe(res.body);
          }
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // The comparisons must cover what `match` is for, or they say little.
    expect(unitLevel, 'pages with unit-level filters').toBeGreaterThan(NUM_RUNS / 4);
    expect(narrowed, 'pages where a match price differs from price_from').toBeGreaterThan(NUM_RUNS / 10);
    expect(unpricedMatch, 'pages with a match of unpriced units only').toBeGreaterThan(0);
    expect(converted).toBeGreaterThan(NUM_RUNS / 8);
    expect(posted).toBeGreaterThan(NUM_RUNS / 4);
  }, 600_000);
});
