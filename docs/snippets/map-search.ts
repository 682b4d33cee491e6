import type { CatalogueClient } from '@catalogue-api/sdk';

type Viewport = { west: number; south: number; east: number; north: number };

/** A map page: markers for the viewport at the map's zoom, with the same filters as the list beside it. */
export async function mapMarkers(catalogue: CatalogueClient, view: Viewport, mapZoom: number, bedrooms: number[]) {
  const { total, clusters } = await catalogue.listProjectClusters({
    bbox: `${view.west},${view.south},${view.east},${view.north}`, // GeoJSON order: lng before lat
    zoom: Math.min(22, Math.round(mapZoom) + 2), // two levels finer than the map: clusters ~64 px apart
    bedrooms: bedrooms.join(',') || undefined,
    match: bedrooms.length > 0 || undefined, // each cluster's `match`: what its matching units cost
  });
  return {
    total, // the same total as the list of GET /projects with these filters
    markers: clusters.map((cluster) => {
      // With bedrooms, the cheapest matching unit (null: all on request), not the cheapest unit of any size.
      const priceFrom = cluster.match ? cluster.match.price_from : cluster.price_from;
      return cluster.project
        ? { kind: 'project' as const, id: cluster.project.id, label: cluster.project.name, at: cluster.centroid, priceFrom }
        : { kind: 'cluster' as const, label: String(cluster.count), at: cluster.centroid, zoomTo: cluster.bounds, priceFrom };
    }),
  };
}

/** "Search this area" with a drawn shape: GeoJSON straight from the drawing tool, in the POST form (no URL limit). */
export async function projectsInDrawnArea(catalogue: CatalogueClient, drawn: { type: 'Polygon'; coordinates: number[][][] }) {
  const { total, items } = await catalogue.searchProjects({ polygon: drawn, sort: 'price_from', limit: 20 });
  return { total, names: items.map((project) => project.name) };
}
