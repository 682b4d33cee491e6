import type { CatalogueClient, ProjectClusters, ProjectsPage } from '@catalogue-api/sdk';
import { money, moneyShort, unitCount } from './format.js';
import { boxAround, parseBox, parsePolygon } from './map-geometry.js';
import type { Box, MapClusters, MapMarker, MapPageState, MapPlace } from './map-types.js';
import { hasUnitFilters, matchPrice, searchFilters, type SearchFilters, type SearchForm } from './search-form.js';

/*
 * The map page's searches: the list of projects in an area (a viewport or a drawn shape), the
 * clusters for the map's viewport, and where the map first looks. The filters are the search form's,
 * so the map, its list and the search page always agree.
 */

/** The list beside the map shows the first 100 matches (the API's largest page); the summary says how many there are. */
export const MAP_LIST_LIMIT = 100;

/** Where the list was searched: the map's viewport (`bbox=`) or a drawn shape (`polygon=`), as the API takes them. */
export type MapArea = MapPageState['area'];

/** The area from the page's query string; a drawn shape wins over a viewport (the page never sends both). */
export function readMapArea(params: URLSearchParams): MapArea {
  const polygon = params.get('polygon')?.trim();
  const bbox = params.get('bbox')?.trim();
  if (polygon) return { polygon };
  if (bbox) return { bbox };
  return null;
}

/**
 * The filters of the map's searches: the form's, and `match: true` with a unit-level filter (bedrooms, a
 * price bound), so the list and the markers show the matching units' lowest price, as the search page's
 * cards do (the cheapest 2-bed, not the project's cheapest studio).
 */
function mapFilters(form: SearchForm): SearchFilters {
  return { ...searchFilters(form), ...(hasUnitFilters(form) && { match: true }) };
}

/** The matching projects in the area, in the form's order. A drawn shape goes in the body of POST /projects/search: no URL limit. */
export function mapResults(client: CatalogueClient, form: SearchForm, area: MapArea): Promise<ProjectsPage> {
  const query = { ...mapFilters(form), ...(form.sort !== '' && { sort: form.sort }), limit: MAP_LIST_LIMIT };
  if (area && 'polygon' in area) return client.searchProjects({ ...query, polygon: area.polygon });
  return client.listProjects({ ...query, ...area });
}

type Cluster = ProjectClusters['clusters'][number];

/** Markers closer than this on screen are drawn as one: about the width of a cluster marker with its price. */
export const MARKER_SPACING_PX = 56;

/** Where a point is drawn at a zoom, in pixels of the web-mercator world (256 px wide at zoom 0). */
function worldPixel(lat: number, lng: number, zoom: number): [number, number] {
  const size = 256 * 2 ** zoom;
  const sin = Math.sin((lat * Math.PI) / 180);
  return [((lng + 180) / 360) * size, (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size];
}

type Price = Pick<Cluster, 'price_from' | 'currency'>;

/** The lower of two prices, a cluster's or its `match`'s (the site asks for one currency, so both are in it), as the API compares them. */
function lowerPrice(a: Price, b: Price): Price {
  const lower = b.price_from === null || (a.price_from !== null && (a.currency !== b.currency || a.price_from <= b.price_from)) ? a : b;
  return { price_from: lower.price_from, currency: lower.currency };
}

/** The `match` of two clusters drawn as one (asked with `match: true`): units added, the lower price, the smaller size. */
function mergeMatch(a: Cluster['match'], b: Cluster['match']): Cluster['match'] {
  if (!a || !b) return undefined;
  const sizes = [a.size_from, b.size_from].filter((size) => size !== null);
  return { units: a.units + b.units, ...lowerPrice(a, b), size_from: sizes.length === 0 ? null : Math.min(...sizes) };
}

/**
 * The API's clusters are grid cells, and two centroids either side of a cell edge can land on each
 * other: such neighbours (closer than `spacing` pixels at `zoom`, largest first) become one marker with
 * the sum of their counts, the weighted centroid, the union of their bounds and the lower price; with
 * `match` (`match: true`), the sum of its units, its lower price and its smaller size. The counts still
 * add up to the total.
 */
export function mergeCloseClusters(clusters: Cluster[], zoom: number, spacing = MARKER_SPACING_PX): Cluster[] {
  const merged: { cluster: Cluster; at: [number, number] }[] = [];
  for (const cluster of [...clusters].sort((a, b) => b.count - a.count)) {
    const at = worldPixel(cluster.centroid.lat, cluster.centroid.lng, zoom);
    const near = merged.find((marker) => Math.hypot(marker.at[0] - at[0], marker.at[1] - at[1]) < spacing);
    if (!near) {
      merged.push({ cluster, at });
      continue;
    }
    const { cluster: kept } = near;
    const count = kept.count + cluster.count;
    const centroid = {
      lat: (kept.centroid.lat * kept.count + cluster.centroid.lat * cluster.count) / count,
      lng: (kept.centroid.lng * kept.count + cluster.centroid.lng * cluster.count) / count,
    };
    const bounds = {
      west: Math.min(kept.bounds.west, cluster.bounds.west),
      south: Math.min(kept.bounds.south, cluster.bounds.south),
      east: Math.max(kept.bounds.east, cluster.bounds.east),
      north: Math.max(kept.bounds.north, cluster.bounds.north),
    };
    near.cluster = { ...kept, ...lowerPrice(kept, cluster), count, centroid, bounds, project: null, match: mergeMatch(kept.match, cluster.match) };
    near.at = worldPixel(centroid.lat, centroid.lng, zoom);
  }
  return merged.map(({ cluster }) => cluster);
}

/**
 * A marker's price: the cluster's lowest; with a unit-level filter its matching units' lowest, in the
 * search page's words ("2-bed from AED 1.1M · 37 units", "2-bed: price on request · 3 units").
 */
function markerPrice(cluster: Cluster, form: SearchForm): Pick<MapMarker, 'price' | 'words'> {
  const { match } = cluster;
  if (match && hasUnitFilters(form)) {
    const { price_from: amount, currency } = match;
    const units = unitCount(match.units);
    return {
      price: amount === null || currency === null ? null : moneyShort(amount, currency),
      words: { short: `${matchPrice(form, amount, currency, moneyShort)} · ${units}`, full: `${matchPrice(form, amount, currency)} · ${units}` },
    };
  }
  if (cluster.price_from === null || cluster.currency === null) return { price: null, words: null };
  return { price: moneyShort(cluster.price_from, cluster.currency), words: { short: `from ${moneyShort(cluster.price_from, cluster.currency)}`, full: `from ${money(cluster.price_from, cluster.currency)}` } };
}

/**
 * The markers for the map's viewport at its zoom: the API's clusters on the grid of the map's own zoom
 * (cells of 256 px), neighbours that would overlap drawn as one. A drawn shape also limits the clusters.
 */
export async function mapClusters(client: CatalogueClient, form: SearchForm, area: MapArea, bbox: string, mapZoom: number): Promise<MapClusters> {
  const polygon = area && 'polygon' in area ? area.polygon : undefined;
  const zoom = Math.min(22, Math.max(0, Math.round(mapZoom)));
  const { total, clusters } = await client.listProjectClusters({ ...mapFilters(form), ...(polygon && { polygon }), bbox, zoom });
  return {
    total,
    markers: mergeCloseClusters(clusters, zoom).map((cluster) => ({
      count: cluster.count,
      lat: cluster.centroid.lat,
      lng: cluster.centroid.lng,
      bounds: [cluster.bounds.west, cluster.bounds.south, cluster.bounds.east, cluster.bounds.north],
      ...markerPrice(cluster, form),
      project: cluster.project && { id: cluster.project.id, name: cluster.project.name, href: `/projects/${cluster.project.id}` },
    })),
  };
}

const WORLD = '-180,-90,180,90';

/**
 * Where the map first looks: the searched viewport, else the box around every matching project (one
 * cluster of the whole world at zoom 0), else around the places; null (the map's own default) when none.
 */
export async function firstView(client: CatalogueClient, form: SearchForm, area: MapArea, places: MapPlace[]): Promise<Box | null> {
  const shown = area && ('bbox' in area ? parseBox(area.bbox) : boxAround(parsePolygon(area.polygon).flat(2)));
  if (shown) return shown;
  const { clusters } = await client.listProjectClusters({ ...searchFilters(form), bbox: WORLD, zoom: 0 });
  const [all] = clusters;
  if (all) return [all.bounds.west, all.bounds.south, all.bounds.east, all.bounds.north];
  return boxAround(places.map((place) => [place.lng, place.lat]));
}
