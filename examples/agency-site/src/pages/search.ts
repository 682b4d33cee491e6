import type { Area, Developer, FacetValue, FieldError, ProjectFacets, ProjectListItem, ProjectsPage } from '@catalogue-api/sdk';
import { date, imageUrl, money, priceFrom, area as size, unitCount } from '../format.js';
import { html, type Html } from '../html.js';
import {
  BEDROOM_CHOICES,
  DISPLAY_CURRENCIES,
  FACETS,
  hasUnitFilters,
  lastPage,
  matchPrice,
  PAGE_SIZE,
  SORT_LABELS,
  searchHref,
  searchProblems,
  type SearchForm,
  type SearchProblem,
} from '../search-form.js';
import { layout } from './layout.js';

/** The API's refusal of a search (a hand-edited address): its message and, per field, `errors[]` (the SDK's CatalogueApiError). */
export interface SearchError {
  message: string;
  requestId?: string;
  errors?: FieldError[];
}

export interface SearchPageData {
  form: SearchForm;
  developers: Developer[];
  areas: Area[];
  page?: ProjectsPage;
  error?: SearchError;
}

/**
 * The refusal in the form's words (each problem names the control by its label, never the API's
 * parameter), with the request id for support. Each problem about a control has an id that control
 * points to (aria-describedby).
 */
export function searchErrorBox(error: SearchError, form: Pick<SearchForm, 'currency'>): Html {
  const problems = searchProblems(error, form);
  const id = (problem: SearchProblem) => (problem.field ? html` id="search-error-${problem.field}"` : '');
  const body =
    problems.length === 1
      ? html`<strong${id(problems[0])}>${problems[0].text}</strong>`
      : html`<strong>Please check the search:</strong><ul>${problems.map((problem) => html`<li${id(problem)}>${problem.text}</li>`)}</ul>`;
  return html`<div class="error" role="alert">${body}${error.requestId ? html`<small>Reference: ${error.requestId}</small>` : ''}</div>`;
}

const selected = (on: boolean) => (on ? html` selected` : '');
const checked = (on: boolean) => (on ? html` checked` : '');
export const hidden = (name: string, value: string) => (value ? html`<input type="hidden" name="${name}" value="${value}">` : '');

/** The search form; the map page sends it to itself, with the searched area (`more`) kept in hidden fields. */
export function searchForm({ form, developers, error }: Pick<SearchPageData, 'form' | 'developers' | 'error'>, action = '/', more: Html = html``): Html {
  // The controls a refusal is about are marked, and point to the problem's words in the error box.
  const fields = new Set(error ? searchProblems(error, form).map((problem) => problem.field) : []);
  const invalid = (field: NonNullable<SearchProblem['field']>) => (fields.has(field) ? html` aria-invalid="true" aria-describedby="search-error-${field}"` : '');
  return html`<form class="search" method="get" action="${action}" aria-label="Search projects">
  <fieldset class="chips"${fields.has('bedrooms') ? html` aria-describedby="search-error-bedrooms"` : ''}><legend>Bedrooms</legend>
    ${BEDROOM_CHOICES.map((choice) => html`<label><input type="checkbox" name="bedrooms" value="${choice.value}"${checked(form.bedrooms.includes(choice.value))}> ${choice.label}</label>`)}
  </fieldset>
  <label><span>Currency</span><select name="currency">
    ${DISPLAY_CURRENCIES.map((code) => html`<option value="${code}"${selected(form.currency === code)}>${code}</option>`)}
  </select></label>
  <label><span>Price from (${form.currency})</span><input type="number" name="price_min" min="0" step="1" value="${form.priceMin}"${invalid('price_min')}></label>
  <label><span>Price to (${form.currency})</span><input type="number" name="price_max" min="0" step="1" value="${form.priceMax}"${invalid('price_max')}></label>
  <label><span>Developer</span><select name="developer"${invalid('developer')}><option value="">Any developer</option>
    ${developers.map((developer) => html`<option value="${developer.id}"${selected(form.developer === String(developer.id))}>${developer.name}</option>`)}
  </select></label>
  <fieldset class="chips"><legend>Location</legend><label><input type="checkbox" name="near_metro"${checked(form.nearMetro)}${invalid('near_metro')}> Near metro / public transport</label></fieldset>
  <label><span>Sort by</span><select name="sort">
    ${Object.entries(SORT_LABELS).map(([value, label]) => html`<option value="${value}"${selected(form.sort === value)}>${label}</option>`)}
  </select></label>
  ${hidden('development_status', form.developmentStatus)}${hidden('unit_type', form.unitType)}${more}
  <div><button type="submit">Search</button></div>
</form>`;
}

/** How the Refine panel shows one facet, and which filter its values apply. */
interface FacetView {
  title: string;
  /** The form's fields with this facet's filter set to the value alone (only for values the API marks `filterable`). */
  apply?(value: number): Partial<SearchForm>;
  /** The form's fields with this facet's filter cleared. */
  clear?: Partial<SearchForm>;
  /** The values the form filters on now. */
  chosen: string[];
}

function facetViews({ form }: SearchPageData): Record<(typeof FACETS)[number], FacetView> {
  const one = (value: string) => (value === '' ? [] : [value]);
  return {
    bedrooms: { title: 'Bedrooms', apply: (value) => ({ bedrooms: [String(value)] }), clear: { bedrooms: [] }, chosen: form.bedrooms },
    developer: { title: 'Developer', apply: (id) => ({ developer: String(id) }), clear: { developer: '' }, chosen: one(form.developer) },
    // GET /projects has no area filter: the API marks every area value `filterable: false`.
    area: { title: 'Area', chosen: [] },
    development_status: {
      title: 'Development status',
      apply: (value) => ({ developmentStatus: String(value) }),
      clear: { developmentStatus: '' },
      chosen: one(form.developmentStatus),
    },
    unit_types: { title: 'Property type', apply: (value) => ({ unitType: String(value) }), clear: { unitType: '' }, chosen: one(form.unitType) },
  };
}

/**
 * The facet counts, named by the API (`label`). A value the API marks `filterable` links to the
 * search with that facet's filter set to it alone and the other filters kept, so its count is the
 * total that search shows (the API counts each facet under every filter but its own); the others
 * (areas, development status 0) are counts without a link, never a link that would answer 400.
 */
function refinePanel(data: SearchPageData, facets: ProjectFacets): Html {
  const views = facetViews(data);
  const href = (change: Partial<SearchForm>) => searchHref({ ...data.form, ...change }, 1);
  return html`<aside class="facets" aria-labelledby="refine-title"><h2 id="refine-title">Refine</h2><div class="groups">
  ${FACETS.map((name) => {
    const view = views[name];
    const counts: FacetValue[] = facets[name] ?? [];
    if (counts.length === 0 && view.chosen.length === 0) return '';
    return html`<section data-facet="${name}"><h3>${view.title}</h3><ul>
    ${counts.map(({ value, label, filterable, count }) => {
      const chosen = view.chosen.includes(String(value));
      const change = chosen || !filterable || typeof value !== 'number' ? undefined : view.apply?.(value);
      const text = html`${label ?? `${view.title} ${value}`} <span class="count">(${count})</span>`;
      return html`<li data-value="${value}" data-count="${count}"${chosen ? html` aria-current="true"` : ''}>${change ? html`<a href="${href(change)}">${text}</a>` : text}</li>`;
    })}</ul>${view.chosen.length > 0 && view.clear ? html`<a class="clear" href="${href(view.clear)}">Any ${view.title.toLowerCase()}</a>` : ''}</section>`;
  })}
</div></aside>`;
}

/**
 * A card's figures. With a unit-level filter (bedrooms, a price bound) they are those of the units that
 * match it (`match`, asked for with `match: true`): "2-bed from $300,493 · 16 units", with the project's
 * own lowest price beside them, which is what the price order compares. Without one, the project's own.
 */
function figures(project: ProjectListItem, form: SearchForm): Html {
  const { match } = project;
  if (!match || !hasUnitFilters(form)) {
    return html`<div class="price">${priceFrom(project.price_from, project.currency)}</div>
    ${project.size_from === null ? '' : html`<div class="muted">From ${size(project.size_from)}</div>`}`;
  }
  return html`<div class="price">${matchPrice(form, match.price_from, project.currency)}</div>
    <div class="muted">${unitCount(match.units)}${match.size_from === null ? '' : ` · from ${size(match.size_from)}`}</div>
    ${project.price_from === null ? '' : html`<div class="muted">All units from ${money(project.price_from, project.currency)}</div>`}`;
}

function card(project: ProjectListItem, form: SearchForm): Html {
  const photo = imageUrl(project.logo);
  const match = hasUnitFilters(form) ? project.match : undefined;
  return html`<li class="card" data-project-id="${project.id}" data-price-from="${project.price_from ?? ''}"${match ? html` data-match-price-from="${match.price_from ?? ''}" data-match-units="${match.units}"` : ''}>
  ${photo ? html`<img class="photo" src="${photo}" alt="">` : html`<div class="photo">${project.company.name}</div>`}
  <div class="body">
    <h3><a href="/projects/${project.id}">${project.name}</a></h3>
    <div class="muted">${project.company.name} · handover ${date(project.handover_date)}</div>
    ${figures(project, form)}
  </div>
</li>`;
}

/**
 * The API orders by a project's own figures (`sort=price_from`: its lowest price over all its units),
 * also when a card shows the matching units' figures: say so, rather than let the cards look out of order.
 */
export function orderNote(form: SearchForm): string {
  if (!hasUnitFilters(form)) return '';
  if (form.sort === 'price_from' || form.sort === '-price_from') return 'Ordered by each project’s lowest price over all its units, not by the matching units’ prices.';
  if (form.sort === 'size_from' || form.sort === '-size_from') return 'Ordered by each project’s smallest unit of any kind.';
  return '';
}

function results(data: SearchPageData): Html {
  const { page, form } = data;
  if (!page) return html``;
  const from = page.total === 0 ? 0 : (form.page - 1) * PAGE_SIZE + 1;
  const to = (form.page - 1) * PAGE_SIZE + page.items.length;
  const last = lastPage(page.total);
  const note = page.total > 0 ? orderNote(form) : '';
  return html`${page.facets ? refinePanel(data, page.facets) : ''}
<p class="summary" data-total="${page.total}">${page.total === 0 ? 'No project matches these filters.' : `Projects ${from}–${to} of ${page.total}`}</p>
${note ? html`<p class="muted order-note">${note}</p>` : ''}
<ul class="cards">${page.items.map((project) => card(project, form))}</ul>
<nav class="pager" aria-label="Pages">
  ${form.page > 1 ? html`<a rel="prev" href="${searchHref(form, form.page - 1)}">← Previous</a>` : ''}
  <span>Page ${form.page} of ${last}</span>
  ${form.page < last ? html`<a rel="next" href="${searchHref(form, form.page + 1)}">Next →</a>` : ''}
</nav>`;
}

export function searchPage(data: SearchPageData): Html {
  return layout('Find your home', html`<h1>Find your home</h1>${searchForm(data)}${data.error ? searchErrorBox(data.error, data.form) : ''}${results(data)}`);
}
