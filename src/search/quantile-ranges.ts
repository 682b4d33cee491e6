/*
 * Ranges of values whose edges are quantiles of a sample of them, so that each range holds about as
 * many values whatever their spread (price-per-area-bins.ts, tag-price-ranges.ts). Range b holds
 * edges[b] <= value < edges[b + 1]; edges[0] = -Infinity and edges[ranges] = Infinity. Equal edges (a
 * sample with few distinct values) leave the ranges between them empty.
 */

/** Edges of `ranges` ranges at the quantiles of `sample` (sorted here, in place). */
export function quantileEdges(sample: number[], ranges: number): Float64Array {
  sample.sort((a, b) => a - b);
  const edges = new Float64Array(ranges + 1);
  edges[0] = -Infinity;
  edges[ranges] = Infinity;
  for (let b = 1; b < ranges; b++) edges[b] = sample.length ? sample[Math.floor((b * sample.length) / ranges)] : Infinity;
  return edges;
}

/** The range of a value (not NaN): the last b with edges[b] <= value. */
export function rangeOf(edges: Float64Array, value: number): number {
  let low = 0;
  let high = edges.length - 2;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (edges[middle] <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
