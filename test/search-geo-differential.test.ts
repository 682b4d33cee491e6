import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { inBox, pointInPolygon } from '../src/domain/geo.js';
import { FilterError, parsePolygon } from '../src/domain/project-filters.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { linkBuilder } from '../src/contract/links.js';
import { toProjectListItem } from '../src/contract/presenters/projects.js';
import { ok, Success } from '../src/contract/schemas/envelope.js';
import { ProjectsPageSchema, ProjectsQuery } from '../src/contract/schemas/projects.js';
import { findActiveKeyByHash, type KeyRecord } from '../src/queries/api-keys.js';
import { listProjects } from '../src/queries/projects-sql-reference.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { catalogueBundle, priceVectorArb, scenarioArb, type Query } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';

/*
 * The map filters (`bbox`, `polygon`) of GET /projects from the in-memory search against the SQL
 * reference (src/queries/projects-sql-reference.ts), byte for byte: random boxes and polygons (convex,
 * concave star-shaped, axis-aligned rectangles), with vertices and edges laid exactly on projects'
 * coordinates half the time, ANDed with the reference scenarios' random filters, price vectors other
 * than 0 and every sort. A third opinion, the JS rule of src/domain/geo.ts applied to the catalogue,
 * checks that the shapes chosen do put projects on their boundaries.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261125);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 250);
const STATIC_BASE = 'https://cdn.example.test/media';

describe.each(drivers)('GET /projects with bbox and polygon agrees with the SQL reference (%s)', (driver) => {
  let t: TestApp;
  let serializer: FastifyInstance;
  let serializing: unknown;
  let catalogue: ReferenceCatalogue;
  let points: { lng: number; lat: number }[];
  const keys = new Map<number, Promise<{ secret: string; record: KeyRecord }>>();
  const links = linkBuilder(STATIC_BASE);

  beforeAll(async () => {
    t = await createTestApp(driver, catalogueBundle(), { STATIC_BASE_URL: STATIC_BASE });
    serializer = Fastify();
    serializer.get('/', { schema: { response: { 200: Success(ProjectsPageSchema, 'the route schema') } } }, async () => serializing);
    await serializer.ready();
    catalogue = await loadReferenceCatalogue(t.db);
    points = catalogue.projects.filter((p) => p.latitude !== null && p.longitude !== null).map((p) => ({ lng: p.longitude!, lat: p.latitude! }));
  });
  afterAll(async () => {
    await serializer?.close();
    await t?.close();
  });

  const keyFor = (priceVector: number) => {
    let key = keys.get(priceVector);
    if (!key) {
      key = t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector }).then(async (secret) => ({
        secret,
        record: (await findActiveKeyByHash(t.db, hashApiKey(secret)))!,
      }));
      keys.set(priceVector, key);
    }
    return key;
  };

  async function sqlBody(query: Query, record: KeyRecord): Promise<string> {
    const page = parseProjectsQuery(Value.Convert(ProjectsQuery, Value.Default(ProjectsQuery, { ...query })) as never);
    const { total, items } = await listProjects(t.db, record, page, { amenitiesRadiusM: undefined });
    serializing = ok({ total, items: items.map((row) => toProjectListItem(row, links)) });
    return (await serializer.inject({ method: 'GET', url: '/' })).body;
  }

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
  const polygonArb = fc.oneof(starArb, rectangleArb);

  it('random bboxes and polygons, ANDed with random filters, price vectors and sorts: same body as the SQL reference', async () => {
    let nonEmpty = 0;
    let rejected = 0;
    let withPolygon = 0;
    await fc.assert(
      fc.asyncProperty(
        scenarioArb(catalogue),
        fc.option(bboxArb, { nil: undefined }),
        fc.option(polygonArb, { nil: undefined }),
        priceVectorArb,
        fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 2, arbitrary: fc.constant(false) }),
        fc.constantFrom('name', '-price_from', 'size_from', '-handover_date', 'newest'),
        async (scenario, bbox, polygon, priceVector, otherFilters, sort) => {
          // Either the scenario's filters too, or the shape alone (so that matches are many).
          const query: Query = { ...(otherFilters ? scenario.query : {}), limit: '100', sort };
          if (bbox !== undefined) query.bbox = bbox;
          if (polygon !== undefined) query.polygon = polygon;
          if (bbox === undefined && polygon === undefined) query.bbox = '54,24,56.5,26';
          const { secret, record } = await keyFor(priceVector);
          const url = `/projects?${new URLSearchParams(query)}`;
          const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
          if (res.statusCode === 400) {
            // Only a polygon the parser itself refuses (a vertex moved onto a project may fold the ring).
            expect(() => parsePolygon(polygon!), `${url}: ${res.body}`).toThrow(FilterError);
            expect(res.json().message, url).toMatch(/^polygon/);
            rejected++;
            return;
          }
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          expect(res.body, `${url} (price vector ${priceVector})`).toBe(await sqlBody(query, record));
          if (res.json().data.total > 0) nonEmpty++;
          if (polygon !== undefined) withPolygon++;
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    expect(nonEmpty, 'most shapes match something').toBeGreaterThan(NUM_RUNS / 4);
    expect(withPolygon).toBeGreaterThan(NUM_RUNS / 4);
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
      ];
      for (const shape of shapes) {
        const query: Query = { ...shape, limit: '100' };
        const res = await t.app.inject({ method: 'GET', url: `/projects?${new URLSearchParams(query)}`, headers: { 'x-api-key': secret } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.body, JSON.stringify(query)).toBe(await sqlBody(query, record));
        const page = parseProjectsQuery(shape);
        const inside = page.filters.bbox ? inBox(lng, lat, page.filters.bbox) : pointInPolygon(lng, lat, page.filters.polygon!);
        if (shape.bbox !== undefined || !shape.polygon!.startsWith(`${lng - d},${lat - d},${lng + d}`)) expect(inside, JSON.stringify(shape)).toBe(true);
        if (inside) onBoundary++;
      }
    }
    expect(onBoundary).toBeGreaterThan(90);
  }, 300_000);

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
