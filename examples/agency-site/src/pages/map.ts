import type { Developer, ProjectListItem, ProjectsPage } from '@catalogue-api/sdk';
import { priceFrom, unitCount } from '../format.js';
import { html, type Html } from '../html.js';
import type { MapArea } from '../map-search.js';
import { MAP_LIST_LIMIT } from '../map-search.js';
import type { MapPageState } from '../map-types.js';
import { hasUnitFilters, matchPrice, searchHref, type SearchForm } from '../search-form.js';
import { layout } from './layout.js';
import { orderNote, searchErrorBox, searchForm, type SearchError } from './search.js';

export interface MapListData {
  /** The search: its display currency (a refusal names the price fields with it) and whether it has a unit-level filter (the prices are then the matching units'). */
  form: SearchForm;
  area: MapArea;
  page?: ProjectsPage;
  error?: SearchError;
}

export interface MapPageData extends MapListData {
  form: SearchForm;
  developers: Developer[];
  state: MapPageState;
}

function summary(area: MapArea, page: ProjectsPage): string {
  const where = area === null ? '' : 'bbox' in area ? ' in the searched area' : ' in the drawn area';
  if (page.total === 0) return `No project matches these filters${where}.`;
  const count = `${page.total} project${page.total === 1 ? '' : 's'}${where}`;
  return page.total > page.items.length ? `${count}, the first ${page.items.length} shown` : count;
}

/**
 * One project of the list: its lowest price; with a unit-level filter (bedrooms, a price bound) that of
 * its matching units and how many there are, in the search page's words ("2-bed from AED 1,103,560", "4 units").
 */
function listItem(project: ProjectListItem, form: SearchForm): Html {
  const match = hasUnitFilters(form) ? project.match : undefined;
  const price = match ? matchPrice(form, match.price_from, project.currency) : priceFrom(project.price_from, project.currency);
  return html`<li${match ? html` class="matched"` : ''} data-project-id="${project.id}" data-price-from="${project.price_from ?? ''}"${match ? html` data-match-price-from="${match.price_from ?? ''}" data-match-units="${match.units}"` : ''}><a href="/projects/${project.id}">${project.name}</a><span class="muted">${project.company.name}</span><span class="price">${price}</span>${match ? html`<span class="units">${unitCount(match.units)}</span>` : ''}</li>`;
}

/**
 * The list beside the map (also answered alone by GET /map/results, which the map's script puts in
 * place after "Search this area" or a drawn shape): the matching projects with their lowest price (the
 * matching units' with a unit-level filter).
 */
export function mapList(data: MapListData): Html {
  const { page, error, area, form } = data;
  const kind = area === null ? '' : 'bbox' in area ? 'bbox' : 'polygon';
  if (!page) return html`<section class="map-list" aria-labelledby="map-list-title" data-area="${kind}"><h2 id="map-list-title">Projects</h2>${error ? searchErrorBox(error, form) : ''}</section>`;
  return html`<section class="map-list" aria-labelledby="map-list-title" data-total="${page.total}" data-area="${kind}" data-area-value="${area === null ? '' : 'bbox' in area ? area.bbox : area.polygon}">
<h2 id="map-list-title">${summary(area, page)}</h2>
${page.total > 0 && orderNote(form) ? html`<p class="muted order-note">${orderNote(form)}</p>` : ''}
<ol class="map-items">${page.items.map((project) => listItem(project, form))}</ol>
${page.total > MAP_LIST_LIMIT ? html`<p class="muted">Zoom in and search this area, or draw a smaller one, to see the others.</p>` : ''}
</section>`;
}

/** The map page: the search form (its filters apply to the map and the list), the map with its tools, and the list. */
export function mapPage(data: MapPageData): Html {
  const { form, state } = data;
  const area = state.area;
  const chosen = [form.bedrooms.length > 0, form.priceMin, form.priceMax, form.developer, form.developmentStatus, form.unitType, form.nearMetro].filter(Boolean).length;
  // The searched area goes along when the filters change; the script keeps these two fields up to date.
  const areaFields = html`<input type="hidden" id="area-bbox" name="bbox" value="${area && 'bbox' in area ? area.bbox : ''}"${area && 'bbox' in area ? '' : html` disabled`}><input type="hidden" id="area-polygon" name="polygon" value="${area && 'polygon' in area ? area.polygon : ''}"${area && 'polygon' in area ? '' : html` disabled`}>`;
  return layout(
    'Map search',
    html`<h1>Map search</h1>
<details class="filters"${data.error ? html` open` : ''}><summary>Filters${chosen > 0 ? ` (${chosen})` : ''}</summary>${searchForm(data, '/map', areaFields)}</details>
<noscript><p class="notice">The map needs JavaScript, which is off in this browser. The list below works without it, and so does the <a href="${searchHref(form, 1)}">search page</a>.</p></noscript>
<div class="map-layout">
  <div class="map-pane" hidden>
    <div class="map-tools" role="toolbar" aria-label="Map tools">
      <button type="button" id="draw-area" class="secondary">Draw an area</button>
      <button type="button" id="finish-shape" hidden disabled>Finish shape</button>
      <button type="button" id="clear-area" class="secondary" hidden>Clear</button>
      <span id="map-hint" class="map-hint" aria-live="polite"></span>
    </div>
    <div class="map-frame">
      <div id="map" class="map" role="region" aria-label="Map of the matching projects" data-map="${JSON.stringify(state)}"></div>
      <button type="button" id="search-area" class="search-area" hidden>Search this area</button>
    </div>
  </div>
  <div id="map-results" class="map-results">${mapList(data)}</div>
</div>`,
    html`<link rel="stylesheet" href="/assets/leaflet.css">
<script src="/assets/map.js" type="module"></script>
`,
  );
}
