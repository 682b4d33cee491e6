import { clearOutsideBox, type LngLatBox } from '../domain/geo.js';
import { andInto } from './byte-masks.js';
import { perObject } from '../lib/per-object.js';
import type { ProjectColumns } from './snapshot.js';

/*
 * The column form of a box (`bbox`, and a drawn shape's box): clears mask[i] for each project outside
 * it, as geo.ts's inBox decides (edges inside, no coordinates never inside). A box on the map holds a
 * band of latitudes: the projects in latitude order (made once per snapshot) give the band's projects
 * by two binary searches, and only they are tested for longitude, where a scan reads both coordinates
 * of every project (docs/performance.md, "Box and drawn-shape filters"). A band holding most projects
 * is scanned: the band's answers are written at random (by project index), which costs more than the
 * scan once most projects are written.
 */

/** A snapshot's coordinate columns (its `projects`). */
type Coordinates = Pick<ProjectColumns, 'longitude' | 'latitude' | 'count'>;

/** The projects with a latitude, in latitude order, and those latitudes: per snapshot (its columns object). */
const byLatitude = perObject(({ latitude, longitude, count }: Coordinates) => {
  const order = Int32Array.from({ length: count }, (_, i) => i).filter((i) => !Number.isNaN(latitude[i]));
  order.sort((a, b) => latitude[a] - latitude[b]);
  // The longitudes in the same order: the band reads both front to back (by index, the longitudes of
  // a band are read at random: at 20,000 projects 160 kB, outside the processor's nearest caches).
  return { order, latitudes: Float64Array.from(order, (i) => latitude[i]), longitudes: Float64Array.from(order, (i) => longitude[i]) };
});

/** The first k with values[k] >= bound (or > bound when `after`); values ascending. */
function firstFrom(values: Float64Array, bound: number, after: boolean): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (after ? values[middle] <= bound : values[middle] < bound) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The band's bytes, grown to the largest snapshot seen (a search runs to its end without yielding). */
let inside = new Uint8Array(0);

/**
 * The projects with a latitude from `south` to `north` (inclusive): order[k] for k from `from` to `to`
 * (excluded), with their coordinates at k in `latitudes` and `longitudes` (read front to back).
 */
export interface LatitudeBand {
  order: Int32Array;
  latitudes: Float64Array;
  longitudes: Float64Array;
  from: number;
  to: number;
}

export function latitudeBand(projects: Coordinates, south: number, north: number): LatitudeBand {
  const { order, latitudes, longitudes } = byLatitude(projects);
  return { order, latitudes, longitudes, from: firstFrom(latitudes, south, false), to: firstFrom(latitudes, north, true) };
}

export function keepInBox(mask: Uint8Array, projects: Coordinates, box: LngLatBox): void {
  const { longitude, latitude } = projects;
  const { order, longitudes, from, to } = latitudeBand(projects, box.south, box.north);
  if ((to - from) * 2 > mask.length) {
    clearOutsideBox(mask, longitude, latitude, box);
    return;
  }
  if (inside.length < mask.length) inside = new Uint8Array(mask.length);
  const band = inside.subarray(0, mask.length);
  band.fill(0);
  const { west, east } = box;
  for (let k = from; k < to; k++) {
    const lng = longitudes[k];
    band[order[k]] = +(lng >= west) & +(lng <= east);
  }
  andInto(mask, band);
}
