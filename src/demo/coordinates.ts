import { round } from './format.js';
import type { Rng } from './seeded-random.js';

/*
 * Scatters projects and facilities around real locations, so the distances between them (and with them
 * the importer's project-facility links) behave as they would in the real city.
 */

const M_PER_DEG_LAT = 111_320;

/** A point `distanceM` metres from (lat, lng) on a bearing in radians (flat-earth, fine at these scales). */
function offsetPoint(lat: number, lng: number, distanceM: number, bearing: number): [number, number] {
  const dLat = (distanceM * Math.cos(bearing)) / M_PER_DEG_LAT;
  const dLng = (distanceM * Math.sin(bearing)) / (M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180));
  return [round(lat + dLat, 6), round(lng + dLng, 6)];
}

/** Uniform point in the ring between minM and maxM around (lat, lng). */
export function pointNear(rng: Rng, lat: number, lng: number, minM: number, maxM: number): [number, number] {
  const d = Math.sqrt(rng.float(minM * minM, maxM * maxM));
  return offsetPoint(lat, lng, d, rng.float(0, 2 * Math.PI));
}
