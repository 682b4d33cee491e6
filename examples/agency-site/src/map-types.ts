/*
 * What the map page's script and the site's server say to each other (the browser never talks to
 * the API: the key stays on the server). Types only, so the browser bundle takes nothing else from
 * the server's modules.
 */

/** A box in degrees, GeoJSON order (as `bbox=` of the API takes it). */
export type Box = [west: number, south: number, east: number, north: number];

/** One marker: a cluster of projects, or a single project (a link to its page). */
export interface MapMarker {
  count: number;
  lat: number;
  lng: number;
  /** Where a click on a cluster zooms to. */
  bounds: Box;
  /**
   * The lowest price of its projects, short (`AED 1.2M`), shown on the marker; with a unit-level filter
   * (bedrooms, a price bound), the lowest of their matching units. null when there is none.
   */
  price: string | null;
  /**
   * That price in the search page's words, after the marker's count or project name: `short` in its
   * accessible name (which holds the price shown), `full` in its tooltip. "from AED 1.2M"; with a
   * unit-level filter "2-bed from AED 1.1M · 37 units", or "2-bed: price on request · 3 units" when
   * none of the matching units has a price. null when there is nothing to say.
   */
  words: { short: string; full: string } | null;
  /** A cluster of one: its project. */
  project: { id: number; name: string; href: string } | null;
}

/** GET /map/clusters: the markers for the map's viewport and zoom, or the API's message for a bad request. */
export type MapClusters = { total: number; markers: MapMarker[] } | { error: string };

/** A labelled place drawn on the map's background (the map has no tiles of its own). */
export interface MapPlace {
  name: string;
  city: string;
  lat: number;
  lng: number;
  /** The circle drawn around it, metres. */
  radiusM: number;
}

/** A tile server for a real background map (needs the internet); the demo runs without one. */
export interface MapTiles {
  /** A Leaflet URL template, e.g. `https://tile.example.com/{z}/{x}/{y}.png`. */
  url: string;
  /** Shown in the corner, as the tile provider requires. */
  attribution: string;
}

/** What the page hands its script (the map element's `data-map` attribute, JSON). */
export interface MapPageState {
  /** The search form's query string (filters only). */
  filters: string;
  /** The first view: the searched area, or every matching project, or the places. */
  view: Box | null;
  /** The area the list was searched in, if any: a viewport (`bbox=`) or a drawn shape (`polygon=`, `lng,lat,...`). */
  area: { bbox: string } | { polygon: string } | null;
  places: MapPlace[];
  /** Tiles for the background; without them the page draws the land of `region` (GET /assets/land.json). */
  tiles: MapTiles | null;
  /** How far the map may be moved: the region the site serves land for. */
  region: Box;
}
