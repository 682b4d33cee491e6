import { tileOf } from '../domain/geo.js';
import type { KeyPricing } from '../domain/pricing.js';
import type { Snapshot } from './snapshot.js';

/*
 * GET /projects/clusters on a snapshot: the matching projects (the search's own result, so visibility
 * and every filter are exactly GET /projects') grouped by the web-mercator tile they fall in at the
 * asked zoom (src/domain/geo.ts). When that makes more than `maxClusters` clusters, the grid is
 * coarsened a zoom level at a time until it does not (a tile at zoom z − 1 is exactly four of zoom z,
 * so coarsening only merges clusters). Every matching project has coordinates (the viewport filter
 * requires them), so the counts add up to the search's total.
 */

export interface Cluster {
  /** `zoom/x/y` of the grid tile. */
  tile: string;
  count: number;
  /** Mean of the members' coordinates. */
  centroid: { lat: number; lng: number };
  /** The members' bounding box. */
  bounds: { west: number; south: number; east: number; north: number };
  /** Lowest price_from of the members in the key's prices; null when none has a priced unit. */
  price_from: number | null;
  /** Snapshot index of the only member (a cluster of one), else -1. */
  only: number;
}

export interface Clusters {
  /** The zoom of the grid used (the asked one, or coarser when it made too many clusters). */
  gridZoom: number;
  clusters: Cluster[];
}

interface Cell {
  count: number;
  sumLat: number;
  sumLng: number;
  west: number;
  south: number;
  east: number;
  north: number;
  minCents: number;
  only: number;
}

export function clusterProjects(snapshot: Snapshot, matches: Int32Array, zoom: number, maxClusters: number, pricing: KeyPricing): Clusters {
  const { latitude, longitude, minBaseCents, id } = snapshot.projects;
  // Members in id order: the sums, and so the centroids, do not depend on the search's sort.
  const members = Int32Array.from(matches).sort((a, b) => id[a] - id[b]);
  for (let gridZoom = zoom; ; gridZoom--) {
    const cells = new Map<string, Cell>();
    for (const i of members) {
      const lat = latitude[i];
      const lng = longitude[i];
      const { x, y } = tileOf(lng, lat, gridZoom);
      const tile = `${gridZoom}/${x}/${y}`;
      const cents = minBaseCents[i];
      const cell = cells.get(tile);
      if (!cell) {
        cells.set(tile, { count: 1, sumLat: lat, sumLng: lng, west: lng, south: lat, east: lng, north: lat, minCents: cents, only: i });
        continue;
      }
      cell.count++;
      cell.sumLat += lat;
      cell.sumLng += lng;
      cell.west = Math.min(cell.west, lng);
      cell.east = Math.max(cell.east, lng);
      cell.south = Math.min(cell.south, lat);
      cell.north = Math.max(cell.north, lat);
      // NaN (no priced unit) never wins against a price.
      if (Number.isNaN(cell.minCents) || cents < cell.minCents) cell.minCents = cents;
      cell.only = -1;
    }
    if (cells.size <= maxClusters || gridZoom === 0) {
      const clusters = [...cells].map(([tile, cell]): Cluster => ({
        tile,
        count: cell.count,
        centroid: { lat: cell.sumLat / cell.count, lng: cell.sumLng / cell.count },
        bounds: { west: cell.west, south: cell.south, east: cell.east, north: cell.north },
        price_from: Number.isNaN(cell.minCents) ? null : pricing.keyCents(cell.minCents) / 100,
        only: cell.only,
      }));
      // Largest first; ties by tile, so the order is stable.
      clusters.sort((a, b) => b.count - a.count || (a.tile < b.tile ? -1 : a.tile > b.tile ? 1 : 0));
      return { gridZoom, clusters };
    }
  }
}
