import type { Area, Developer, ProjectListItem, ProjectsPage } from '@catalogue-api/sdk';
import type { SearchCapabilities } from '../capabilities.js';
import { date, imageUrl, money, area as size } from '../format.js';
import { html, type Html } from '../html.js';
import { BEDROOM_CHOICES, PAGE_SIZE, searchHref, type SearchForm } from '../search-form.js';
import { errorBox, layout } from './layout.js';

export interface SearchPageData {
  form: SearchForm;
  capabilities: SearchCapabilities;
  developers: Developer[];
  areas: Area[];
  page?: ProjectsPage;
  error?: { message: string; requestId?: string };
}

/** Facet counts as `[value, count]` pairs, whichever of the two usual shapes the API answers with. */
export function facetEntries(counts: unknown): Array<[string, number]> {
  if (Array.isArray(counts)) {
    return counts.flatMap((entry) => (entry && typeof entry === 'object' && 'count' in entry ? [[String((entry as { value?: unknown }).value), Number((entry as { count: unknown }).count)]] : []));
  }
  if (counts && typeof counts === 'object') return Object.entries(counts).map(([value, count]) => [value, Number(count)]);
  return [];
}

const selected = (on: boolean) => (on ? html` selected` : '');
const checked = (on: boolean) => (on ? html` checked` : '');

function searchForm({ form, capabilities, developers, areas }: SearchPageData): Html {
  return html`<form class="search" method="get" action="/" aria-label="Search projects">
  <fieldset class="chips"><legend>Bedrooms</legend>
    ${BEDROOM_CHOICES.map((choice) => html`<label><input type="checkbox" name="bedrooms" value="${choice.value}"${checked(form.bedrooms.includes(choice.value))}> ${choice.label}</label>`)}
  </fieldset>
  <label><span>Price from (AED)</span><input type="number" name="price_min" min="0" step="1" value="${form.priceMin}"></label>
  <label><span>Price to (AED)</span><input type="number" name="price_max" min="0" step="1" value="${form.priceMax}"></label>
  <label><span>Developer</span><select name="developer"><option value="">Any developer</option>
    ${developers.map((developer) => html`<option value="${developer.id}"${selected(form.developer === String(developer.id))}>${developer.name}</option>`)}
  </select></label>
  ${capabilities.areaParameter
    ? html`<label><span>Area</span><select name="area"><option value="">Any area</option>
    ${areas.map((area) => html`<option value="${area.id}"${selected(form.area === String(area.id))}>${area.name}, ${area.city}</option>`)}
  </select></label>`
    : ''}
  <fieldset class="chips"><legend>Location</legend><label><input type="checkbox" name="near_metro"${checked(form.nearMetro)}> Near metro / public transport</label></fieldset>
  ${capabilities.sort
    ? html`<label><span>Sort by</span><select name="sort"><option value="">Recommended</option>
    ${capabilities.sort.map((value) => html`<option value="${value}"${selected(form.sort === value)}>${sortLabel(value)}</option>`)}
  </select></label>`
    : ''}
  <div><button type="submit">Search</button></div>
</form>`;
}

function sortLabel(value: string): string {
  const descending = value.startsWith('-');
  const name = value.replace(/^-/, '').replace(/_/g, ' ');
  return `${name[0].toUpperCase()}${name.slice(1)}${descending ? ' (high to low)' : ''}`;
}

function card(project: ProjectListItem): Html {
  const photo = imageUrl(project.logo);
  return html`<li class="card" data-project-id="${project.id}" data-price-from="${project.price_from ?? ''}">
  ${photo ? html`<img class="photo" src="${photo}" alt="">` : html`<div class="photo">${project.company.name}</div>`}
  <div class="body">
    <h3><a href="/projects/${project.id}">${project.name}</a></h3>
    <div class="muted">${project.company.name} · handover ${date(project.handover_date)}</div>
    <div class="price">From ${money(project.price_from, project.currency)}</div>
    <div class="muted">From ${size(project.size_from)}</div>
  </div>
</li>`;
}

function facetsPanel(page: ProjectsPage): Html {
  const facets = (page as ProjectsPage & { facets?: Record<string, unknown> }).facets;
  if (!facets || typeof facets !== 'object') return html``;
  return html`<aside class="facets" aria-label="Refine"><strong>Refine</strong>
  ${Object.entries(facets).map(([name, counts]) => html`<h4>${name.replace(/_/g, ' ')}</h4>${facetEntries(counts).map(([value, count]) => html`<span>${value} (${count})</span>`)}`)}
</aside>`;
}

function results(data: SearchPageData): Html {
  const { page, form } = data;
  if (!page) return html``;
  const from = page.total === 0 ? 0 : (form.page - 1) * PAGE_SIZE + 1;
  const to = (form.page - 1) * PAGE_SIZE + page.items.length;
  const lastPage = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  return html`${facetsPanel(page)}
<p class="summary" data-total="${page.total}">${page.total === 0 ? 'No project matches these filters.' : `Projects ${from}–${to} of ${page.total}`}</p>
<ul class="cards">${page.items.map(card)}</ul>
<nav class="pager" aria-label="Pages">
  ${form.page > 1 ? html`<a rel="prev" href="${searchHref(form, form.page - 1)}">← Previous</a>` : ''}
  <span>Page ${form.page} of ${lastPage}</span>
  ${form.page < lastPage ? html`<a rel="next" href="${searchHref(form, form.page + 1)}">Next →</a>` : ''}
</nav>`;
}

export function searchPage(data: SearchPageData): Html {
  return layout('Find your home', html`<h1>Find your home</h1>${searchForm(data)}${data.error ? errorBox(data.error.message, data.error.requestId) : ''}${results(data)}`);
}
