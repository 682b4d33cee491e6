import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { orient2d } from 'robust-predicates';
import { segmentsMeet, selfIntersection } from '../src/domain/simple-ring.js';
import { boxOf, inBox, inShape, MAX_ZOOM, mercatorX, mercatorY, shapeTest, tileAt, tileIndex, type LngLatRing, type LngLatShape } from '../src/domain/geo.js';
import { FilterError, MAX_POLYGON_VERTICES, parseBbox, parsePolygon } from '../src/domain/project-filters.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { shapeGrid } from '../src/search/shape-grid.js';
import { latitudeBand } from '../src/search/box-filter.js';

const polygon = (text: string): LngLatShape => parsePolygon(text);

function rejected(parse: () => unknown): FilterError {
  try {
    parse();
  } catch (error) {
    if (error instanceof FilterError) return error;
    throw error;
  }
  throw new Error('expected a FilterError');
}

/** Fails on the first point whose answer differs (one expect per shape: an expect per point was slow). */
function firstDifference<T>(got: T[], expected: T[], points: [number, number][], what: string): void {
  const k = got.findIndex((answer, at) => answer !== expected[at]);
  if (k >= 0) expect(got[k], `${what} at ${points[k][0]},${points[k][1]}`).toBe(expected[k]);
}

describe('bbox', () => {
  it('parses west,south,east,north; edges and corners are inside', () => {
    const box = parseBbox(' 55.1, 25.1 ,55.2,25.2');
    expect(box).toEqual({ west: 55.1, south: 25.1, east: 55.2, north: 25.2 });
    for (const [lng, lat] of [[55.1, 25.1], [55.2, 25.2], [55.15, 25.1], [55.1, 25.15], [55.15, 25.15]]) expect(inBox(lng, lat, box), `${lng},${lat}`).toBe(true);
    for (const [lng, lat] of [[55.09999999, 25.15], [55.2000001, 25.15], [55.15, 25.0999], [55.15, 25.2001], [NaN, 25.15]]) expect(inBox(lng, lat, box), `${lng},${lat}`).toBe(false);
    expect(parseBbox('1,2,1,2'), 'a point is a box').toEqual({ west: 1, south: 2, east: 1, north: 2 });
  });

  it.each([
    ['55.1,25.1,55.2', 'got 3 numbers'],
    ['55.1,25.1,55.2,25.2,1', 'got 5 numbers'],
    ['55.1,25.1,east,25.2', 'is not a number'],
    ['55.1,,55.2,25.2', 'is not a number'],
    ['0x10,25.1,55.2,25.2', 'is not a number'],
    ['Infinity,25.1,55.2,25.2', 'is not a number'],
    ['1e999,25.1,55.2,25.2', 'is not a number'],
    ['-180.5,25.1,55.2,25.2', 'longitude -180.5 is not between -180 and 180'],
    ['55.1,-91,55.2,25.2', 'latitude -91 is not between -90 and 90'],
    ['55.1,25.1,55.2,90.5', 'latitude 90.5 is not between -90 and 90'],
    ['55.2,25.1,55.1,25.2', 'west must not be greater than east'],
    ['55.1,25.2,55.2,25.1', 'south must not be greater than north'],
  ])('bbox=%s is a 400 naming bbox (%s)', (raw, message) => {
    const error = rejected(() => parseProjectsQuery({ bbox: raw }));
    expect(error.parameter).toBe('bbox');
    expect(error.message).toMatch(/^bbox/);
    expect(error.message).toContain(message);
  });
});

describe('polygon', () => {
  const square = '0,0,10,0,10,10,0,10';
  // An L: the notch [5,10]x[5,10] is outside.
  const ell = '0,0,10,0,10,5,5,5,5,10,0,10';

  it('even-odd inside, boundary (edges and vertices) inside, either direction, closed or not', () => {
    for (const text of [square, '0,10,10,10,10,0,0,0', `${square},0,0`]) {
      const shape = polygon(text);
      expect(shape.polygons[0].outer.xs.length, text).toBe(4);
      for (const [x, y] of [[5, 5], [0, 0], [10, 10], [0, 5], [5, 0], [10, 5], [5, 10], [0.000001, 9.99999]]) expect(inShape(x, y, shape), `${text}: ${x},${y}`).toBe(true);
      for (const [x, y] of [[-0.000001, 5], [10.000001, 5], [5, 10.000001], [5, -1e-9], [11, 11], [NaN, 5]]) expect(inShape(x, y, shape), `${text}: ${x},${y}`).toBe(false);
    }
  });

  it('concave: the notch is outside, its edges and reflex vertex inside; a ray through a vertex counts once', () => {
    const shape = polygon(ell);
    expect(inShape(7, 7, shape)).toBe(false);
    expect(inShape(2, 7, shape)).toBe(true);
    expect(inShape(7, 2, shape)).toBe(true);
    expect(inShape(5, 5, shape), 'the reflex vertex').toBe(true);
    expect(inShape(7, 5, shape), 'on the notch floor').toBe(true);
    expect(inShape(5, 7, shape), 'on the notch wall').toBe(true);
    // The eastward ray from (2, 5) passes through the vertex (10, 5) and along the notch floor.
    expect(inShape(2, 5, shape)).toBe(true);
    expect(inShape(-1, 5, shape)).toBe(false);
    // A diamond: rays through its top and bottom vertices.
    const diamond = polygon('0,-1,1,0,0,1,-1,0');
    expect(inShape(-2, 0, diamond)).toBe(false);
    expect(inShape(0, 0, diamond)).toBe(true);
    expect(inShape(-5, 1, diamond)).toBe(false);
  });

  it('a point on a slanted edge whose cross product is exactly 0 in doubles is inside', () => {
    const triangle = polygon('55,25,56,26,56,25');
    expect(inShape(55.5, 25.5, triangle)).toBe(true);
    expect(inShape(55.25, 25.25, triangle)).toBe(true);
    expect(inShape(55.5, 25.5000001, triangle)).toBe(false);
  });

  it('drops repeated vertices and the closing one; keeps bounds', () => {
    const shape = polygon('1,1, 1,1, 3,1, 3,3, 1,1');
    expect(shape.polygons).toEqual([{ outer: { xs: [1, 3, 3], ys: [1, 1, 3], box: { west: 1, south: 1, east: 3, north: 3 } }, holes: [] }]);
    expect(shape.box).toEqual({ west: 1, south: 1, east: 3, north: 3 });
  });

  it.each([
    ['0,0,10,0,10', 'odd count'],
    ['0,0,10,0', 'got 2 distinct vertices'],
    ['0,0,10,0,0,0', 'got 2 distinct vertices'],
    // Collinear: the last edge runs back over the others.
    ['0,0,1,1,2,2', 'must not intersect itself'],
    ['0,0,a,0,10,10', 'is not a number'],
    ['0,0,181,0,10,10', 'vertex 2\u2019s longitude 181 is not between -180 and 180'],
    ['0,0,10,-90.1,10,10', 'vertex 2\u2019s latitude -90.1 is not between -90 and 90'],
    // A bow tie: edges 1 and 3 cross.
    ['0,0,10,10,10,0,0,10', 'must not intersect itself: edges 1 and 3 cross or touch'],
    // A vertex touching a non-adjacent edge (a pinched ring).
    ['0,0,10,0,5,0,5,5', 'must not intersect itself'],
    ['0,0,10,0,10,10,5,0,0,10', 'must not intersect itself'],
    // A spike folding back on its own edge.
    ['0,0,10,0,5,0.000000001,5,0', 'must not intersect itself'],
    ['0,0,10,0,10,10,10,5', 'must not intersect itself'],
  ])('polygon=%s is a 400 naming polygon (%s)', (raw, message) => {
    const error = rejected(() => parseProjectsQuery({ polygon: raw }));
    expect(error.parameter).toBe('polygon');
    expect(error.message).toMatch(/^polygon/);
    expect(error.message).toContain(message);
  });

  it(`at most ${MAX_POLYGON_VERTICES} vertices (a circle of 1,000 is accepted, 1,001 is not)`, () => {
    const circle = (n: number) =>
      Array.from({ length: n }, (_, k) => `${(55 + 0.1 * Math.cos((2 * Math.PI * k) / n)).toFixed(7)},${(25 + 0.1 * Math.sin((2 * Math.PI * k) / n)).toFixed(7)}`).join(',');
    expect(parsePolygon(circle(MAX_POLYGON_VERTICES)).polygons[0].outer.xs.length).toBe(MAX_POLYGON_VERTICES);
    const error = rejected(() => parsePolygon(circle(MAX_POLYGON_VERTICES + 1)));
    expect(error.parameter).toBe('polygon');
    expect(error.message).toContain(`at most ${MAX_POLYGON_VERTICES}`);
  });

  it('selfIntersection accepts simple rings, convex and concave', () => {
    expect(selfIntersection([0, 10, 10, 0], [0, 0, 10, 10])).toBeUndefined();
    expect(selfIntersection([0, 10, 10, 5, 5, 0], [0, 0, 5, 5, 10, 10])).toBeUndefined();
    expect(selfIntersection([0, 1, 0], [0, 0, 1])).toBeUndefined();
  });
});

describe('polygon with holes, and several polygons', () => {
  // A 10x10 square with a 4x4 hole in the middle, and a second square east of it.
  const framed = '0,0,10,0,10,10,0,10;3,3,7,3,7,7,3,7';
  const twoSquares = `${framed}|20,0,30,0,30,10,20,10`;

  it('a hole removes its inside; its boundary stays in the shape (every boundary is inside)', () => {
    const shape = polygon(framed);
    expect(shape.polygons).toHaveLength(1);
    expect(shape.polygons[0].holes).toHaveLength(1);
    expect(inShape(1, 1, shape)).toBe(true);
    expect(inShape(5, 5, shape), 'inside the hole').toBe(false);
    expect(inShape(3, 5, shape), 'on the hole\u2019s edge').toBe(true);
    expect(inShape(7, 7, shape), 'on the hole\u2019s vertex').toBe(true);
    expect(inShape(3.0000001, 5, shape), 'just inside the hole').toBe(false);
    expect(inShape(2.9999999, 5, shape), 'just outside the hole').toBe(true);
    expect(inShape(0, 5, shape), 'on the outer edge').toBe(true);
    expect(inShape(-1, 5, shape)).toBe(false);
  });

  it('several polygons: their union, each with its own holes', () => {
    const shape = polygon(twoSquares);
    expect(shape.polygons).toHaveLength(2);
    expect(shape.box).toEqual({ west: 0, south: 0, east: 30, north: 10 });
    expect(inShape(25, 5, shape)).toBe(true);
    expect(inShape(20, 5, shape), 'on the second polygon\u2019s edge').toBe(true);
    expect(inShape(15, 5, shape), 'between them').toBe(false);
    expect(inShape(5, 5, shape), 'in the first polygon\u2019s hole').toBe(false);
    // Overlapping polygons: a point in the hole of one and inside the other is in the shape.
    const overlapping = polygon(`${framed}|4,4,6,4,6,6,4,6`);
    expect(inShape(5, 5, overlapping)).toBe(true);
  });

  it('a hole outside its outer ring, or holes overlapping, are taken as written (no error)', () => {
    expect(inShape(25, 5, polygon('0,0,10,0,10,10,0,10;20,0,30,0,30,10,20,10'))).toBe(false);
    const overlappingHoles = polygon('0,0,10,0,10,10,0,10;2,2,6,2,6,6,2,6;4,4,8,4,8,8,4,8');
    expect(inShape(5, 5, overlappingHoles)).toBe(false);
    expect(inShape(1, 1, overlappingHoles)).toBe(true);
  });

  it.each([
    ['0,0,10,0,10,10;3,3,4', 'hole 1: got an odd count of numbers'],
    ['0,0,10,0,10,10;3,3,4,4', 'hole 1: got 2 distinct vertices'],
    ['0,0,10,0,10,10|0,0,1,1,0,1,1,0', 'polygon 2, outer ring: edges 1 and 3 cross or touch'],
    ['0,0,10,0,10,10|0,0,1,1,2,2', 'polygon 2, outer ring: edges'],
    ['0,0,10,0,10,10;1,1,200,1,2,2', 'hole 1: vertex 2\u2019s longitude 200'],
    ['0,0,10,0,10,10;', 'is not a number'],
    ['0,0,10,0,10,10|', 'is not a number'],
  ])('polygon=%s is a 400 naming polygon and the ring (%s)', (raw, message) => {
    const error = rejected(() => parseProjectsQuery({ polygon: raw }));
    expect(error.parameter).toBe('polygon');
    expect(error.message).toMatch(/^polygon/);
    expect(error.message).toContain(message);
  });

  it(`at most ${MAX_POLYGON_VERTICES} vertices in all rings together`, () => {
    const ring = (n: number, cx: number) =>
      Array.from({ length: n }, (_, k) => `${(cx + 0.1 * Math.cos((2 * Math.PI * k) / n)).toFixed(7)},${(25 + 0.1 * Math.sin((2 * Math.PI * k) / n)).toFixed(7)}`).join(',');
    expect(polygon(`${ring(500, 55)}|${ring(500, 56)}`).polygons).toHaveLength(2);
    const error = rejected(() => parsePolygon(`${ring(500, 55)}|${ring(501, 56)}`));
    expect(error.message).toBe(`polygon has 1001 vertices; at most ${MAX_POLYGON_VERTICES} are allowed`);
  });
});

describe('map tiles', () => {
  it('a tile at any zoom is the MAX_ZOOM tile shifted (tileAt), clamping included, on random points and the edges', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const points: [number, number][] = [[-180, -90], [180, 90], [180, 85.0511], [-180, -85.06], [0, 0], [55.27, 25.2], [179.9999999, -89.9]];
    for (let k = 0; k < 2_000; k++) points.push([random() * 360 - 180, random() * 180 - 90]);
    // Points on tile edges at every zoom: multiples of 360 / 2^22 degrees of longitude.
    for (let k = 0; k < 200; k++) points.push([-180 + Math.floor(random() * 2 ** 22) * (360 / 2 ** 22), random() * 170 - 85]);
    for (const [lng, lat] of points) {
      const x = tileIndex(mercatorX(lng), MAX_ZOOM);
      const y = tileIndex(mercatorY(lat), MAX_ZOOM);
      for (let zoom = 0; zoom <= MAX_ZOOM; zoom++) {
        expect([tileAt(x, zoom), tileAt(y, zoom)], `${lng} ${lat} at ${zoom}`).toEqual([tileIndex(mercatorX(lng), zoom), tileIndex(mercatorY(lat), zoom)]);
      }
    }
  });
});

describe('shapeTest (the search\'s walk of the edges at a latitude) against inShape (every edge)', () => {
  // Small integer coordinates, so that points land exactly on vertices, on edges and on vertex latitudes.
  const coordinate = fc.integer({ min: -20, max: 20 });
  const ringArb = fc.array(fc.tuple(coordinate, coordinate), { minLength: 3, maxLength: 40 }).map((points): LngLatRing => {
    const xs = points.map(([x]) => x);
    const ys = points.map(([, y]) => y);
    return { xs, ys, box: boxOf(xs, ys) };
  });
  const shapeArb = fc
    .array(fc.record({ outer: ringArb, holes: fc.array(ringArb, { maxLength: 2 }) }), { minLength: 1, maxLength: 3 })
    .map((polygons): LngLatShape => ({ polygons, box: boxOf(polygons.flatMap((p) => p.outer.xs), polygons.flatMap((p) => p.outer.ys)) }));

  /** Points where the two could differ: every vertex, edge midpoints and thirds, the vertex latitudes, a grid, a few at random. */
  function probes(shape: LngLatShape, extra: [number, number][]): [number, number][] {
    const points: [number, number][] = [...extra, [Number.NaN, 0], [0, Number.NaN]];
    for (const { outer, holes } of shape.polygons) {
      for (const { xs, ys } of [outer, ...holes]) {
        for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) {
          points.push([xs[i], ys[i]], [(xs[i] + xs[j]) / 2, (ys[i] + ys[j]) / 2], [xs[j] + (xs[i] - xs[j]) / 3, ys[j] + (ys[i] - ys[j]) / 3]);
          for (const x of [-21, xs[j], 0.5, 21]) points.push([x, ys[i]]);
        }
      }
    }
    for (let x = -21; x <= 21; x += 3) for (let y = -21; y <= 21; y += 3) points.push([x, y], [x + 0.5, y + 0.25]);
    return points;
  }

  it('gives the same answer on random shapes (any ring, simple or not; holes; several polygons)', () => {
    const pointArb = fc.tuple(fc.double({ min: -22, max: 22, noNaN: true }), fc.double({ min: -22, max: 22, noNaN: true }));
    fc.assert(
      fc.property(shapeArb, fc.array(pointArb, { maxLength: 20 }), (shape, extra) => {
        const test = shapeTest(shape);
        for (const [x, y] of probes(shape, extra)) expect(test(x, y), `${x},${y}`).toBe(inShape(x, y, shape));
      }),
      { numRuns: 300, seed: 24 },
    );
  });

  it('the search\'s grid over a shape (src/search/shape-grid.ts) gives shapeTest\'s answer, at Dubai\'s scale too, on and next to the edges', () => {
    const pointArb = fc.tuple(fc.double({ min: -22, max: 22, noNaN: true }), fc.double({ min: -22, max: 22, noNaN: true }));
    // Points next to the edges: an edge point moved by a hair (the cells near an edge must send them to the exact test).
    const nudges = [0, 1e-13, -1e-13, 1e-11, -1e-11, 1e-9, -1e-9, 1e-7, -1e-7];
    let inside = 0;
    let keptInside = 0;
    fc.assert(
      fc.property(shapeArb, fc.array(pointArb, { maxLength: 20 }), fc.constantFrom(1, 0.004), fc.nat(), (unscaled, extra, scale, pick) => {
        // At scale 0.004 the shape is a few km across, around (55.27, 25.2), as a drawn shape on the map is.
        const at = (x: number, y: number): [number, number] => (scale === 1 ? [x, y] : [55.27 + x * scale, 25.2 + y * scale]);
        const ring = ({ xs, ys }: LngLatRing): LngLatRing => {
          const points = xs.map((x, i) => at(x, ys[i]));
          return { xs: points.map(([x]) => x), ys: points.map(([, y]) => y), box: boxOf(points.map(([x]) => x), points.map(([, y]) => y)) };
        };
        const polygons = unscaled.polygons.map(({ outer, holes }) => ({ outer: ring(outer), holes: holes.map(ring) }));
        const shape: LngLatShape = { polygons, box: boxOf(polygons.flatMap((p) => p.outer.xs), polygons.flatMap((p) => p.outer.ys)) };
        const exact = shapeTest(shape);
        const points = probes(unscaled, extra).map(([x, y]) => at(x, y));
        for (const [x, y] of [...points]) for (const nudge of nudges) points.push([x + nudge * ((pick % 3) - 1 || 1), y + nudge]);
        // One comparison per shape (an expect per point made this test take ~20 s).
        const expected = points.map(([x, y]) => exact(x, y));
        inside += expected.filter(Boolean).length;
        // The grid over the box's latitude band (its fine cells made during the pass): some bytes
        // already cleared, the mask holding no point outside the shape's box (as the search's box
        // filter leaves it).
        const set = points.map(([x, y], k) => ((k >> 2) + pick) % 3 !== 0 && (k + pick) % 5 !== 0 && inBox(x, y, shape.box));
        const keptExpected = expected.map((answer, k) => +(set[k] && answer));
        const columns = { longitude: Float64Array.from(points, ([x]) => x), latitude: Float64Array.from(points, ([, y]) => y), count: points.length };
        const mask = Uint8Array.from(set, Number);
        shapeGrid(shape).keepInside(mask, latitudeBand(columns, shape.box.south, shape.box.north));
        const kept = Array.from(mask);
        kept.forEach((v) => (keptInside += v));
        firstDifference(kept, keptExpected, points, 'keepInside');
      }),
      { numRuns: 300, seed: 44 },
    );
    expect(inside).toBeGreaterThan(1_000);
    expect(keptInside).toBeGreaterThan(500);
  });

  it('the grid answers as shapeTest past the most fine cells a shape may make (a ring of 400 deep zigzags, every edge reached)', () => {
    // A 400-vertex star of deep spikes crosses most cells of a wide ring of the 64 x 64 grid, far more
    // than MOST_FINE_CELLS (832); points on and a hair off eight places along each edge reach them.
    const xs: number[] = [];
    const ys: number[] = [];
    for (let k = 0; k < 400; k++) {
      const angle = (2 * Math.PI * k) / 400;
      const radius = k % 2 === 0 ? 1 : 0.5;
      xs.push(55.27 + 0.05 * radius * Math.cos(angle)), ys.push(25.2 + 0.05 * radius * Math.sin(angle));
    }
    const ring = { xs, ys, box: boxOf(xs, ys) };
    const shape: LngLatShape = { polygons: [{ outer: ring, holes: [] }], box: ring.box };
    const points: [number, number][] = [];
    for (let i = 0; i < xs.length; i++) {
      const j = (i + 1) % xs.length;
      for (let t = 0; t < 1; t += 0.125) for (const nudge of [0, 1e-9, -1e-7]) points.push([xs[i] + (xs[j] - xs[i]) * t + nudge, ys[i] + (ys[j] - ys[i]) * t - nudge]);
    }
    const exact = shapeTest(shape);
    const expected = points.map(([x, y]) => exact(x, y));
    const columns = { longitude: Float64Array.from(points, ([x]) => x), latitude: Float64Array.from(points, ([, y]) => y), count: points.length };
    const mask = Uint8Array.from(points, ([x, y]) => +inBox(x, y, shape.box));
    shapeGrid(shape).keepInside(mask, latitudeBand(columns, shape.box.south, shape.box.north));
    firstDifference(Array.from(mask), expected.map((answer, k) => +(answer && inBox(points[k][0], points[k][1], shape.box))), points, 'keepInside');
    expect(expected.filter(Boolean).length).toBeGreaterThan(points.length / 4);
  });

  it('falls back to the walk of every edge on a ring of long zigzags, with the same answers', () => {
    // 200 vertices at 200 latitudes, each edge spanning about half of them: ~100 listed edges per vertex (over 16).
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < 100; i++) xs.push(i, i + 0.5), ys.push(-i / 64, 10 + i / 64);
    const ring = { xs, ys, box: boxOf(xs, ys) };
    const shape: LngLatShape = { polygons: [{ outer: ring, holes: [] }], box: ring.box };
    const test = shapeTest(shape);
    for (const [x, y] of probes(shape, [[10.25, 5], [50, 0], [99.5, 11], [0.25, 0]])) expect(test(x, y), `${x},${y}`).toBe(inShape(x, y, shape));
  });
});

/*
 * The reference for the sweep (src/domain/simple-ring.ts): the plain check it replaced, every pair of
 * edges whose boxes overlap (quadratic on a star), its orientations made exact as the sweep's are.
 */
function referenceSelfIntersection(xs: number[], ys: number[]): string | undefined {
  const n = xs.length;
  const next = (i: number) => (i + 1 === n ? 0 : i + 1);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const i2 = next(i);
      const j2 = next(j);
      if (j === i + 1 || j2 === i) {
        const [s, o, f] = j === i + 1 ? [i2, i, j2] : [i, i2, j];
        const [sx, sy, ox, oy, fx, fy] = [xs[s], ys[s], xs[o], ys[o], xs[f], ys[f]];
        if (orient2d(sx, sy, ox, oy, fx, fy) === 0 && (ox - sx) * (fx - sx) + (oy - sy) * (fy - sy) > 0) return `edges ${i + 1} and ${j + 1} overlap`;
        continue;
      }
      if (segmentsMeet(xs[i], ys[i], xs[i2], ys[i2], xs[j], ys[j], xs[j2], ys[j2])) return `edges ${i + 1} and ${j + 1} cross or touch`;
    }
  }
  return undefined;
}

/** The pair a message names really is a fault: two edges that are not neighbours meet, or two neighbours fold. */
function namedPairIsAFault(xs: number[], ys: number[], message: string): boolean {
  const [, first, second, what] = /^edges (\d+) and (\d+) (cross or touch|overlap)$/.exec(message) ?? [];
  if (!first) return false;
  const [i, j] = [Number(first) - 1, Number(second) - 1];
  const n = xs.length;
  const adjacent = j === i + 1 || (j + 1) % n === i;
  if (what === 'overlap') return adjacent && referenceSelfIntersection(...pick([i, j].sort((a, b) => a - b), xs, ys)) !== undefined;
  const [i2, j2] = [(i + 1) % n, (j + 1) % n];
  return !adjacent && segmentsMeet(xs[i], ys[i], xs[i2], ys[i2], xs[j], ys[j], xs[j2], ys[j2]);
}

/** The three vertices of two neighbouring edges as a ring of their own (a fold shows as that triangle's fold). */
function pick([i, j]: number[], xs: number[], ys: number[]): [number[], number[]] {
  const n = xs.length;
  const vertices = j === i + 1 ? [i, j, (j + 1) % n] : [j, i, (i + 1) % n];
  return [vertices.map((v) => xs[v]), vertices.map((v) => ys[v])];
}

/** As the parser hands rings over: repeats in a row (and the closing one) dropped. */
function asParsed(points: [number, number][]): { xs: number[]; ys: number[] } {
  const kept: [number, number][] = [];
  for (const [x, y] of points) if (!kept.length || kept[kept.length - 1][0] !== x || kept[kept.length - 1][1] !== y) kept.push([x, y]);
  while (kept.length > 1 && kept[0][0] === kept[kept.length - 1][0] && kept[0][1] === kept[kept.length - 1][1]) kept.pop();
  return { xs: kept.map(([x]) => x), ys: kept.map(([, y]) => y) };
}

describe('selfIntersection (the sweep) against the quadratic reference', () => {
  const small = fc.integer({ min: -4, max: 4 });
  // Rings of every kind: any points on a small grid (collinear, touching, repeated vertices are common);
  // stars (simple unless rounding folds or pinches them); orthogonal rings (vertical and horizontal edges);
  // the same on a grid of tenths (not exact in doubles: collinear in the reals is not collinear in doubles).
  const anyRing = fc.array(fc.tuple(small, small), { minLength: 3, maxLength: 14 });
  const star = fc
    .tuple(fc.array(fc.tuple(fc.integer({ min: 0, max: 359 }), fc.integer({ min: 1, max: 6 })), { minLength: 3, maxLength: 40 }), fc.boolean())
    .map(([spokes, round]) =>
      [...spokes]
        .sort((a, b) => a[0] - b[0])
        .map(([angle, radius]): [number, number] => {
          const [x, y] = [radius * Math.cos((angle * Math.PI) / 180), radius * Math.sin((angle * Math.PI) / 180)];
          return round ? [Math.round(x), Math.round(y)] : [x, y];
        }),
    );
  const orthogonal = fc.array(fc.tuple(small, small), { minLength: 2, maxLength: 12 }).map((steps) => {
    const points: [number, number][] = [];
    let [x, y] = [0, 0];
    for (const [dx, dy] of steps) {
      points.push([(x += dx), y], [x, (y += dy)]);
    }
    return points;
  });
  const tenths = anyRing.map((points) => points.map(([x, y]): [number, number] => [x / 10 + 55.2, y / 10 + 25.1]));
  // A simple ring with one vertex moved onto another vertex or onto the middle of an edge (a pinch).
  const pinched = fc.tuple(star, fc.nat(), fc.nat(), fc.boolean()).map(([points, a, b, onEdge]) => {
    const copy = points.map(([x, y]): [number, number] => [x, y]);
    const from = a % copy.length;
    const to = b % copy.length;
    const [tx, ty] = copy[to];
    const [ux, uy] = copy[(to + 1) % copy.length];
    copy[from] = onEdge ? [(tx + ux) / 2, (ty + uy) / 2] : [tx, ty];
    return copy;
  });

  it('gives the reference\'s answer on random rings, degenerate ones included, and names a real fault', () => {
    let simple = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(anyRing, star, orthogonal, tenths, pinched), (points) => {
        const { xs, ys } = asParsed(points);
        if (xs.length < 3) return;
        const got = selfIntersection(xs, ys);
        const expected = referenceSelfIntersection(xs, ys);
        expect(got === undefined, `${xs.map((x, k) => `${x},${ys[k]}`).join(' ')}: sweep ${got}, reference ${expected}`).toBe(expected === undefined);
        if (got === undefined) simple++;
        else {
          refused++;
          expect(namedPairIsAFault(xs, ys, got), `${xs.map((x, k) => `${x},${ys[k]}`).join(' ')}: ${got}`).toBe(true);
        }
      }),
      { numRuns: 10_000, seed: 51 },
    );
    expect(simple).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('decides collinear and touching cases exactly', () => {
    // Vertex 4 (D) is on edge 1 (A-B) as the cross product rounds in doubles, so a check in doubles
    // calls both rings touching; exactly it lies a hair to one side: C and E are left of A-B, so the ring
    // with D right of it crosses (edge 3 C-D passes through A-B) and the one with D left of it is simple.
    const doubleCross = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    const right = [[55.763, 25.067], [55.019, 25.618], [54.9639, 25.5436], [55.2422, 25.4527], [55.7079, 24.9926]];
    const left = [[55.646, 25.138], [55.077, 25.724], [55.0184, 25.6671], [55.1339, 25.6654], [55.5874, 25.0811]];
    for (const ring of [right, left]) {
      const [[ax, ay], [bx, by], , [dx, dy]] = ring;
      expect(doubleCross(ax, ay, bx, by, dx, dy)).toBe(0);
      expect(orient2d(ax, ay, bx, by, dx, dy)).not.toBe(0);
    }
    expect(selfIntersection(right.map(([x]) => x), right.map(([, y]) => y))).toBe('edges 1 and 3 cross or touch');
    expect(selfIntersection(left.map(([x]) => x), left.map(([, y]) => y))).toBeUndefined();
    // Exactly on an edge (no rounding either way): refused; a vertex exactly on its neighbour's line, folding back: refused.
    expect(selfIntersection([0, 4, 8, 2, 0], [0, 4, 4, 2, -2])).toBe('edges 1 and 4 cross or touch');
    expect(selfIntersection([0, 4, 8, 2], [0, 4, 4, 2])).toBe('edges 1 and 4 overlap');
  });

  it('stays near n log n on the rings that made the pair check quadratic (a 1,000-vertex star of deep spikes, a comb)', () => {
    const spikes = (n: number) => {
      const xs: number[] = [];
      const ys: number[] = [];
      for (let k = 0; k < n; k++) {
        const angle = (2 * Math.PI * k) / n;
        const radius = k % 2 === 0 ? 0.06 : 0.0001;
        xs.push(55.27 + radius * Math.cos(angle)), ys.push(25.2 + radius * Math.sin(angle));
      }
      return { xs, ys };
    };
    const comb = (teeth: number) => {
      const xs: number[] = [];
      const ys: number[] = [];
      for (let t = 0; t < teeth; t++) xs.push(0, 1, 1, 0), ys.push(t, t, t + 0.5, t + 0.5);
      xs.push(-1, -1), ys.push(teeth, 0);
      return { xs, ys };
    };
    for (const { xs, ys } of [spikes(1000), comb(249)]) expect(selfIntersection(xs, ys)).toBeUndefined();
    // On the spikes every pair of edges near the centre has overlapping boxes: ~250,000 pair tests for
    // the reference. The fastest of several runs each (a shared machine slows some runs, never speeds one up).
    const { xs, ys } = spikes(1000);
    const fastest = (run: () => unknown) => {
      let best = Infinity;
      for (let k = 0; k < 7; k++) {
        const start = process.hrtime.bigint();
        run();
        best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e3);
      }
      return best;
    };
    const sweep = fastest(() => selfIntersection(xs, ys));
    const reference = fastest(() => referenceSelfIntersection(xs, ys));
    expect(sweep * 4, `sweep ${sweep.toFixed(0)} µs, reference ${reference.toFixed(0)} µs`).toBeLessThan(reference);
  });
});
