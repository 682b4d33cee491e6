import { sql, type Expression, type RawBuilder } from 'kysely';

/*
 * The distance rule, in one place: distances are great-circle distances on a sphere of the mean Earth
 * radius, by the haversine formula, in metres. The same formula runs in JavaScript (the in-memory
 * search's radius filter and distance sort, haversineM) and in SQL (the importer's project–facility
 * links, whose distances the project detail shows and the near_* filters read; the SQL reference of
 * GET /projects): haversineSqlText / haversineSql below are its one SQL text. A bounding box narrows the
 * candidates on an index before the exact distance decides (boundingBox here, the link SQL's box in
 * src/import/facility-links.ts).
 */

/** Mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6371008.8;

export interface GeoBox {
  minLat: number;
  maxLat: number;
  /** Absent when the circle covers a pole or crosses the antimeridian: no longitude pre-filter then. */
  minLng?: number;
  maxLng?: number;
}

/** A latitude/longitude box containing every point within `radiusM` of the centre. */
export function boundingBox(lat: number, lng: number, radiusM: number): GeoBox {
  const angular = radiusM / EARTH_RADIUS_M;
  const toDeg = (rad: number) => (rad * 180) / Math.PI;
  const minLat = lat - toDeg(angular);
  const maxLat = lat + toDeg(angular);
  if (minLat <= -90 || maxLat >= 90 || angular >= Math.PI / 2) return { minLat: Math.max(minLat, -90), maxLat: Math.min(maxLat, 90) };
  const latRad = (lat * Math.PI) / 180;
  const deltaLng = toDeg(Math.asin(Math.min(1, Math.sin(angular) / Math.cos(latRad))));
  const minLng = lng - deltaLng;
  const maxLng = lng + deltaLng;
  if (minLng < -180 || maxLng > 180) return { minLat, maxLat };
  return { minLat, maxLat, minLng, maxLng };
}

/** Great-circle distance in metres (haversine); haversineSql is the same formula in SQL. */
export function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The formula as SQL text pieces around its four operands (degrees), for both SQL forms below. */
function haversineParts<T>(lat1: T, lng1: T, lat2: T, lng2: T): (string | T)[] {
  return [
    `(2 * ${EARTH_RADIUS_M}::float8 * asin(least(1::float8, sqrt(power(sin(radians(`, lat2, ' - ', lat1, ') / 2), 2) + cos(radians(', lat1,
    ')) * cos(radians(', lat2, ')) * power(sin(radians(', lng2, ' - ', lng1, ') / 2), 2)))))',
  ];
}

/** Great-circle distance in metres between two points given as SQL text (columns, $n parameters). */
export function haversineSqlText(lat1: string, lng1: string, lat2: string, lng2: string): string {
  return haversineParts(lat1, lng1, lat2, lng2).join('');
}

type Degrees = Expression<number | null> | RawBuilder<number | null> | RawBuilder<number>;

/** The same distance for Kysely, the operands being expressions or parameters. */
export function haversineSql(lat1: Degrees, lng1: Degrees, lat2: Degrees, lng2: Degrees): RawBuilder<number> {
  return sql<number>`${sql.join(haversineParts(lat1, lng1, lat2, lng2).map((part) => (typeof part === 'string' ? sql.raw(part) : part)), sql.raw(''))}`;
}

/*
 * The map filters, in one place: a viewport box (`bbox`) and a shape (`polygon`: one polygon or several,
 * each an outer ring with any holes, as GeoJSON's Polygon and MultiPolygon), both in longitude /
 * latitude degrees, GeoJSON order. Shapes live in the plane of those degrees (an edge is the straight
 * line between its vertices on an equirectangular map, not a great circle: the same as GeoJSON's
 * coordinates read by Typesense, Meilisearch or a map drawing tool), and do not cross the antimeridian.
 *
 * Boundaries are inside: a project exactly on a box side or corner, or on a ring's edge or vertex (an
 * outer ring's or a hole's), matches. "Exactly" is decided in double-precision arithmetic, the same operations in the same order
 * in JavaScript (the in-memory search) and in SQL (the reference of GET /projects): a vertex, and any
 * point of a horizontal or vertical edge, is exact; for a slanted edge a point counts as on it when
 * the cross product (x2 − x1)(py − y1) − (y2 − y1)(px − x1) is 0 in doubles. Inside a polygon is the
 * even-odd rule (a ray to the east crosses the boundary an odd number of times; the half-open rule
 * y1 > py ≠ y2 > py counts each vertex once). Simple rings only (no self-intersection, decided
 * exactly: simple-ring.ts), where even-odd and non-zero winding agree. Projects without coordinates never match.
 */

/** A longitude/latitude box, edges included; west <= east (no antimeridian crossing). */
export interface LngLatBox {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** A simple closed ring: vertex i is (xs[i], ys[i]) = (lng, lat), not closed (the last joins the first). */
export interface LngLatRing {
  xs: number[];
  ys: number[];
  /** Its bounding box: a cheap pre-test, the ring decides. */
  box: LngLatBox;
}

/** A polygon: an outer ring and any holes (GeoJSON Polygon). */
export interface LngLatPolygon {
  outer: LngLatRing;
  holes: LngLatRing[];
}

/** The `polygon` filter: one polygon or several (GeoJSON MultiPolygon); `box` bounds them all. */
export interface LngLatShape {
  polygons: LngLatPolygon[];
  box: LngLatBox;
}

export function inBox(lng: number, lat: number, box: LngLatBox): boolean {
  return lng >= box.west && lng <= box.east && lat >= box.south && lat <= box.north;
}

/**
 * inBox over columns: clears mask[i] for each point (longitude[i], latitude[i]) outside the box. The
 * four comparisons are made without branches between them, which points in no order would mispredict.
 */
export function clearOutsideBox(mask: Uint8Array, longitude: Float64Array, latitude: Float64Array, box: LngLatBox): void {
  const { west, east, south, north } = box;
  for (let i = 0; i < mask.length; i++) {
    const lng = longitude[i];
    const lat = latitude[i];
    mask[i] &= +(lng >= west) & +(lng <= east) & +(lat >= south) & +(lat <= north);
  }
}

/** The same test as inBox in SQL (NULL coordinates: not true). */
export function inBoxSql(lng: Degrees, lat: Degrees, box: LngLatBox): RawBuilder<boolean> {
  return sql<boolean>`(${lng} BETWEEN ${box.west}::float8 AND ${box.east}::float8 AND ${lat} BETWEEN ${box.south}::float8 AND ${box.north}::float8)`;
}

/** Where a point lies with respect to a ring; ringPositionSql gives the same numbers in SQL. */
export const OUTSIDE = 0;
export const INSIDE = 1;
export const ON_BOUNDARY = 2;
export type RingPosition = typeof OUTSIDE | typeof INSIDE | typeof ON_BOUNDARY;

/** On an edge or vertex (exact in doubles, see above), else inside by the even-odd rule, else outside. */
export function ringPosition(px: number, py: number, ring: LngLatRing): RingPosition {
  const { xs, ys } = ring;
  let inside = false;
  for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) {
    const edge = edgeTest(px, py, xs[j], ys[j], xs[i], ys[i]);
    if (edge === ON_EDGE) return ON_BOUNDARY;
    if (edge === CROSSED) inside = !inside;
  }
  return inside ? INSIDE : OUTSIDE;
}

const MISSED = 0;
const CROSSED = 1;
const ON_EDGE = 2;

/** The edge (x1, y1) -> (x2, y2) holds the point, or is crossed by its eastward ray, or neither. */
function edgeTest(px: number, py: number, x1: number, y1: number, x2: number, y2: number): typeof MISSED | typeof CROSSED | typeof ON_EDGE {
  if (
    Math.min(x1, x2) <= px && px <= Math.max(x1, x2) && Math.min(y1, y2) <= py && py <= Math.max(y1, y2) &&
    (x2 - x1) * (py - y1) === (y2 - y1) * (px - x1)
  ) {
    return ON_EDGE;
  }
  return y1 > py !== y2 > py && px < ((x2 - x1) * (py - y1)) / (y2 - y1) + x1 ? CROSSED : MISSED;
}

/**
 * In the shape: inside or on the outer ring of one of its polygons and not strictly inside any of that
 * polygon's holes (a hole's boundary belongs to the shape, as every boundary does). Polygons may
 * overlap (their union counts); a hole outside its outer ring removes nothing. inShapeSql is the same.
 */
export function inShape(px: number, py: number, shape: LngLatShape): boolean {
  for (const { outer, holes } of shape.polygons) {
    if (!inBox(px, py, outer.box) || ringPosition(px, py, outer) === OUTSIDE) continue;
    if (!holes.some((hole) => inBox(px, py, hole.box) && ringPosition(px, py, hole) === INSIDE)) return true;
  }
  return false;
}

/** The edge (x1, y1) -> (x2, y2) is crossed by the eastward ray from the point (edgeTest's second test alone). */
function crosses(px: number, py: number, x1: number, y1: number, x2: number, y2: number): boolean {
  return y1 > py !== y2 > py && px < ((x2 - x1) * (py - y1)) / (y2 - y1) + x1;
}

/*
 * The same answers as ringPosition, for many points, at a cost per point bounded by the edges near it
 * (a search tests every candidate project against the drawn shape, and a client chooses the shape: a
 * ring of long zigzags puts hundreds of edges on every latitude). The ring's box is cut into about
 * one cell per vertex; each cell lists the edges that come within MARGIN of it. For a point p of a
 * cell, ringPosition's answer is:
 * - on the boundary when a listed edge holds p (an edge that is not listed is too far to hold it);
 * - else the parity of the eastward ray's crossings. A listed edge's crossing is computed as
 *   ringPosition does. An edge that is not listed is at least MARGIN from the cell, so its crossing is
 *   decided by geometry, not rounding (~1e-13 degrees at most), and the path from p to the cell's
 *   south-east corner c crosses none of them: the unlisted edges crossed by p's ray and by c's ray
 *   differ by the unlisted edges with one end in the region between the two rays, east of that path
 *   (a segment crosses the region's boundary an odd number of times when one of its ends is inside).
 *   The ends there are vertices east of the cell with a latitude between c's and p's; each vertex ends
 *   two edges, so counted over unlisted edges it counts as often, modulo 2, as over listed ones.
 *   Hence: parity(p) = parity(c's ray over unlisted edges, kept per cell)
 *                      + listed edges crossed by p's ray + ends of listed edges east of the cell
 *                        whose latitude lies between c's and p's (half-open, as the ray's rule).
 * c's parity over every edge comes from one pass per row of cells (each grid line's crossings, sorted);
 * the cell keeps it less the listed edges' crossings. test/geo-shapes.unit.test.ts compares shapeTest
 * with inShape on random rings (simple or not: the argument needs no simplicity) and points on their
 * vertices and edges.
 */

/** Distance (degrees) within which an edge is listed in a cell: far above the formulas' rounding. */
const LIST_MARGIN = 1e-9;
/** Cells a side at most (a ring of 1,000 vertices gets 32 x 32). */
const MOST_CELLS_A_SIDE = 32;

/** ringPosition for one ring, by cells listing their nearby edges. */
function ringLocator(ring: LngLatRing): (px: number, py: number) => RingPosition {
  // Copied into typed arrays: the test reads them for every point it is asked.
  const xs = Float64Array.from(ring.xs);
  const ys = Float64Array.from(ring.ys);
  const n = xs.length;
  const { west, south, east, north } = ring.box;
  const side = Math.min(MOST_CELLS_A_SIDE, Math.ceil(Math.sqrt(n)));
  // A ring of no width or height (collinear vertices; refused as a filter, met in tests) gets one cell that way.
  const columns = east > west ? side : 1;
  const rows = north > south ? side : 1;
  const perX = east > west ? columns / (east - west) : 0;
  const perY = north > south ? rows / (north - south) : 0;
  const columnOf = (x: number) => Math.min(columns - 1, Math.max(0, Math.floor((x - west) * perX)));
  const rowOf = (y: number) => Math.min(rows - 1, Math.max(0, Math.floor((y - south) * perY)));
  // Cell (row, column)'s south side and east side, the corner the parity starts from.
  const southOf = Float64Array.from({ length: rows }, (_, r) => (r === 0 ? south : south + r / perY));
  const eastOf = Float64Array.from({ length: columns }, (_, c) => (c === columns - 1 ? east : west + (c + 1) / perX));

  // Edge i joins vertex i-1 (n-1 for i = 0) to vertex i, as in ringPosition. Each is listed in the cells
  // that pieces of it (a quarter of a cell each way at most), widened by LIST_MARGIN, reach: about the
  // cells it crosses. Pieces of one edge reach the cells in order, so a cell repeats only from one piece
  // to the next (`stamp` drops it).
  const cellCount = rows * columns;
  let pairs = new Int32Array(4 * n);
  let pairCount = 0;
  const stamp = new Int32Array(cellCount).fill(-1);
  const list = (edge: number, x1: number, y1: number, x2: number, y2: number) => {
    const toColumn = columnOf(Math.max(x1, x2) + LIST_MARGIN);
    const toRow = rowOf(Math.max(y1, y2) + LIST_MARGIN);
    for (let r = rowOf(Math.min(y1, y2) - LIST_MARGIN); r <= toRow; r++) {
      for (let c = columnOf(Math.min(x1, x2) - LIST_MARGIN); c <= toColumn; c++) {
        const cell = r * columns + c;
        if (stamp[cell] === edge) continue;
        stamp[cell] = edge;
        if (pairCount + 2 > pairs.length) {
          const grown = new Int32Array(pairs.length * 2);
          grown.set(pairs);
          pairs = grown;
        }
        pairs[pairCount++] = cell;
        pairs[pairCount++] = edge;
      }
    }
  };
  for (let i = 0; i < n; i++) {
    const j = i === 0 ? n - 1 : i - 1;
    const dx = xs[i] - xs[j];
    const dy = ys[i] - ys[j];
    const pieces = Math.ceil(4 * Math.max(Math.abs(dx) * perX, Math.abs(dy) * perY)) || 1;
    for (let k = 0; k < pieces; k++) {
      const a = k / pieces;
      const b = (k + 1) / pieces;
      list(i, k === 0 ? xs[j] : xs[j] + dx * a, k === 0 ? ys[j] : ys[j] + dy * a, k === pieces - 1 ? xs[i] : xs[j] + dx * b, k === pieces - 1 ? ys[i] : ys[j] + dy * b);
    }
  }
  // The lists, by cell (CSR).
  const start = new Int32Array(cellCount + 1);
  for (let k = 0; k < pairCount; k += 2) start[pairs[k] + 1]++;
  for (let cell = 0; cell < cellCount; cell++) start[cell + 1] += start[cell];
  const edges = new Int32Array(pairCount / 2);
  const next = start.slice(0, cellCount);
  for (let k = 0; k < pairCount; k += 2) edges[next[pairs[k]]++] = pairs[k + 1];

  // Each cell's corner parity: the crossings of its row's south line east of the corner, by every
  // edge (sorted crossings, one pass per row), less those of the listed edges.
  const parity = new Uint8Array(cellCount);
  const crossings: number[][] = Array.from({ length: rows }, () => []);
  for (let i = 0; i < n; i++) {
    const j = i === 0 ? n - 1 : i - 1;
    const [x1, y1, x2, y2] = [xs[j], ys[j], xs[i], ys[i]];
    const top = Math.max(y1, y2);
    for (let r = Math.max(0, rowOf(Math.min(y1, y2)) - 1); r < rows && southOf[r] < top; r++) {
      const t = southOf[r];
      if (y1 > t !== y2 > t) crossings[r].push(((x2 - x1) * (t - y1)) / (y2 - y1) + x1);
    }
  }
  for (let r = 0; r < rows; r++) {
    const sorted = Float64Array.from(crossings[r]).sort();
    let k = 0;
    for (let c = 0; c < columns; c++) {
      // Crossings east of the corner: px < crossing, as `crosses` compares.
      while (k < sorted.length && sorted[k] <= eastOf[c]) k++;
      const cell = r * columns + c;
      let bit = (sorted.length - k) & 1;
      for (let e = start[cell]; e < start[cell + 1]; e++) {
        const i = edges[e];
        const j = i === 0 ? n - 1 : i - 1;
        if (crosses(eastOf[c], southOf[r], xs[j], ys[j], xs[i], ys[i])) bit ^= 1;
      }
      parity[cell] = bit;
    }
  }

  return (px, py) => {
    // Outside the box (NaN included): no edge holds the point, and its ray crosses the ring an even number of times.
    if (!(px >= west && px <= east && py >= south && py <= north)) return OUTSIDE;
    const row = rowOf(py);
    const column = columnOf(px);
    const cell = row * columns + column;
    const cornerX = eastOf[column];
    const cornerY = southOf[row];
    let inside = parity[cell];
    for (let e = start[cell]; e < start[cell + 1]; e++) {
      const i = edges[e];
      const j = i === 0 ? n - 1 : i - 1;
      const edge = edgeTest(px, py, xs[j], ys[j], xs[i], ys[i]);
      if (edge === ON_EDGE) return ON_BOUNDARY;
      if (edge === CROSSED) inside ^= 1;
      // The edge's ends east of the cell between the corner's latitude and the point's.
      if (xs[i] > cornerX && ys[i] > cornerY !== ys[i] > py) inside ^= 1;
      if (xs[j] > cornerX && ys[j] > cornerY !== ys[j] > py) inside ^= 1;
    }
    return inside === 1 ? INSIDE : OUTSIDE;
  };
}

/** inShape for one shape, its rings' cells made once: for testing many points. */
export function shapeTest(shape: LngLatShape): (px: number, py: number) => boolean {
  const polygons = shape.polygons.map(({ outer, holes }) => ({
    outer: { box: outer.box, position: ringLocator(outer) },
    holes: holes.map((hole) => ({ box: hole.box, position: ringLocator(hole) })),
  }));
  // The usual drawn shape, one polygon without holes: its test alone (no loop, no closure per hole).
  if (polygons.length === 1 && polygons[0].holes.length === 0) {
    const { box, position } = polygons[0].outer;
    return (px, py) => inBox(px, py, box) && position(px, py) !== OUTSIDE;
  }
  return (px, py) => {
    for (const { outer, holes } of polygons) {
      if (!inBox(px, py, outer.box) || outer.position(px, py) === OUTSIDE) continue;
      if (!holes.some((hole) => inBox(px, py, hole.box) && hole.position(px, py) === INSIDE)) return true;
    }
    return false;
  };
}

/**
 * ringPosition in SQL, over the ring's edges (x1, y1) -> (x2, y2) unnested from four float8 arrays;
 * the same comparisons and arithmetic in the same order. CASE guards the division: SQL does not
 * promise to skip the right side of an AND.
 */
export function ringPositionSql(px: Degrees, py: Degrees, ring: LngLatRing): RawBuilder<RingPosition> {
  const { xs, ys } = ring;
  const next = (values: number[]) => [...values.slice(1), values[0]];
  const array = (values: number[]) => sql`${`{${values.map(String).join(',')}}`}::float8[]`;
  return sql<RingPosition>`(SELECT CASE WHEN bool_or(
      least(x1, x2) <= ${px} AND ${px} <= greatest(x1, x2) AND least(y1, y2) <= ${py} AND ${py} <= greatest(y1, y2)
      AND (x2 - x1) * (${py} - y1) = (y2 - y1) * (${px} - x1)
    ) THEN ${sql.lit(ON_BOUNDARY)}
    WHEN count(*) FILTER (WHERE CASE WHEN (y1 > ${py}) <> (y2 > ${py}) THEN ${px} < (x2 - x1) * (${py} - y1) / (y2 - y1) + x1 ELSE false END) % 2 = 1
    THEN ${sql.lit(INSIDE)} ELSE ${sql.lit(OUTSIDE)} END
    FROM unnest(${array(xs)}, ${array(ys)}, ${array(next(xs))}, ${array(next(ys))}) AS e(x1, y1, x2, y2))`;
}

/** inShape in SQL (NULL coordinates: false). */
export function inShapeSql(px: Degrees, py: Degrees, shape: LngLatShape): RawBuilder<boolean> {
  const polygons = shape.polygons.map(({ outer, holes }) =>
    sql.join(
      [
        inBoxSql(px, py, outer.box),
        sql`${ringPositionSql(px, py, outer)} <> ${sql.lit(OUTSIDE)}`,
        ...holes.map((hole) => sql`${ringPositionSql(px, py, hole)} <> ${sql.lit(INSIDE)}`),
      ],
      sql` AND `,
    ),
  );
  return sql<boolean>`coalesce((${sql.join(polygons.map((p) => sql`(${p})`), sql` OR `)}), false)`;
}

export function boxOf(xs: number[], ys: number[]): LngLatBox {
  return { west: Math.min(...xs), south: Math.min(...ys), east: Math.max(...xs), north: Math.max(...ys) };
}

/*
 * The map grid, in one place: web-mercator tiles as web maps (and Elasticsearch's geotile_grid) cut
 * the world. At zoom z there are 2^z × 2^z tiles; a point's tile is
 *   x = floor((lng + 180) / 360 × 2^z)
 *   y = floor((1 − asinh(tan φ) / π) / 2 × 2^z)        (φ the latitude in radians; asinh(tan φ) = ln(tan φ + sec φ))
 * clamped to 0 … 2^z − 1, so lng = 180 and the poles (beyond ±85.0511°, where the projection ends)
 * fall in the last row or column. A tile's edges, back in degrees, are tileBounds. The grid is only
 * computed in JavaScript (the clusters of GET /projects/clusters are made in memory); the tests hold a
 * straightforward copy of the same formula over the SQL reference's matches.
 */

export const MAX_ZOOM = 22;

export interface Tile {
  zoom: number;
  x: number;
  y: number;
}

/** A longitude's web-mercator x in [0, 1] (0: 180° W). */
export function mercatorX(lng: number): number {
  return (lng + 180) / 360;
}

/** A latitude's web-mercator y (0: the projection's north edge, 1: its south edge; beyond them outside [0, 1]). */
export function mercatorY(lat: number): number {
  return (1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2;
}

/** The column or row at zoom `zoom` of a mercator coordinate (mercatorX, mercatorY), clamped to the grid. */
export function tileIndex(mercator: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(mercator * n)));
}

/**
 * The column or row at `zoom` of a point whose tileIndex at MAX_ZOOM is `atMaxZoom`: a tile of zoom z
 * is exactly 2^(MAX_ZOOM − z) tiles of MAX_ZOOM across, so floor(m 2^z) = floor(m 2^MAX_ZOOM) >> (MAX_ZOOM − z)
 * (the products by powers of two are exact), clamping included. One shift per point where tileIndex
 * is a power, a product, a floor and two clamps: the clusters of L's 2,665 projects in Dubai spent
 * more in tileIndex than in the rest of their pass (docs/performance.md, "Clusters from kept tiles").
 */
export function tileAt(atMaxZoom: number, zoom: number): number {
  return atMaxZoom >> (MAX_ZOOM - zoom);
}

export function tileOf(lng: number, lat: number, zoom: number): Tile {
  return { zoom, x: tileIndex(mercatorX(lng), zoom), y: tileIndex(mercatorY(lat), zoom) };
}

/** The tile's edges in degrees (north is the top edge: y grows southwards). */
export function tileBounds({ zoom, x, y }: Tile): LngLatBox {
  const n = 2 ** zoom;
  const latOf = (row: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / n))) * 180) / Math.PI;
  return { west: (x / n) * 360 - 180, south: latOf(y + 1), east: ((x + 1) / n) * 360 - 180, north: latOf(y) };
}
