import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Box } from './map-types.js';

/*
 * The map's background without tiles or the internet: the land of the countries around the catalogue,
 * from Natural Earth's 1:10m countries (public domain; the `world-atlas` package), cut to a region and
 * served by the site as GeoJSON. Natural Earth is approximate at city scale (coastlines to a few hundred
 * metres; reclaimed islands such as the Palm are missing): it says where the sea is, not the streets.
 */

/** The region the map shows: the UAE and its neighbours' nearby coasts (the catalogue is the UAE's). */
export const LAND_REGION: Box = [50.5, 21.5, 57.5, 27.5];

type Position = [number, number];

/** Sutherland–Hodgman: a ring cut to the inside of one edge of the box. */
function clipEdge(ring: Position[], inside: (point: Position) => boolean, cross: (a: Position, b: Position) => Position): Position[] {
  const out: Position[] = [];
  ring.forEach((point, i) => {
    const previous = ring[(i + ring.length - 1) % ring.length];
    if (inside(point)) {
      if (!inside(previous)) out.push(cross(previous, point));
      out.push(point);
    } else if (inside(previous)) {
      out.push(cross(previous, point));
    }
  });
  return out;
}

/** A ring cut to the box (for filling: where it runs along the box's edge it may fold onto itself, which a fill does not show). */
export function clipRing(ring: Position[], [west, south, east, north]: Box): Position[] {
  const atLng = (lng: number) => (a: Position, b: Position): Position => [lng, a[1] + ((b[1] - a[1]) * (lng - a[0])) / (b[0] - a[0])];
  const atLat = (lat: number) => (a: Position, b: Position): Position => [a[0] + ((b[0] - a[0]) * (lat - a[1])) / (b[1] - a[1]), lat];
  let out = clipEdge(ring, ([lng]) => lng >= west, atLng(west));
  out = clipEdge(out, ([lng]) => lng <= east, atLng(east));
  out = clipEdge(out, ([, lat]) => lat >= south, atLat(south));
  return clipEdge(out, ([, lat]) => lat <= north, atLat(north));
}

/** The land in `region` as a GeoJSON MultiPolygon (coordinates to 4 decimals, ~10 m: finer than the data). */
export async function landIn(region: Box): Promise<{ type: 'MultiPolygon'; coordinates: Position[][][] }> {
  const topology = JSON.parse(await readFile(createRequire(import.meta.url).resolve('world-atlas/countries-10m.json'), 'utf8')) as Topology<{ countries: GeometryCollection }>;
  const polygons: Position[][][] = [];
  for (const country of feature(topology, topology.objects.countries).features) {
    const geometry = country.geometry;
    const parts = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [];
    for (const part of parts) {
      const [outer, ...holes] = part.map((ring) => clipRing(ring.map(([lng, lat]): Position => [lng, lat]), region));
      // A polygon outside the region is left out, holes and all.
      if (!outer || outer.length < 3) continue;
      polygons.push([outer, ...holes.filter((ring) => ring.length >= 3)].map((ring) => ring.map(([lng, lat]): Position => [Math.round(lng * 1e4) / 1e4, Math.round(lat * 1e4) / 1e4])));
    }
  }
  return { type: 'MultiPolygon', coordinates: polygons };
}
