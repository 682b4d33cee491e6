import * as L from 'leaflet';
import { parseBox, parsePolygon } from '../map-geometry.js';
import type { Box, MapClusters, MapMarker, MapPageState, MapPlace } from '../map-types.js';

/*
 * The map page's script (bundled with Leaflet by the site, served as /assets/map.js). It asks the
 * site, never the API, for the clusters of the viewport (GET /map/clusters) and for the list of an
 * area (GET /map/results, HTML rendered by the server). The search form's filters apply to both.
 *
 * The map has no tiles unless the site is given a tile server: the demo runs without the internet,
 * so its background is the land of the region (Natural Earth, served by the site) and the demo's
 * communities as labelled circles.
 */

const MAX_ZOOM = 17;
/** Below this zoom the map names cities, from it communities. */
const COMMUNITY_LABELS_FROM = 11;

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
}

const element = byId<HTMLDivElement>('map');
const state = JSON.parse(element.dataset.map ?? '{}') as MapPageState;
const results = byId<HTMLDivElement>('map-results');
const hint = byId<HTMLSpanElement>('map-hint');
const searchAreaButton = byId<HTMLButtonElement>('search-area');
const drawButton = byId<HTMLButtonElement>('draw-area');
const finishButton = byId<HTMLButtonElement>('finish-shape');
const clearButton = byId<HTMLButtonElement>('clear-area');
const bboxField = byId<HTMLInputElement>('area-bbox');
const polygonField = byId<HTMLInputElement>('area-polygon');
element.closest<HTMLElement>('.map-pane')!.hidden = false;

/** Marks an answer in place (`data-state`, and `data-loads` counting them): what the end-to-end tests wait for. */
function loaded(target: HTMLElement): void {
  target.dataset.loads = String(Number(target.dataset.loads ?? 0) + 1);
  target.dataset.state = 'ready';
}

const toBounds = ([west, south, east, north]: Box) => L.latLngBounds([south, west], [north, east]);
const map = L.map(element, { minZoom: 7, maxZoom: MAX_ZOOM, maxBounds: toBounds(state.region), maxBoundsViscosity: 1, zoomSnap: 1 });
map.attributionControl.setPrefix(false);
if (!state.tiles) map.attributionControl.addAttribution('Coastline: Natural Earth (approximate)');

// ---- background -------------------------------------------------------------------------------

function label(text: string, className: string): L.DivIcon {
  const span = document.createElement('span');
  span.textContent = text;
  return L.divIcon({ html: span, className, iconSize: undefined });
}

function drawPlaces(places: MapPlace[]): void {
  map.createPane('places').style.zIndex = '350';
  const pane = 'places';
  for (const place of places) {
    L.circle([place.lat, place.lng], { pane, radius: place.radiusM, stroke: false, fillColor: '#b9cdb0', fillOpacity: 0.5, interactive: false }).addTo(map);
    L.marker([place.lat, place.lng], { pane, icon: label(place.name, 'place-label'), interactive: false, keyboard: false }).addTo(map);
  }
  // A city's name at the middle of its communities, shown when zoomed out.
  const cities = new Map<string, MapPlace[]>();
  for (const place of places) cities.set(place.city, [...(cities.get(place.city) ?? []), place]);
  for (const [city, members] of cities) {
    const middle = L.latLngBounds(members.map((place) => [place.lat, place.lng])).getCenter();
    L.marker(middle, { pane, icon: label(city, 'city-label'), interactive: false, keyboard: false }).addTo(map);
  }
}

/** The land of the region, under everything else; the map's own colour is the sea. */
async function drawLand(): Promise<void> {
  map.createPane('land').style.zIndex = '150';
  const land = (await (await fetch('/assets/land.json')).json()) as GeoJSON.MultiPolygon;
  L.geoJSON(land, { pane: 'land', interactive: false, style: { color: '#cdbf9f', weight: 1, fillColor: '#f4efe4', fillOpacity: 1 } }).addTo(map);
  element.dataset.land = 'ready';
}

if (state.tiles) L.tileLayer(state.tiles.url, { attribution: state.tiles.attribution, maxZoom: MAX_ZOOM }).addTo(map);
else void drawLand();
drawPlaces(state.places);
const showLabels = () => element.classList.toggle('zoomed-out', map.getZoom() < COMMUNITY_LABELS_FROM);
map.on('zoomend', showLabels);

// ---- geometry ---------------------------------------------------------------------------------

const clamp = (value: number, limit: number) => Math.max(-limit, Math.min(limit, value));

/** The viewport as `bbox=` takes it (degrees, 6 decimals, rounded outwards so nothing on screen is left out). */
function viewBox(): string {
  const bounds = map.getBounds();
  const down = (value: number, limit: number) => (Math.floor(clamp(value, limit) * 1e6) / 1e6).toFixed(6);
  const up = (value: number, limit: number) => (Math.ceil(clamp(value, limit) * 1e6) / 1e6).toFixed(6);
  return [down(bounds.getWest(), 180), down(bounds.getSouth(), 90), up(bounds.getEast(), 180), up(bounds.getNorth(), 90)].join(',');
}

/** A drawn ring as `polygon=` takes it: `lng,lat,lng,lat,...`. */
const polygonText = (ring: L.LatLng[]) => ring.map((point) => `${point.lng.toFixed(6)},${point.lat.toFixed(6)}`).join(',');

/** `polygon=` as Leaflet draws it (latitude first). */
const polygonRings = (text: string) => parsePolygon(text).map((polygon) => polygon.map((ring) => ring.map(([lng, lat]): L.LatLngTuple => [lat, lng])));

// ---- the searched area ------------------------------------------------------------------------

const areaLayer = L.layerGroup().addTo(map);
const AREA_STYLE: L.PathOptions = { color: '#1f2430', weight: 2, dashArray: '6 6', fillColor: '#1f2430', fillOpacity: 0.06, interactive: false };

function showArea(): void {
  areaLayer.clearLayers();
  const area = state.area;
  if (area && 'polygon' in area) L.polygon(polygonRings(area.polygon), AREA_STYLE).addTo(areaLayer);
  const box = area && 'bbox' in area ? parseBox(area.bbox) : null;
  if (box) L.rectangle(toBounds(box), AREA_STYLE).addTo(areaLayer);
  clearButton.hidden = area === null && drawing === null;
}

/** The query of the site's endpoints: the form's filters and the area (a drawn shape also limits the clusters). */
function query(extra: Record<string, string>): URLSearchParams {
  const params = new URLSearchParams(state.filters);
  if (state.area) for (const [name, value] of Object.entries(state.area)) params.set(name, value);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params;
}

let resultsRequest: AbortController | undefined;

/** The list for the area, rendered by the server; the address bar and the form's hidden fields follow, so a reload or a filter change keeps the area. */
async function setArea(area: MapPageState['area']): Promise<void> {
  state.area = area;
  bboxField.value = area && 'bbox' in area ? area.bbox : '';
  polygonField.value = area && 'polygon' in area ? area.polygon : '';
  bboxField.disabled = bboxField.value === '';
  polygonField.disabled = polygonField.value === '';
  history.replaceState(null, '', `/map?${query({})}`);
  searchAreaButton.hidden = true;
  showArea();
  void loadClusters();
  resultsRequest?.abort();
  const request = (resultsRequest = new AbortController());
  results.dataset.state = 'loading';
  try {
    const response = await fetch(`/map/results?${query({})}`, { signal: request.signal });
    results.innerHTML = await response.text();
    loaded(results);
  } catch (error) {
    if (!request.signal.aborted) say('The list could not be loaded. Please try again.');
  }
}

// ---- clusters ---------------------------------------------------------------------------------

const markers = L.layerGroup().addTo(map);
let clustersRequest: AbortController | undefined;

/** A piece of a marker's text: read out only, or shown only (the price in short, which its name holds in its words). */
function text(content: string, tag: 'span' | 'strong' = 'span', show: 'read' | 'see' | 'both' = 'both'): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = content;
  if (show === 'read') element.className = 'visually-hidden';
  if (show === 'see') element.setAttribute('aria-hidden', 'true');
  return element;
}

/**
 * A marker's name starts with what it shows (its count, or its project's name when it shows no price)
 * and says its price in the site's words (`words`: "from AED 1.2M", "2-bed from AED 1.1M · 4 units");
 * its tooltip has the price in full.
 */
function icon(marker: MapMarker): L.DivIcon {
  const { price, words } = marker;
  if (marker.project) {
    const { name } = marker.project;
    const link = document.createElement('a');
    link.className = 'pin';
    link.href = marker.project.href;
    link.title = words ? `${name}, ${words.full}` : name;
    Object.assign(link.dataset, { projectId: String(marker.project.id), count: '1' });
    if (price) link.append(text(words ? `${name}, ${words.short}` : name, 'span', 'read'), text(price, 'span', 'see'));
    else link.append(text(name), ...(words ? [text(`, ${words.short}`, 'span', 'read')] : []));
    return L.divIcon({ html: link, className: 'marker', iconSize: undefined });
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = `cluster size-${marker.count < 10 ? 's' : marker.count < 100 ? 'm' : 'l'}`;
  button.dataset.count = String(marker.count);
  button.title = words ? `${marker.count} projects, ${words.full}` : `${marker.count} projects`;
  button.append(text(String(marker.count), 'strong'), text(` projects${words ? `, ${words.short}` : ''}: zoom in`, 'span', 'read'));
  if (price) button.append(text(price, 'span', 'see'));
  return L.divIcon({ html: button, className: 'marker', iconSize: undefined });
}

/** A click on a cluster zooms in on its projects; at the deepest zoom (projects at one spot) it lists them instead. */
function zoomInto(marker: MapMarker): void {
  const bounds = toBounds(marker.bounds);
  if (map.getZoom() >= MAX_ZOOM) {
    void setArea({ bbox: marker.bounds.map((value) => value.toFixed(6)).join(',') });
    return;
  }
  const zoom = Math.min(MAX_ZOOM, Math.max(map.getZoom() + 1, map.getBoundsZoom(bounds.pad(0.3))));
  map.setView(bounds.getCenter(), zoom);
}

async function loadClusters(): Promise<void> {
  clustersRequest?.abort();
  const request = (clustersRequest = new AbortController());
  const bbox = viewBox();
  const zoom = map.getZoom();
  element.dataset.state = 'loading';
  let answer: MapClusters;
  try {
    const response = await fetch(`/map/clusters?${query({ bbox, zoom: String(zoom) })}`, { signal: request.signal });
    answer = (await response.json()) as MapClusters;
  } catch {
    if (!request.signal.aborted) say('The map could not be loaded. Please try again.');
    return;
  }
  markers.clearLayers();
  if ('error' in answer) {
    say(answer.error);
  } else {
    for (const marker of answer.markers) {
      const layer = L.marker([marker.lat, marker.lng], { icon: icon(marker), keyboard: false, riseOnHover: true });
      if (!marker.project) layer.on('click', () => zoomInto(marker));
      layer.addTo(markers);
    }
    element.dataset.total = String(answer.total);
    uncoverMarkers();
  }
  Object.assign(element.dataset, { bbox, zoom: String(zoom) });
  loaded(element);
}

/** A place or city name under a marker is hidden: the marker matters more, and the two would be unreadable. */
function uncoverMarkers(): void {
  const taken = Array.from(element.querySelectorAll('.marker [data-count]'), (marker) => marker.getBoundingClientRect());
  for (const label of element.querySelectorAll<HTMLElement>('.place-label span, .city-label span')) {
    const box = label.getBoundingClientRect();
    label.classList.toggle('covered', taken.some((other) => box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom));
  }
}

// ---- drawing a shape --------------------------------------------------------------------------

let drawing: L.LatLng[] | null = null;
const sketch = L.layerGroup().addTo(map);

function say(text: string): void {
  hint.textContent = text;
}

function redrawSketch(): void {
  sketch.clearLayers();
  if (!drawing) return;
  if (drawing.length > 1) L.polyline([...drawing, ...(drawing.length > 2 ? [drawing[0]] : [])], { color: '#9b3d2e', weight: 2, interactive: false }).addTo(sketch);
  for (const point of drawing) L.circleMarker(point, { radius: 5, color: '#9b3d2e', fillColor: '#fff', fillOpacity: 1, weight: 2, interactive: false }).addTo(sketch);
  finishButton.disabled = drawing.length < 3;
  say(drawing.length < 3 ? `Click the map to add corners (${drawing.length} of at least 3).` : `${drawing.length} corners: add more, or finish the shape.`);
}

function stopDrawing(): void {
  drawing = null;
  redrawSketch();
  element.classList.remove('drawing');
  map.doubleClickZoom.enable();
  finishButton.hidden = true;
  drawButton.hidden = false;
  say('');
}

drawButton.addEventListener('click', () => {
  drawing = [];
  element.classList.add('drawing');
  // A quick second click adds a corner rather than zooming.
  map.doubleClickZoom.disable();
  drawButton.hidden = true;
  finishButton.hidden = false;
  clearButton.hidden = false;
  redrawSketch();
});

map.on('click', (event: L.LeafletMouseEvent) => {
  if (!drawing) return;
  drawing.push(event.latlng);
  redrawSketch();
});

finishButton.addEventListener('click', () => {
  if (!drawing || drawing.length < 3) return;
  const ring = drawing;
  stopDrawing();
  void setArea({ polygon: polygonText(ring) });
});

clearButton.addEventListener('click', () => {
  stopDrawing();
  void setArea(null);
});

// ---- start --------------------------------------------------------------------------------------

searchAreaButton.addEventListener('click', () => void setArea({ bbox: viewBox() }));

if (state.view) map.fitBounds(toBounds(state.view), { padding: [24, 24], maxZoom: 14 });
else map.setView([25.1, 55.2], 10);
showLabels();
showArea();
void loadClusters();
// Only moves after the first view offer a new search.
map.on('moveend', () => {
  searchAreaButton.hidden = false;
  void loadClusters();
});
