import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inBox, inShape } from '../src/domain/geo.js';
import { FilterError, parsePolygon } from '../src/domain/project-filters.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { linkBuilder } from '../src/contract/links.js';
import { ListProjectsQuery } from '../src/contract/schemas/projects.js';
import type { KeyRecord } from '../src/queries/api-keys.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { catalogueBundle, priceVectorArb, scenarioArb, type Query } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';
import { keysByPriceVector, sqlReferenceBodies, type KeyWithRecord, type SqlReferenceBodies } from './helpers/sql-reference-body.js';

/*
 * The map filters (`bbox`, `polygon`) of GET /projects from the in-memory search against the SQL
 * reference (src/queries/projects-sql-reference.ts), byte for byte: random boxes and shapes (convex,
 * concave star-shaped, axis-aligned rectangles; polygons with holes; several polygons), with vertices and edges laid exactly on projects'
 * coordinates half the time, ANDed with the reference scenarios' random filters, price vectors other
 * than 0 and every sort. A third opinion, the JS rule of src/domain/geo.ts applied to the catalogue,
 * checks that the shapes chosen do put projects on their boundaries.
 */

/** The one-line polygon as the GeoJSON geometry a map drawing tool would send (MultiPolygon when several). */
function geoJson(line: string): { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] } {
  const polygons = line.split('|').map((polygon) =>
    polygon.split(';').map((ring) => {
      const values = ring.split(',').map(Number);
      return Array.from({ length: values.length / 2 }, (_, k) => [values[2 * k], values[2 * k + 1]]);
    }),
  );
  return polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0] } : { type: 'MultiPolygon', coordinates: polygons };
}

/** The query as the JSON body of the POST form: numbers and booleans typed as the schema declares, the shape as GeoJSON. */
function jsonBody(query: Query, polygon: string): Record<string, unknown> {
  return { ...(Value.Convert(ListProjectsQuery, { ...query }) as Record<string, unknown>), polygon: geoJson(polygon) };
}

const SEED = Number(process.env.DIFF_SEED ?? 20261125);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 250);
/** Facets whose own filter has the facet's name, with the values it can take: a unit-level pair and a project-level one. */
const GEO_FACETS = [
  { name: 'bedrooms', values: [0, 1, 2, 3, 4, 5] },
  { name: 'statuses', values: [1, 2, 3, 4, 5] },
  { name: 'is_resale', values: [false, true] },
] as const;
const STATIC_BASE = 'https://cdn.example.test/media';

describe.each(drivers)('GET /projects with bbox and polygon agrees with the SQL reference (%s)', (driver) => {
  let t: TestApp;
  let reference: SqlReferenceBodies;
  let catalogue: ReferenceCatalogue;
  let points: { lng: number; lat: number }[];
  let keyFor: (priceVector: number) => Promise<KeyWithRecord>;

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle(), { STATIC_BASE_URL: STATIC_BASE });
    reference = await sqlReferenceBodies(t, linkBuilder(STATIC_BASE));
    keyFor = keysByPriceVector(t);
    catalogue = await loadReferenceCatalogue(t.db);
    points = catalogue.projects.filter((p) => p.latitude !== null && p.longitude !== null).map((p) => ({ lng: p.longitude!, lat: p.latitude! }));
  });
  afterAll(async () => {
    await reference?.close();
    await t?.close();
  });

  const sqlBody = (query: Query, record: KeyRecord) => reference.body(query, record);

  /** A coordinate: a project's own (to land on it exactly), or anywhere around the catalogue. */
  const coordinate = (axis: 'lng' | 'lat') =>
    fc.oneof(
      fc.nat().map((k) => points[k % points.length][axis]),
      fc.nat().map((k) => points[k % points.length][axis] + (k % 7) * 0.001 - 0.003),
      fc.double({ min: axis === 'lng' ? 54 : 24, max: axis === 'lng' ? 56.5 : 26, noNaN: true }),
    );
  const bboxArb = fc.tuple(coordinate('lng'), coordinate('lat'), coordinate('lng'), coordinate('lat')).map(([x1, y1, x2, y2]) => {
    const [west, east] = x1 <= x2 ? [x1, x2] : [x2, x1];
    const [south, north] = y1 <= y2 ? [y1, y2] : [y2, y1];
    return `${west},${south},${east},${north}`;
  });
  /*
   * Star-shaped rings around a centre (a project's location or anywhere): vertices at increasing angles,
   * convex when every radius is the same, concave otherwise; a vertex may be moved onto a project.
   * Rectangles through projects' coordinates put projects on horizontal and vertical edges.
   */
  const starArb = fc
    .record({
      centreLng: coordinate('lng'),
      centreLat: coordinate('lat'),
      radius: fc.double({ min: 0.005, max: 0.6, noNaN: true }),
      convex: fc.boolean(),
      // Distinct whole degrees (fast-check likes repeating extremes, which would fold the ring).
      spokes: fc.uniqueArray(fc.record({ degree: fc.integer({ min: 0, max: 359 }), percent: fc.integer({ min: 20, max: 100 }) }), { selector: (spoke) => spoke.degree, minLength: 3, maxLength: 40 }),
      onProject: fc.option(fc.nat(), { nil: undefined }),
    })
    .map(({ centreLng, centreLat, radius, convex, spokes, onProject }) => {
      const sorted = [...spokes].sort((a, b) => a.degree - b.degree);
      const vertices = sorted.map(({ degree, percent }) => {
        const [angle, scale] = [(degree * Math.PI) / 180, convex ? 1 : percent / 100];
        return [centreLng + radius * scale * Math.cos(angle), centreLat + radius * scale * Math.sin(angle)];
      });
      if (onProject !== undefined) {
        // The vertex nearest a project moves onto it (the ring may then self-intersect: a 400, counted apart).
        const target = points[onProject % points.length];
        let nearest = 0;
        for (let k = 1; k < vertices.length; k++) {
          if (Math.hypot(vertices[k][0] - target.lng, vertices[k][1] - target.lat) < Math.hypot(vertices[nearest][0] - target.lng, vertices[nearest][1] - target.lat)) nearest = k;
        }
        vertices[nearest] = [target.lng, target.lat];
      }
      return vertices.map(([x, y]) => `${x},${y}`).join(',');
    });
  const rectangleArb = bboxArb.map((box) => {
    const [west, south, east, north] = box.split(',').map(Number);
    // A rectangle needs an area; a box may be a line.
    const [e, n] = [east > west ? east : west + 0.01, north > south ? north : south + 0.01];
    return [west, south, e, south, e, n, west, n].join(',');
  });
  // A ring with 1 or 2 holes: smaller stars around projects (inside the outer ring, across its edge or
  // outside it: each is a case of the rule), and 2 or 3 polygons, some with holes, possibly overlapping.
  const holeArb = fc
    .record({ at: fc.nat(), ring: starArb })
    .map(({ at, ring }) => {
      const { lng, lat } = points[at % points.length];
      const values = ring.split(',').map(Number);
      // The star shrunk to a tenth and moved so that its first vertex sits near the project.
      const [x0, y0] = [values[0], values[1]];
      return values.map((v, k) => (k % 2 === 0 ? lng + (v - x0) * 0.1 : lat + (v - y0) * 0.1)).join(',');
    });
  const withHolesArb = fc.tuple(fc.oneof(starArb, rectangleArb), fc.array(holeArb, { minLength: 1, maxLength: 2 })).map(([outer, holes]) => [outer, ...holes].join(';'));
  const multiArb = fc.array(fc.oneof(starArb, rectangleArb, withHolesArb), { minLength: 2, maxLength: 3 }).map((polygons) => polygons.join('|'));
  const polygonArb = fc.oneof(starArb, rectangleArb, withHolesArb, multiArb);

  it('random bboxes and polygons, ANDed with random filters, price vectors and sorts: same body as the SQL reference', async () => {
    let nonEmpty = 0;
    let rejected = 0;
    let withPolygon = 0;
    let facetsChecked = 0;
    await fc.assert(
      fc.asyncProperty(
        scenarioArb(catalogue),
        fc.option(bboxArb, { nil: undefined }),
        fc.option(polygonArb, { nil: undefined }),
        priceVectorArb,
        fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 2, arbitrary: fc.constant(false) }),
        fc.constantFrom('name', '-price_from', 'size_from', '-handover_date', 'newest'),
        fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...GEO_FACETS) }),
        async (scenario, bbox, polygon, priceVector, otherFilters, sort, facet) => {
          // Either the scenario's filters too, or the shape alone (so that matches are many).
          const query: Query = { ...(otherFilters ? scenario.query : {}), limit: '100', sort };
          if (bbox !== undefined) query.bbox = bbox;
          if (polygon !== undefined) query.polygon = polygon;
          if (bbox === undefined && polygon === undefined) query.bbox = '54,24,56.5,26';
          const { secret, record } = await keyFor(priceVector);
          if (facet !== null) {
            // With facets the search takes another path (one pass counts and matches): the same
            // items, and each value's count is the SQL total with the facet's own filter set to it.
            const faceted = { ...query, facets: facet.name };
            const res = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams(faceted)}`, headers: { 'x-api-key': secret } });
            if (res.statusCode === 400) {
              // As without facets: only a polygon the parser itself refuses.
              expect(() => parsePolygon(polygon!), `${new URLSearchParams(faceted)}: ${res.body}`).toThrow(FilterError);
              return;
            }
            const { facets, ...data } = res.json().data;
            const expected = JSON.parse(await sqlBody(query, record)).data;
            const context = `${new URLSearchParams(faceted)} (price vector ${priceVector})`;
            expect(data, context).toEqual(expected);
            const counts: { value: number | boolean; count: number }[] = [];
            for (const value of facet.values) {
              const count = JSON.parse(await sqlBody({ ...query, [facet.name]: String(value), limit: '1' }, record)).data.total;
              if (count > 0) counts.push({ value, count });
            }
            expect(facets[facet.name].map(({ value, count }: { value: number | boolean; count: number }) => ({ value, count })), context).toEqual(counts);
            facetsChecked++;
            return;
          }
          const url = `/projects?${new URLSearchParams(query)}`;
          const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
          if (res.statusCode === 400 && polygon !== undefined) {
            const posted = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': secret }, payload: jsonBody(query, polygon) });
            expect(posted.statusCode, `POST ${url}`).toBe(400);
            expect(posted.json().message, `POST ${url}`).toBe(res.json().message);
          }
          if (res.statusCode === 400) {
            // Only a polygon the parser itself refuses (a vertex moved onto a project may fold the ring).
            expect(() => parsePolygon(polygon!), `${url}: ${res.body}`).toThrow(FilterError);
            expect(res.json().message, url).toMatch(/^polygon/);
            rejected++;
            return;
          }
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          expect(res.body, `${url} (price vector ${priceVector})`).toBe(await sqlBody(query, record));
          if (polygon !== undefined) {
            // The POST form, the shape as a GeoJSON geometry: the same answer.
            const posted = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': secret }, payload: jsonBody(query, polygon) });
            expect(posted.body, `POST ${url}`).toBe(res.body);
          }
          if (res.json().data.total > 0) nonEmpty++;
          if (polygon !== undefined) withPolygon++;
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    expect(nonEmpty, 'most shapes match something').toBeGreaterThan(NUM_RUNS / 4);
    expect(withPolygon).toBeGreaterThan(NUM_RUNS / 4);
    expect(facetsChecked).toBeGreaterThan(NUM_RUNS / 8);
    expect(rejected, 'few drawn rings are refused').toBeLessThan(NUM_RUNS / 10);
  }, 600_000);

  it('projects exactly on a box edge or corner, on a polygon vertex or edge, match in both (and the shapes do touch them)', async () => {
    const { secret, record } = await keyFor(12.5);
    let onBoundary = 0;
    for (const [k, point] of points.slice(0, 12).entries()) {
      const { lng, lat } = point;
      const d = 0.01 * (1 + (k % 3));
      const shapes: Query[] = [
        { bbox: `${lng},${lat},${lng + d},${lat + d}` },
        { bbox: `${lng - d},${lat - d},${lng},${lat}` },
        { bbox: `${lng - d},${lat},${lng + d},${lat + d}` },
        { bbox: `${lng},${lat},${lng},${lat}` },
        { polygon: `${lng},${lat},${lng + d},${lat},${lng},${lat + d}` },
        { polygon: `${lng - d},${lat},${lng + d},${lat},${lng + d},${lat + d},${lng - d},${lat + d}` },
        { polygon: `${lng - d},${lat - d},${lng},${lat - d},${lng},${lat + d},${lng - d},${lat + d}` },
        // A slanted edge through the project: from (lng - d, lat - d) to (lng + d, lat + d).
        { polygon: `${lng - d},${lat - d},${lng + d},${lat + d},${lng + d},${lat - d}` },
        // Concave: the project is the reflex vertex of an arrowhead.
        { polygon: `${lng - d},${lat - d},${lng},${lat},${lng + d},${lat - d},${lng},${lat + d}` },
        // On a hole's edge (a hole's boundary belongs to the shape), and on a second polygon's vertex.
        { polygon: `${lng - 2 * d},${lat - 2 * d},${lng + 2 * d},${lat - 2 * d},${lng + 2 * d},${lat + 2 * d},${lng - 2 * d},${lat + 2 * d};${lng},${lat - d},${lng + d},${lat - d},${lng + d},${lat + d},${lng},${lat + d}` },
        { polygon: `${lng + 5 * d},${lat},${lng + 6 * d},${lat},${lng + 6 * d},${lat + d}|${lng},${lat},${lng + d},${lat},${lng},${lat + d}` },
      ];
      for (const shape of shapes) {
        const query: Query = { ...shape, limit: '100' };
        const res = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams(query)}`, headers: { 'x-api-key': secret } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.body, JSON.stringify(query)).toBe(await sqlBody(query, record));
        const page = parseProjectsQuery(shape);
        const inside = page.filters.bbox ? inBox(lng, lat, page.filters.bbox) : inShape(lng, lat, page.filters.polygon!);
        if (shape.bbox !== undefined || !shape.polygon!.startsWith(`${lng - d},${lat - d},${lng + d}`)) expect(inside, JSON.stringify(shape)).toBe(true);
        if (inside) onBoundary++;
      }
    }
    expect(onBoundary).toBeGreaterThan(110);
  }, 300_000);

  it('the POST form: the one-line polygon or GeoJSON, every other parameter as in the query; bad shapes and bodies are 400s', async () => {
    const { secret } = await keyFor(7);
    const { lng, lat } = points[0];
    const ring = [[lng - 0.2, lat - 0.2], [lng + 0.2, lat - 0.2], [lng + 0.2, lat + 0.2], [lng - 0.2, lat + 0.2]];
    const line = ring.map(([x, y]) => `${x},${y}`).join(',');
    const get = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams({ polygon: line, bedrooms: '1,2', sort: '-price_from', facets: 'bedrooms', limit: '5' })}`, headers: { 'x-api-key': secret } });
    expect(get.statusCode).toBe(200);
    expect(get.json().data.total).toBeGreaterThan(0);
    for (const polygon of [line, { type: 'Polygon', coordinates: [[...ring, ring[0]]] }, { type: 'MultiPolygon', coordinates: [[ring.map(([x, y]) => [x, y, 12])]] }]) {
      const posted = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': secret }, payload: { polygon, bedrooms: '1,2', sort: '-price_from', facets: 'bedrooms', limit: 5 } });
      expect(posted.statusCode, posted.body).toBe(200);
      expect(posted.body, JSON.stringify(polygon)).toBe(get.body);
    }
    const bad = async (payload: unknown) => {
      const res = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
      expect(res.statusCode, res.body).toBe(400);
      return res.json() as { status: string; message: string };
    };
    expect((await bad({ polygon: { type: 'Polygon', coordinates: [[[0, 0], [10, 10], [10, 0], [0, 10]]] } })).message).toBe('polygon must not intersect itself: edges 1 and 3 cross or touch');
    expect((await bad({ polygon: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10]], [[1, 1], [200, 1], [2, 2]]] } })).message).toContain('hole 1: vertex 2\u2019s longitude 200');
    const shapeMessage = 'polygon must be the one-line form lng,lat,... or a GeoJSON Polygon or MultiPolygon whose rings are lists of at least 3 positions [lng, lat]';
    expect((await bad({ polygon: { type: 'Point', coordinates: [55, 25] } })).message).toBe(shapeMessage);
    expect((await bad({ polygon: { type: 'Polygon', coordinates: [[[0, 0], [1, 1]]] } })).message).toBe(shapeMessage);
    expect((await bad({ polygon: 5 })).message).toBe(shapeMessage);
    expect((await bad({ bedrooms: '9' })).message).toMatch(/^bedrooms/);
    expect((await bad({ unknown_parameter: 1 })).message).toMatch(/unknown_parameter/);
    const many = Array.from({ length: 1001 }, (_, k) => [55 + 0.1 * Math.cos(k / 160), 25 + 0.1 * Math.sin(k / 160)]);
    expect((await bad({ polygon: { type: 'Polygon', coordinates: [many] } })).message).toBe('polygon has 1001 vertices; at most 1000 are allowed');
    expect((await bad({ polygon: 'x'.repeat(70 * 1024) })).message).toBe('request body must not exceed 64 KiB');
    const noKey = await t.app.inject({ method: 'POST', url: '/projects/search', payload: { polygon: line } });
    expect(noKey.statusCode).toBe(401);
  });

  it('a bad bbox or polygon is a 400 in the error envelope naming the parameter; nothing else changes', async () => {
    const { secret } = await keyFor(0);
    const cases: [string, string][] = [
      ['bbox=55.2,25.1,55.1,25.2', 'bbox: west must not be greater than east'],
      ['bbox=55.1,25.1,55.2', 'bbox must be four comma-separated numbers'],
      ['bbox=55.1,25.1,55.2,95', 'bbox: the north-east corner\u2019s latitude 95 is not between -90 and 90'],
      ['bbox=a,b,c,d', 'bbox must be four comma-separated numbers'],
      ['polygon=0,0,10,10,10,0,0,10', 'polygon must not intersect itself: edges 1 and 3 cross or touch'],
      [`polygon=${Array.from({ length: 1001 }, (_, k) => `${(55 + 0.1 * Math.cos(k / 160)).toFixed(4)},${(25 + 0.1 * Math.sin(k / 160)).toFixed(4)}`).join(',')}`, 'polygon has 1001 vertices; at most 1000'],
    ];
    for (const [query, message] of cases) {
      const res = await t.app.inject({ method: 'GET', url: `/projects?${query}&bedrooms=2`, headers: { 'x-api-key': secret } });
      expect(res.statusCode, query.slice(0, 80)).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: expect.stringContaining(message) });
    }
  });
});
