import { compareAedValue } from '../domain/currency.js';
import { MAX_ZOOM, mercatorX, mercatorY, tileAt, tileIndex } from '../domain/geo.js';
import type { KeyPricing } from '../domain/pricing.js';
import { shownPrice, type DisplayPrices } from './display-prices.js';
import type { Matches } from './matches.js';
import type { Snapshot } from './snapshot.js';
import type { WhatMatched } from './what-matched.js';
import { perSnapshot } from './per-snapshot.js';

/*
 * GET /projects/clusters on a snapshot: the matching projects (the search's own result, so visibility
 * and every filter are exactly GET /projects') grouped by the web-mercator tile they fall in at the
 * asked zoom (src/domain/geo.ts). When that makes more than `maxClusters` clusters, the grid is
 * coarsened a zoom level at a time until it does not (a tile at zoom z − 1 is exactly four of zoom z,
 * so coarsening only merges clusters). Every matching project has coordinates (the viewport filter
 * requires them), so the counts add up to the search's total. A cluster's lowest price is its member's
 * that comes first in the price_from order (by value in AED, so a mixed catalogue compares value, not
 * numbers; no rate counts as no price), shown as GET /projects shows that project: in the key's prices,
 * in its own currency or in the `currency=` asked for.
 */

export interface Cluster {
  /** `zoom/x/y` of the grid tile. */
  tile: string;
  count: number;
  /** Mean of the members' coordinates. */
  centroid: { lat: number; lng: number };
  /** The members' bounding box. */
  bounds: { west: number; south: number; east: number; north: number };
  /** Lowest price_from of the members by value, as GET /projects shows it; null when none has a priced unit. */
  price_from: number | null;
  /** The currency of price_from; null with it. */
  currency: string | null;
  /** Snapshot index of the only member (a cluster of one), else -1. */
  only: number;
  /** With `match=true`: what matched inside the members (what-matched.ts). */
  match?: ClusterMatch;
}

export interface ClusterMatch {
  /** The members' matching units. */
  units: number;
  /** The lowest of the members' match prices by value, as GET /projects shows it; null when no matching unit has a price. */
  price_from: number | null;
  currency: string | null;
  /** The smallest matching unit area; null when none. */
  size_from: number | null;
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
  /** The member first in the price_from order (-1: none yet). */
  cheapest: number;
  only: number;
  /** With `match=true`: the sum of the members' matching units, the member of the lowest match price by value (-1: none) and that price, the smallest area. */
  matchUnits: number;
  matchCheapest: number;
  matchCents: number;
  matchSize: number;
}

/** Each project's position in the ascending price_from order, per snapshot. */
const priceRanks = perSnapshot((snapshot) => {
  const ascending = snapshot.orders.price_from.ascending;
  const rank = new Int32Array(ascending.length);
  for (let k = 0; k < ascending.length; k++) rank[ascending[k]] = k;
  return rank;
});

/*
 * Each project's tile column and row at MAX_ZOOM, per snapshot (a tile at any zoom is then a shift,
 * geo.ts tileAt): the tangent and inverse sine of a latitude cost more than the rest of a member's
 * work, and a project's do not change with the request.
 */
const tilesOf = perSnapshot(({ projects: { latitude, longitude } }) => ({
  x: Int32Array.from(longitude, (lng) => tileIndex(mercatorX(lng), MAX_ZOOM)),
  y: Int32Array.from(latitude, (lat) => tileIndex(mercatorY(lat), MAX_ZOOM)),
}));

/**
 * `matched` (with `match=true`) adds each cluster's `match`: the members' matching units summed, the
 * lowest of their match prices chosen by value as `price_from` is (so across currencies by value in
 * AED, no rate counting as no price, ties by id), the smallest area.
 */
export function clusterProjects(
  snapshot: Snapshot,
  matches: Matches,
  zoom: number,
  maxClusters: number,
  pricing: KeyPricing,
  display?: DisplayPrices,
  matched?: WhatMatched,
): Clusters {
  const { latitude, longitude, minBaseCents, currencyIndex, currencies } = snapshot.projects;
  const rank = priceRanks(snapshot);
  const tile = tilesOf(snapshot);
  const priced = (i: number) => !Number.isNaN(minBaseCents[i]);
  // Members in id order: the sums, and so the centroids, do not depend on the search's sort. A
  // snapshot's projects are in id order, so this is their indexes' numeric order (a native sort).
  const members = matches.inIdOrder();
  /** As GET /projects shows a price of project i (find-projects.ts): converted when `currency=` has a rate for it. */
  const priceOf = (i: number, cents: number): { price_from: number | null; currency: string | null } => {
    if (i < 0) return { price_from: null, currency: null };
    const converted = display?.from[currencyIndex[i]];
    return { price_from: shownPrice(cents, pricing, converted), currency: converted ? (JSON.parse(display!.json) as string) : currencies[currencyIndex[i]] };
  };
  // Each member's match, worked out once (not once per grid tried).
  const memberMatch = matched && Array.from(members, (i) => ({ ...matched.of(i) }));
  const aedPerUnit = Float64Array.from(currencies, (currency) => snapshot.rates.aedPerUnit(currency) ?? Number.NaN);
  /** Whether a match price (cents) of member i comes before the cell's (of member j) by value; members come in id order, so a tie keeps j. */
  const cheaperMatch = (i: number, cents: number, j: number, current: number): boolean => {
    const [a, b] = [aedPerUnit[currencyIndex[i]], aedPerUnit[currencyIndex[j]]];
    if (Number.isNaN(b)) return !Number.isNaN(a);
    return !Number.isNaN(a) && compareAedValue(cents, a, current, b) < 0;
  };
  for (let gridZoom = zoom; ; gridZoom--) {
    // Keyed by x * 2^zoom + y (below 2^44 at zoom 22: exact as a double); `zoom/x/y` only for the answer.
    const cells = new Map<number, Cell>();
    const columns = 2 ** gridZoom;
    for (let k = 0; k < members.length; k++) {
      const i = members[k];
      const lat = latitude[i];
      const lng = longitude[i];
      const key = tileAt(tile.x[i], gridZoom) * columns + tileAt(tile.y[i], gridZoom);
      const cell = cells.get(key);
      const found = memberMatch?.[k];
      if (!cell) {
        cells.set(key, {
          count: 1, sumLat: lat, sumLng: lng, west: lng, south: lat, east: lng, north: lat, cheapest: priced(i) ? i : -1, only: i,
          matchUnits: found?.units ?? 0,
          matchCheapest: found && !Number.isNaN(found.minBaseCents) ? i : -1,
          matchCents: found?.minBaseCents ?? Number.NaN,
          matchSize: found?.minArea ?? Number.NaN,
        });
        continue;
      }
      if (found) {
        cell.matchUnits += found.units;
        if (!Number.isNaN(found.minBaseCents) && (cell.matchCheapest < 0 || cheaperMatch(i, found.minBaseCents, cell.matchCheapest, cell.matchCents))) {
          cell.matchCheapest = i;
          cell.matchCents = found.minBaseCents;
        }
        if (!(cell.matchSize <= found.minArea)) cell.matchSize = found.minArea;
      }
      cell.count++;
      cell.sumLat += lat;
      cell.sumLng += lng;
      cell.west = Math.min(cell.west, lng);
      cell.east = Math.max(cell.east, lng);
      cell.south = Math.min(cell.south, lat);
      cell.north = Math.max(cell.north, lat);
      if (priced(i) && (cell.cheapest < 0 || rank[i] < rank[cell.cheapest])) cell.cheapest = i;
      cell.only = -1;
    }
    if (cells.size <= maxClusters || gridZoom === 0) {
      const clusters = [...cells].map(([key, cell]): Cluster => ({
        tile: `${gridZoom}/${Math.floor(key / columns)}/${key % columns}`,
        count: cell.count,
        centroid: { lat: cell.sumLat / cell.count, lng: cell.sumLng / cell.count },
        bounds: { west: cell.west, south: cell.south, east: cell.east, north: cell.north },
        ...priceOf(cell.cheapest, cell.cheapest < 0 ? Number.NaN : minBaseCents[cell.cheapest]),
        only: cell.only,
        ...(matched && {
          match: {
            units: cell.matchUnits,
            ...priceOf(cell.matchCheapest, cell.matchCents),
            size_from: Number.isNaN(cell.matchSize) ? null : cell.matchSize,
          },
        }),
      }));
      // Largest first; ties by tile, so the order is stable.
      clusters.sort((a, b) => b.count - a.count || (a.tile < b.tile ? -1 : a.tile > b.tile ? 1 : 0));
      return { gridZoom, clusters };
    }
  }
}
