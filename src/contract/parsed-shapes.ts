import { LRUCache } from 'lru-cache';
import type { LngLatShape } from '../domain/geo.js';
import { parsePolygon } from '../domain/project-filters.js';

/*
 * `polygon=` parsed once per text, in the whole process. A drawn shape is asked again and again (each
 * change of the other filters, each page, the clusters at each zoom, every visitor of a shared link),
 * and its parse (the numbers, the self-intersection sweep, src/domain/simple-ring.ts) need not be
 * paid again. A parse depends on the text alone, so a kept
 * shape is the answer any request with that text would get. Only shapes that parse are kept (a refused
 * text is parsed, and refused with its message, again), and they are frozen: requests share them.
 * The same shape object also lets the search keep what it derives from it (find-projects.ts, result-cache.ts).
 */

/** Parsed shapes kept, with what the search keeps with them: at most this many bytes (a 50-vertex star counts ~77 kB, a 1,000-vertex shape, the most allowed, ~300 kB). */
export const PARSED_SHAPES_BYTES = 8 * 1024 * 1024;

/**
 * Bytes the search's grid over a shape holds at most (src/search/shape-grid.ts keeps to it: its cells,
 * the index of its fine cells and as many fine cells as fit), counted with every kept shape.
 */
export const SHAPE_GRID_BYTES = 64 * 1024;

/**
 * Bytes a kept shape holds, with what lives as long as it (the search's test, grid and cache key, kept
 * by the shape object): the text, the grid's most, and per vertex ~200 bytes (its coordinates in the rings' arrays and in
 * the test's typed copies, the test's latitude levels and edge lists, its digits in the key's JSON).
 */
function shapeBytes(shape: LngLatShape, text: string): number {
  const vertices = shape.polygons.reduce((sum, { outer, holes }) => sum + [outer, ...holes].reduce((count, ring) => count + ring.xs.length, 0), 0);
  return 2 * text.length + 200 * vertices + SHAPE_GRID_BYTES + 1_000;
}

const shapes = new LRUCache<string, LngLatShape>({ max: 1_000, maxSize: PARSED_SHAPES_BYTES, sizeCalculation: shapeBytes });

export function parsedPolygon(text: string): LngLatShape {
  let shape = shapes.get(text);
  if (!shape) {
    shape = deepFreeze(parsePolygon(text));
    shapes.set(text, shape);
  }
  return shape;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
