import { inBox, shapeTest, type LngLatShape } from '../domain/geo.js';

/*
 * A drawn shape's test for many points: a grid of SIDE x SIDE cells over the shape's box answers most
 * points with one read, and the exact test (geo.ts's shapeTest, the rule the SQL states) answers the
 * rest. At 20,000 projects the bench's 50-vertex star walked its edges for ~3,500 projects a search,
 * ~85 ns each (docs/performance.md, stop 44).
 *
 * Why a cell's answer holds for every point in it: a cell is marked EDGE when any edge's box, widened
 * by MARGIN degrees, reaches it, found with the same index function the points use (monotonic in the
 * coordinate, so a point on or within MARGIN of an edge always lands in a marked cell). The points of
 * an unmarked cell form a connected rectangle that the rings do not touch, so they are all on one side
 * of them; MARGIN (~0.1 mm) is far above the exact test's rounding (~1e-14 degrees), so that test gives
 * the geometric side for each of them. Two unmarked neighbouring cells form a connected set too, so one
 * exact test per region of unmarked cells (flooded from its first cell) answers the whole region.
 */

const SIDE = 64;
const PIECES_PER_CELL = 4;
const MARGIN = 1e-9;
/** Below this cell size (degrees) the widened edges would cover the grid: the exact test alone. */
const SMALLEST_CELL = 1e-7;

const UNKNOWN = 0;
const INSIDE = 1;
const OUTSIDE = 2;
const EDGE = 3;

export function gridShapeTest(shape: LngLatShape): (px: number, py: number) => boolean {
  const exact = shapeTest(shape);
  const { box } = shape;
  const { west, south } = box;
  const cellWidth = (box.east - west) / SIDE;
  const cellHeight = (box.north - south) / SIDE;
  if (!(cellWidth >= SMALLEST_CELL && cellHeight >= SMALLEST_CELL)) return exact;
  const perX = 1 / cellWidth;
  const perY = 1 / cellHeight;
  const column = (x: number) => Math.min(SIDE - 1, Math.max(0, Math.floor((x - west) * perX)));
  const row = (y: number) => Math.min(SIDE - 1, Math.max(0, Math.floor((y - south) * perY)));

  const cells = new Uint8Array(SIDE * SIDE);
  const mark = (x1: number, y1: number, x2: number, y2: number) => {
    const rowTo = row(Math.max(y1, y2) + MARGIN);
    const columnTo = column(Math.max(x1, x2) + MARGIN);
    const columnFrom = column(Math.min(x1, x2) - MARGIN);
    // A loop, not fill(): the ranges are a cell or two, where fill's call costs more than the writes.
    for (let r = row(Math.min(y1, y2) - MARGIN); r <= rowTo; r++) for (let c = columnFrom; c <= columnTo; c++) cells[r * SIDE + c] = EDGE;
  };
  for (const { outer, holes } of shape.polygons) {
    for (const { xs, ys } of [outer, ...holes]) {
      for (let i = 0; i < xs.length; i++) {
        const j = i === 0 ? xs.length - 1 : i - 1;
        // An edge in pieces of at most a quarter of a cell each way, so that about the cells it crosses
        // are marked, not its box's (a piece's box reaches a neighbour only near a cell's side); a
        // piece's computed ends are within rounding of the edge, far inside MARGIN.
        const pieces = Math.min(PIECES_PER_CELL * SIDE, Math.ceil(PIECES_PER_CELL * Math.max(Math.abs(xs[i] - xs[j]) * perX, Math.abs(ys[i] - ys[j]) * perY)) + 1);
        for (let k = 0; k < pieces; k++) {
          const from = k / pieces;
          const to = (k + 1) / pieces;
          mark(xs[j] + (xs[i] - xs[j]) * from, ys[j] + (ys[i] - ys[j]) * from, xs[j] + (xs[i] - xs[j]) * to, ys[j] + (ys[i] - ys[j]) * to);
        }
      }
    }
  }
  // Each region of unmarked cells: one exact test at its first cell's centre, flooded to its neighbours.
  const queue = new Int32Array(SIDE * SIDE);
  for (let start = 0; start < cells.length; start++) {
    if (cells[start] !== UNKNOWN) continue;
    const answer = exact(west + ((start % SIDE) + 0.5) * cellWidth, south + (Math.floor(start / SIDE) + 0.5) * cellHeight) ? INSIDE : OUTSIDE;
    cells[start] = answer;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    while (head < tail) {
      const cell = queue[head++];
      const c = cell % SIDE;
      if (c > 0 && cells[cell - 1] === UNKNOWN) (cells[cell - 1] = answer), (queue[tail++] = cell - 1);
      if (c < SIDE - 1 && cells[cell + 1] === UNKNOWN) (cells[cell + 1] = answer), (queue[tail++] = cell + 1);
      if (cell >= SIDE && cells[cell - SIDE] === UNKNOWN) (cells[cell - SIDE] = answer), (queue[tail++] = cell - SIDE);
      if (cell < cells.length - SIDE && cells[cell + SIDE] === UNKNOWN) (cells[cell + SIDE] = answer), (queue[tail++] = cell + SIDE);
    }
  }
  return (px, py) => {
    // Outside the box (NaN included): outside the shape, as the exact test says.
    if (!inBox(px, py, box)) return false;
    const state = cells[row(py) * SIDE + column(px)];
    return state === EDGE ? exact(px, py) : state === INSIDE;
  };
}
