import type { Box } from './map-types.js';

/*
 * The two area forms of the API as the map page writes them, read back (by the server for the first
 * view, by the page's script to draw them): `bbox=west,south,east,north` and `polygon=lng,lat,...`
 * (`;` starts a hole, `|` another polygon). Malformed text gives nothing: the API says what is wrong.
 */

export function parseBox(text: string): Box | null {
  const numbers = text.split(',').map(Number);
  if (numbers.length !== 4 || !numbers.every(Number.isFinite)) return null;
  const [west, south, east, north] = numbers;
  return [west, south, east, north];
}

/** Polygons, their rings, their `[lng, lat]` positions. */
export function parsePolygon(text: string): [number, number][][][] {
  return text.split('|').map((polygon) =>
    polygon.split(';').map((ring) => {
      const numbers = ring.split(',').map(Number);
      const positions: [number, number][] = [];
      for (let i = 0; i + 1 < numbers.length; i += 2) if (Number.isFinite(numbers[i]) && Number.isFinite(numbers[i + 1])) positions.push([numbers[i], numbers[i + 1]]);
      return positions;
    }),
  );
}

/** The box around `[lng, lat]` positions; null for none. */
export function boxAround(positions: [number, number][]): Box | null {
  if (positions.length === 0) return null;
  const lngs = positions.map(([lng]) => lng);
  const lats = positions.map(([, lat]) => lat);
  return [Math.min(...lngs), Math.min(...lats), Math.max(...lngs), Math.max(...lats)];
}
