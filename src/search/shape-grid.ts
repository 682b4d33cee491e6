import { shapeTest, type LngLatShape } from '../domain/geo.js';
import { SHAPE_GRID_BYTES } from '../contract/parsed-shapes.js';
import type { LatitudeBand } from './box-filter.js';

/*
 * A drawn shape's test for many points: a grid of SIDE x SIDE cells over the shape's box answers most
 * points with one read, and the exact test (geo.ts's shapeTest, the rule the SQL states) answers the
 * rest, where the edge walk for every point of the shape's box was the search's largest cost at scale
 * (docs/performance.md, "Box and drawn-shape filters").
 *
 * Why a cell's answer holds for every point in it: a cell is marked EDGE when any edge's box, widened
 * by MARGIN degrees, reaches it, found with the same index function the points use (monotonic in the
 * coordinate, so a point on or within MARGIN of an edge always lands in a marked cell). The points of
 * an unmarked cell form a connected rectangle that the rings do not touch, so they are all on one side
 * of them; MARGIN (~0.1 mm) is far above the exact test's rounding (~1e-14 degrees), so that test gives
 * the geometric side for each of them. Two unmarked neighbouring cells form a connected set too, so one
 * exact test per region of unmarked cells (flooded from its first cell) answers the whole region.
 *
 * A cell at an edge is split the same way into FINE x FINE cells the first time a point lands in it
 * (the same argument, with the edges' parts near that cell): of 4,000 points spread over the bench's
 * star's box, its edge cells (~21 % of its cells) sent 789 to the exact test, its fine cells 125.
 * Made when first needed (a couple of exact tests each), a shape costs the fine cells its points
 * reach, not those of all its edge cells.
 */

const SIDE = 64;
/** Each cell at an edge is split into FINE x FINE cells of its own when a point first lands in it. */
const FINE_BITS = 3;
const FINE = 1 << FINE_BITS;
const PIECES_PER_CELL = 4;
const MARGIN = 1e-9;
/**
 * Below this cell size (degrees) the widened edges would cover the grid: the exact test alone. A fine
 * cell (SMALLEST_CELL / FINE at least) must stay far wider than MARGIN: the edges' clipping to a cell's
 * window relies on a cell's slack each way exceeding MARGIN.
 */
const SMALLEST_CELL = 1e-7;
/** Fine cells a shape may make at most (64 bytes each), within what the parsed shapes' cache counts for it. */
const MOST_FINE_CELLS = Math.floor((SHAPE_GRID_BYTES - SIDE * SIDE * 3) / (FINE * FINE));
/**
 * Edges the fine cells of a shape may walk in all (each fine cell walks every edge of the shape): the
 * bench's 50-vertex star may make all its fine cells, a 1,000-vertex shape ~65; past it the exact
 * test, bounded per point by the edges near it (geo.ts), answers. Without it a client's new
 * 1,000-vertex shape cost ~800 fine cells x 1,000 edges in one request.
 */
const MOST_FINE_EDGE_WALKS = 64 * 1024;

const UNKNOWN = 0;
const INSIDE = 1;
const OUTSIDE = 2;
const EDGE = 3;

/** A drawn shape's test of many points as columns. */
export interface ShapeGrid {
  /**
   * Clears mask[i] (0 or 1) for each project of the band (its index order[k], its coordinates at k)
   * outside the shape, as geo.ts's shapeTest answers, per set byte. The mask must hold no project outside the shape's box (the
   * box's filter has run) and the band must be the box's latitudes: the band's projects are read in
   * latitude order, their coordinates front to back, where a pass by index read two coordinates at
   * random per project left (at scale, outside the processor's nearest caches; docs/performance.md,
   * "Box and drawn-shape filters").
   */
  keepInside(mask: Uint8Array, band: LatitudeBand): void;
}

/** The flood's queue, shared: each classify() runs to its end, synchronously, and is never re-entered. */
const queue = new Int32Array(SIDE * SIDE);

export function shapeGrid(shape: LngLatShape): ShapeGrid {
  const exact = shapeTest(shape);
  const { box } = shape;
  const { west, south, east, north } = box;
  const cellWidth = (east - west) / SIDE;
  const cellHeight = (north - south) / SIDE;
  if (!(cellWidth >= SMALLEST_CELL && cellHeight >= SMALLEST_CELL)) {
    return {
      keepInside(mask, { order, longitudes, latitudes, from, to }) {
        for (let k = from; k < to; k++) if (mask[order[k]] === 1 && !exact(longitudes[k], latitudes[k])) mask[order[k]] = 0;
      },
    };
  }
  // Every index is a fine one (SIDE * FINE a side); a cell's is the fine index >> FINE_BITS, which is
  // floor((x - west) * (1 / cellWidth)) exactly (a product by a power of two is exact). One index
  // function, monotonic in the coordinate, for points, edges and both grids.
  const perFineX = FINE / cellWidth;
  const perFineY = FINE / cellHeight;
  const LAST = SIDE * FINE - 1;
  const fineColumn = (x: number) => Math.min(LAST, Math.max(0, Math.floor((x - west) * perFineX)));
  const fineRow = (y: number) => Math.min(LAST, Math.max(0, Math.floor((y - south) * perFineY)));
  const rings = shape.polygons.flatMap(({ outer, holes }) => [outer, ...holes]);
  const edgeCount = rings.reduce((sum, ring) => sum + ring.xs.length, 0);
  const mostFineCells = Math.min(MOST_FINE_CELLS, Math.floor(MOST_FINE_EDGE_WALKS / edgeCount));

  /**
   * Classifies the cells of a window of the fine grid: `side` x `side` cells of `scale` fine cells each,
   * its first at fine (row0, column0). EDGE where a ring's edge, widened by MARGIN, reaches a cell;
   * then one exact test per region of other cells (at its first cell's centre), flooded to its
   * neighbours. Only the part of each edge near the window is walked (with a cell's slack each way).
   */
  const classify = (cells: Uint8Array, side: number, scale: number, row0: number, column0: number) => {
    const windowWest = west + (column0 - scale) / perFineX;
    const windowEast = west + (column0 + (side + 1) * scale) / perFineX;
    const windowSouth = south + (row0 - scale) / perFineY;
    const windowNorth = south + (row0 + (side + 1) * scale) / perFineY;
    const cellOfColumn = (x: number) => Math.min(side - 1, Math.max(0, Math.floor((fineColumn(x) - column0) / scale)));
    const cellOfRow = (y: number) => Math.min(side - 1, Math.max(0, Math.floor((fineRow(y) - row0) / scale)));
    const mark = (x1: number, y1: number, x2: number, y2: number) => {
      const fromColumn = fineColumn(Math.min(x1, x2) - MARGIN);
      const toColumn = fineColumn(Math.max(x1, x2) + MARGIN);
      const fromRow = fineRow(Math.min(y1, y2) - MARGIN);
      const toRow = fineRow(Math.max(y1, y2) + MARGIN);
      // A piece beside the window (its slack) marks nothing in it.
      if (toColumn < column0 || fromColumn >= column0 + side * scale || toRow < row0 || fromRow >= row0 + side * scale) return;
      const columnTo = cellOfColumn(Math.max(x1, x2) + MARGIN);
      const columnFrom = cellOfColumn(Math.min(x1, x2) - MARGIN);
      const rowTo = cellOfRow(Math.max(y1, y2) + MARGIN);
      // A loop, not fill(): the ranges are a cell or two, where fill's call costs more than the writes.
      for (let r = cellOfRow(Math.min(y1, y2) - MARGIN); r <= rowTo; r++) for (let c = columnFrom; c <= columnTo; c++) cells[r * side + c] = EDGE;
    };
    for (const { xs, ys } of rings) {
      for (let i = 0; i < xs.length; i++) {
        const j = i === 0 ? xs.length - 1 : i - 1;
        const dx = xs[i] - xs[j];
        const dy = ys[i] - ys[j];
        // The edge's part within the window's slack, as parameters t of (xs[j] + dx t, ys[j] + dy t).
        const [fromX, toX] = within(xs[j], dx, windowWest, windowEast);
        const [fromY, toY] = within(ys[j], dy, windowSouth, windowNorth);
        const from = Math.max(fromX, fromY);
        const to = Math.min(toX, toY);
        if (!(from <= to)) continue;
        // That part in pieces of at most a quarter of a cell each way, so that about the cells it
        // crosses are marked, not its box's (a piece's box reaches a neighbour only near a cell's
        // side); a piece's computed ends are within rounding of the edge, far inside MARGIN.
        const span = (to - from) / scale;
        const pieces = Math.min(PIECES_PER_CELL * (side + 2), Math.ceil(PIECES_PER_CELL * span * Math.max(Math.abs(dx) * perFineX, Math.abs(dy) * perFineY)) + 1);
        for (let k = 0; k < pieces; k++) {
          const a = from + ((to - from) * k) / pieces;
          const b = from + ((to - from) * (k + 1)) / pieces;
          mark(xs[j] + dx * a, ys[j] + dy * a, xs[j] + dx * b, ys[j] + dy * b);
        }
      }
    }
    for (let start = 0; start < cells.length; start++) {
      if (cells[start] !== UNKNOWN) continue;
      const centreX = west + (column0 + ((start % side) + 0.5) * scale) / perFineX;
      const centreY = south + (row0 + (Math.floor(start / side) + 0.5) * scale) / perFineY;
      const answer = exact(centreX, centreY) ? INSIDE : OUTSIDE;
      cells[start] = answer;
      let head = 0;
      let tail = 0;
      queue[tail++] = start;
      while (head < tail) {
        const cell = queue[head++];
        const c = cell % side;
        if (c > 0 && cells[cell - 1] === UNKNOWN) (cells[cell - 1] = answer), (queue[tail++] = cell - 1);
        if (c < side - 1 && cells[cell + 1] === UNKNOWN) (cells[cell + 1] = answer), (queue[tail++] = cell + 1);
        if (cell >= side && cells[cell - side] === UNKNOWN) (cells[cell - side] = answer), (queue[tail++] = cell - side);
        if (cell < cells.length - side && cells[cell + side] === UNKNOWN) (cells[cell + side] = answer), (queue[tail++] = cell + side);
      }
    }
  };

  const cells = new Uint8Array(SIDE * SIDE);
  classify(cells, SIDE, FINE, 0, 0);
  // The fine cells of each EDGE cell, made when a point first lands in it: the made-th block of
  // FINE * FINE bytes in `fine`, made = slots[cell] - 1 (0: not yet made). Both made on the first need;
  // past MOST_FINE_CELLS (a shape whose points reach many edge cells) the exact test answers.
  let slots = new Uint16Array(0);
  let fine = new Uint8Array(0);
  let made = 0;
  /** The offset of the cell's fine cells in `fine`, -1 when none may be made. */
  const fineCells = (cell: number): number => {
    if (slots.length === 0) slots = new Uint16Array(SIDE * SIDE);
    if (slots[cell] !== 0) return (slots[cell] - 1) * FINE * FINE;
    if (made >= mostFineCells) return -1;
    const at = made * FINE * FINE;
    if (fine.length < at + FINE * FINE) {
      const grown = new Uint8Array(Math.min(MOST_FINE_CELLS * FINE * FINE, Math.max(FINE * FINE * 16, fine.length * 2)));
      grown.set(fine);
      fine = grown;
    }
    classify(fine.subarray(at, at + FINE * FINE), FINE, 1, (cell / SIDE) << FINE_BITS, (cell % SIDE) << FINE_BITS);
    made++;
    slots[cell] = made;
    return at;
  };
  /** Inside, for a point of the EDGE cell `cell`, from its fine indexes: by the cell's fine cells, else exactly. */
  const insideEdgeCell = (px: number, py: number, column: number, row: number, cell: number): boolean => {
    // Made (and `fine` perhaps grown) before `fine` is read.
    const at = fineCells(cell);
    if (at < 0) return exact(px, py);
    const sub = fine[at + (row & (FINE - 1)) * FINE + (column & (FINE - 1))];
    return sub === EDGE ? exact(px, py) : sub === INSIDE;
  };
  return {
    keepInside(mask, { order, longitudes, latitudes, from, to }) {
      for (let k = from; k < to; k++) {
        const i = order[k];
        if (mask[i] === 0) continue;
        const px = longitudes[k];
        const py = latitudes[k];
        // Outside the box (NaN included): outside the shape, as the exact test says.
        if (!(px >= west && px <= east && py >= south && py <= north)) {
          mask[i] = 0;
          continue;
        }
        const column = Math.min(LAST, Math.floor((px - west) * perFineX));
        const row = Math.min(LAST, Math.floor((py - south) * perFineY));
        const cell = (row >> FINE_BITS) * SIDE + (column >> FINE_BITS);
        const state = cells[cell];
        if (state === INSIDE) continue;
        if (state === OUTSIDE || !insideEdgeCell(px, py, column, row, cell)) mask[i] = 0;
      }
    },
  };
}

/**
 * The parameters t in [0, 1] where from + delta * t lies within [low, high], widened by a hair for the
 * division's rounding (the window has a cell's slack each way); [1, 0] (empty) when none.
 */
function within(from: number, delta: number, low: number, high: number): [number, number] {
  if (delta === 0) return from >= low && from <= high ? [0, 1] : [1, 0];
  const a = (low - from) / delta;
  const b = (high - from) / delta;
  const slack = 1e-12;
  return [Math.max(0, Math.min(a, b) - slack), Math.min(1, Math.max(a, b) + slack)];
}
