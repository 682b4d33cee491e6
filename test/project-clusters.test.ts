import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayCurrency } from '../src/domain/currency.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { keyPricing } from '../src/domain/pricing.js';
import { linkBuilder } from '../src/contract/links.js';
import { toProjectListItem } from '../src/contract/presenters/projects.js';
import { MAX_CLUSTERS } from '../src/contract/schemas/clusters.js';
import { ProjectsQuery } from '../src/contract/schemas/projects.js';
import type { KeyRecord } from '../src/queries/api-keys.js';
import { listProjects } from '../src/queries/projects-sql-reference.js';
import { clusterProjects } from '../src/search/clusters.js';
import { matchProjects } from '../src/search/find-projects.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { catalogueBundle, priceVectorArb, scenarioArb, type Query } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';
import { keysByPriceVector, type KeyWithRecord } from './helpers/sql-reference-body.js';

/*
 * GET /projects/clusters against a straightforward grid over the SQL reference's matches: the same
 * filters (random scenarios, random viewports, price vectors other than 0), every zoom; each project in
 * exactly one cluster, counts summing to GET /projects' total, centroids, bounds, lowest prices in the
 * key's prices, the named project of a cluster of one. The grid's formula is written out again here.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261126);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 150);

/** Web-mercator tile of a point at a zoom, written plainly (the XYZ scheme). */
function naiveTile(lng: number, lat: number, zoom: number): string {
  const n = 2 ** zoom;
  const rad = (lat * Math.PI) / 180;
  let x = Math.floor(((lng + 180) / 360) * n);
  let y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  x = Math.max(0, Math.min(n - 1, x));
  y = Math.max(0, Math.min(n - 1, y));
  return `${zoom}/${x}/${y}`;
}

interface Member {
  id: number;
  name: string;
  lat: number;
  lng: number;
  price: number | null;
  currency: string;
  /** The price's value in AED at the catalogue's rates; null without a price or a rate. */
  value: number | null;
  /** Its `match` as GET /projects?match=true shows it, and the value of match.price_from. */
  match?: { units: number; price_from: number | null; size_from: number | null };
  matchValue: number | null;
}

/** The lowest price of the members by value, ties by id; without any value, the first priced member with no rate. */
function cheapestOf(group: Member[], price: (m: Member) => number | null, value: (m: Member) => number | null): Member | undefined {
  const byValue = group.filter((m) => value(m) !== null).sort((a, b) => value(a)! - value(b)! || a.id - b.id);
  return byValue[0] ?? group.find((m) => price(m) !== null);
}

/** A cluster's `match`: the members' units summed, the lowest match price as the cluster's price_from is chosen, the smallest size. */
function naiveMatch(group: Member[]) {
  const cheapest = cheapestOf(group, (m) => m.match!.price_from, (m) => m.matchValue);
  const sizes = group.map((m) => m.match!.size_from).filter((size): size is number => size !== null);
  return {
    units: group.reduce((sum, m) => sum + m.match!.units, 0),
    price_from: cheapest?.match!.price_from ?? null,
    currency: cheapest ? cheapest.currency : null,
    size_from: sizes.length === 0 ? null : Math.min(...sizes),
  };
}

function naiveClusters(members: Member[], zoom: number, max: number) {
  for (let z = zoom; ; z--) {
    const groups = new Map<string, Member[]>();
    for (const member of [...members].sort((a, b) => a.id - b.id)) {
      const tile = naiveTile(member.lng, member.lat, z);
      groups.set(tile, [...(groups.get(tile) ?? []), member]);
    }
    if (groups.size <= max || z === 0) {
      const clusters = [...groups].map(([tile, group]) => {
        const cheapest = cheapestOf(group, (m) => m.price, (m) => m.value);
        return {
          tile,
          count: group.length,
          centroid: { lat: group.reduce((s, m) => s + m.lat, 0) / group.length, lng: group.reduce((s, m) => s + m.lng, 0) / group.length },
          bounds: {
            west: Math.min(...group.map((m) => m.lng)),
            south: Math.min(...group.map((m) => m.lat)),
            east: Math.max(...group.map((m) => m.lng)),
            north: Math.max(...group.map((m) => m.lat)),
          },
          price_from: cheapest?.price ?? null,
          currency: cheapest ? cheapest.currency : null,
          ids: group.map((m) => m.id),
          ...(group[0].match && { match: naiveMatch(group) }),
        };
      });
      clusters.sort((a, b) => b.count - a.count || (a.tile < b.tile ? -1 : 1));
      return { gridZoom: z, clusters };
    }
  }
}

describe.each(drivers)('GET /projects/clusters (%s)', (driver) => {
  let t: TestApp;
  let catalogue: ReferenceCatalogue;
  let keys: ((priceVector: number) => Promise<KeyWithRecord>) | undefined;
  const links = linkBuilder('https://cdn.example.test/media');

  let rates: Map<string, number>;
  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle());
    catalogue = await loadReferenceCatalogue(t.db);
    const { secret } = await keyFor(0);
    const listed = (await t.app.inject({ method: 'GET', url: '/currencies', headers: { 'x-api-key': secret } })).json().data.items as { currency: string; aed_per_unit: number }[];
    rates = new Map(listed.map((rate) => [rate.currency, rate.aed_per_unit]));
    expect(new Set(catalogue.projects.map((p) => p.currency)).size, 'a mixed catalogue').toBeGreaterThan(1);
  });
  afterAll(async () => {
    await t?.close();
  });

  const keyFor = (priceVector: number) => (keys ??= keysByPriceVector(t))(priceVector);

  /** Every match of the SQL reference, with coordinates from the catalogue and price_from as GET /projects shows it. */
  async function referenceMembers(query: Query, record: KeyRecord): Promise<Member[]> {
    const page = parseProjectsQuery(Value.Convert(ProjectsQuery, Value.Default(ProjectsQuery, { ...query })) as never);
    const scope = query.currency === undefined ? record : { ...record, display: displayCurrency(query.currency) };
    const { items } = await listProjects(t.db, scope, { ...page, limit: 100_000, offset: 0 }, { amenitiesRadiusM: undefined });
    const byId = new Map(catalogue.projects.map((p) => [p.id, p]));
    return items.map((row) => {
      const item = toProjectListItem(row, links);
      const project = byId.get(item.id)!;
      const rate = item.currency === 'AED' ? 1 : rates.get(item.currency);
      const valueOf = (price: number | null | undefined) => (price === null || price === undefined || rate === undefined ? null : price * rate);
      const { match } = item;
      return { id: item.id, name: item.name, lat: project.latitude!, lng: project.longitude!, price: item.price_from, currency: item.currency, value: valueOf(item.price_from), match, matchValue: valueOf(match?.price_from) };
    });
  }

  const viewportArb = fc.oneof(
    fc.constant('-180,-90,180,90'),
    fc.constant('54,24,56.5,26'),
    fc.tuple(fc.double({ min: 54.8, max: 55.6, noNaN: true }), fc.double({ min: 24.8, max: 25.4, noNaN: true }), fc.double({ min: 0.01, max: 0.6, noNaN: true })).map(
      ([w, s, size]) => `${w},${s},${w + size},${s + size}`,
    ),
  );

  it('random filters, viewports, zooms and price vectors: the clusters of a plain grid over the SQL reference', async () => {
    let multi = 0;
    let single = 0;
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb(catalogue), fc.boolean(), viewportArb, fc.integer({ min: 0, max: 22 }), priceVectorArb, fc.option(fc.constantFrom('AED', 'USD', 'EUR'), { nil: undefined }), fc.boolean(), async (scenario, withFilters, bbox, zoom, priceVector, currency, withMatch) => {
        const { limit: _l, offset: _o, sort: _s, facets: _f, ...filters } = withFilters ? scenario.query : ({} as Query);
        const query: Query = { ...filters, bbox, zoom: String(zoom) };
        if (currency !== undefined && query.currency === undefined) query.currency = currency;
        if (withMatch) query.match = 'true';
        const { secret, record } = await keyFor(priceVector);
        const url = `/projects/clusters?${new URLSearchParams(query)}`;
        const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        const data = res.json().data as { total: number; zoom: number; grid_zoom: number; clusters: { tile: string; count: number; centroid: { lat: number; lng: number }; bounds: Record<string, number>; price_from: number | null; currency: string | null; project: { id: number; name: string } | null; match?: unknown }[] };
        const { zoom: _z, ...listQuery } = query;
        const list = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams({ ...listQuery, limit: '1' })}`, headers: { 'x-api-key': secret } });
        expect(data.total, url).toBe(list.json().data.total);
        expect(data.clusters.reduce((sum, c) => sum + c.count, 0), url).toBe(data.total);

        const expected = naiveClusters(await referenceMembers(listQuery, record), zoom, MAX_CLUSTERS);
        expect(data.zoom).toBe(zoom);
        expect(data.grid_zoom, url).toBe(expected.gridZoom);
        expect(data.clusters.map((c) => [c.tile, c.count, c.price_from, c.currency, c.bounds]), url).toEqual(expected.clusters.map((c) => [c.tile, c.count, c.price_from, c.currency, c.bounds]));
        // match=true: each cluster's `match` over its members' (GET /projects?match=true, from the SQL reference); none without it.
        expect(data.clusters.map((c) => c.match), url).toEqual(expected.clusters.map((c) => c.match));
        if (withMatch && data.clusters.length > 0) matched++;
        for (const [k, cluster] of data.clusters.entries()) {
          expect(cluster.centroid.lat).toBeCloseTo(expected.clusters[k].centroid.lat, 9);
          expect(cluster.centroid.lng).toBeCloseTo(expected.clusters[k].centroid.lng, 9);
          const members = expected.clusters[k].ids;
          expect(cluster.project?.id ?? null, url).toBe(members.length === 1 ? members[0] : null);
          if (members.length === 1) single++;
          else multi++;
        }
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    expect(multi, 'clusters of several projects were compared').toBeGreaterThan(NUM_RUNS / 5);
    expect(single, 'clusters of one were compared').toBeGreaterThan(NUM_RUNS / 5);
    expect(matched, 'clusters with match=true were compared').toBeGreaterThan(NUM_RUNS / 5);
  }, 600_000);

  it('asked again, a search\u2019s clusters come from its kept result, by zoom and match: each view as the plain grid says', async () => {
    const { secret, record } = await keyFor(3.5);
    const search = { bbox: '54,24,56.5,26', bedrooms: '2' };
    const members = await referenceMembers(search, record);
    // The first asks make the search kept (from its second sighting on); the later ones are answered from it.
    const views = [[10, false], [10, false], [10, false], [12, false], [10, true], [12, true], [4, false], [10, false]] as const;
    for (const [zoom, match] of views) {
      const query = { ...search, zoom: String(zoom), ...(match && { match: 'true' }) };
      const res = await t.app.inject({ method: 'GET', url: `/projects/clusters?${new URLSearchParams(query)}`, headers: { 'x-api-key': secret } });
      const data = res.json().data as { grid_zoom: number; clusters: { tile: string; count: number; match?: unknown }[] };
      const expected = naiveClusters(match ? await referenceMembers({ ...search, match: 'true' }, record) : members, zoom, MAX_CLUSTERS);
      expect(data.grid_zoom, `zoom ${zoom}, match ${match}`).toBe(expected.gridZoom);
      expect(data.clusters.map((c) => [c.tile, c.count, c.match]), `zoom ${zoom}, match ${match}`).toEqual(expected.clusters.map((c) => [c.tile, c.count, c.match]));
    }
  });

  it('coarsens the grid a level at a time until the clusters fit (against the plain grid with a small limit)', async () => {
    const { record } = await keyFor(-7.3);
    const members = await referenceMembers({ bbox: '-180,-90,180,90' }, record);
    const snapshot = await t.search.latest();
    const page = parseProjectsQuery({ bbox: '-180,-90,180,90' });
    const found = matchProjects(snapshot, record, page, { amenitiesRadiusM: undefined });
    for (const max of [1, 2, 3, 5, 8, 13]) {
      for (const zoom of [22, 14, 11, 3]) {
        const got = clusterProjects(snapshot, found.matches, zoom, max, keyPricing(record.price_vector));
        const expected = naiveClusters(members, zoom, max);
        expect(got.clusters.length).toBeLessThanOrEqual(max);
        expect(got.gridZoom, `max ${max}, zoom ${zoom}`).toBe(expected.gridZoom);
        expect(got.clusters.map((c) => [c.tile, c.count, c.price_from, c.currency])).toEqual(expected.clusters.map((c) => [c.tile, c.count, c.price_from, c.currency]));
      }
    }
    expect(clusterProjects(snapshot, found.matches, 22, 1, keyPricing(0)).gridZoom, 'one cluster for the whole catalogue').toBeLessThan(10);
  });

  it('a viewport is required, zoom 0 to 22: 400s naming the parameter; another agency\u2019s view and a bad key as GET /projects', async () => {
    const { secret } = await keyFor(0);
    const get = (q: string, headers: Record<string, string> = { 'x-api-key': secret }) => t.app.inject({ method: 'GET', url: `/projects/clusters?${q}`, headers });
    for (const [q, message] of [
      ['zoom=5', /bbox/],
      ['bbox=54,24,56,26', /zoom/],
      ['bbox=54,24,56,26&zoom=23', /^zoom/],
      ['bbox=54,24,56,26&zoom=-1', /^zoom/],
      ['bbox=54,24,56,26&zoom=2.5', /^zoom/],
      ['bbox=56,24,54,26&zoom=5', /^bbox: west must not be greater than east/],
      ['bbox=54,24,56,26&zoom=5&bedrooms=9', /^bedrooms/],
      ['bbox=54,24,56,26&zoom=5&limit=5', /limit/],
    ] as const) {
      const res = await get(q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().message, q).toMatch(message);
    }
    expect((await get('bbox=54,24,56,26&zoom=5', {})).statusCode).toBe(401);
    const res = await get('bbox=-180,-90,180,90&zoom=0');
    expect(res.json().data.clusters).toHaveLength(1);
  });
});
