import type { ProjectsQuery } from '@catalogue-api/sdk';
import type { SearchCapabilities } from './capabilities.js';

/** What the visitor chose on the search page, as read from the page's query string. */
export interface SearchForm {
  bedrooms: string[];
  priceMin: string;
  priceMax: string;
  developer: string;
  area: string;
  nearMetro: boolean;
  sort: string;
  page: number;
}

export const PAGE_SIZE = 12;
/** Facets the search page has a control for; others the API may offer are not asked for. */
export const FACETS_SHOWN = ['bedrooms', 'developer', 'area', 'development_status'];
export const BEDROOM_CHOICES = [
  { value: '0', label: 'Studio' },
  { value: '1', label: '1' },
  { value: '2', label: '2' },
  { value: '3', label: '3' },
  { value: '4', label: '4' },
  { value: '5', label: '5+' },
] as const;

export function readSearchForm(params: URLSearchParams): SearchForm {
  const page = Number(params.get('page'));
  return {
    bedrooms: params.getAll('bedrooms').filter((value) => BEDROOM_CHOICES.some((choice) => choice.value === value)),
    priceMin: params.get('price_min')?.trim() ?? '',
    priceMax: params.get('price_max')?.trim() ?? '',
    developer: params.get('developer')?.trim() ?? '',
    area: params.get('area')?.trim() ?? '',
    nearMetro: params.get('near_metro') === 'on',
    sort: params.get('sort')?.trim() ?? '',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/**
 * The GET /projects query for a form. Values go to the API as typed: the service validates them and
 * its 400 message is shown on the page. `sort`, `facets` and the area filter are sent only when the
 * API declares them (capabilities.ts); they are not in the generated query type of older documents.
 */
export function projectsQuery(form: SearchForm, capabilities: SearchCapabilities): ProjectsQuery {
  const query: ProjectsQuery = { limit: PAGE_SIZE, offset: (form.page - 1) * PAGE_SIZE };
  // Parameters whose values the page does not check itself (the area filter's name, the sort as the
  // visitor typed it): the service's 400 names a bad one.
  const sent: Record<string, string | number | boolean | undefined> = query;
  if (form.bedrooms.length > 0) query.bedrooms = form.bedrooms.join(',');
  if (form.priceMin !== '') query.price_min = Number(form.priceMin);
  if (form.priceMax !== '') query.price_max = Number(form.priceMax);
  if (form.developer !== '') query.developer_ids = form.developer;
  // Metro stations are facilities of the transport category.
  if (form.nearMetro) query.near_transport = true;
  if (capabilities.areaParameter && form.area !== '') sent[capabilities.areaParameter] = form.area;
  if (capabilities.sort && form.sort !== '') sent.sort = form.sort;
  const facets = FACETS_SHOWN.filter((name) => capabilities.facets?.includes(name));
  if (facets.length > 0) query.facets = facets.join(',');
  return query;
}

/** The page's own query string for a form, on another page of results. */
export function searchHref(form: SearchForm, page: number): string {
  const params = new URLSearchParams();
  for (const bedrooms of form.bedrooms) params.append('bedrooms', bedrooms);
  if (form.priceMin) params.set('price_min', form.priceMin);
  if (form.priceMax) params.set('price_max', form.priceMax);
  if (form.developer) params.set('developer', form.developer);
  if (form.area) params.set('area', form.area);
  if (form.nearMetro) params.set('near_metro', 'on');
  if (form.sort) params.set('sort', form.sort);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `/?${text}` : '/';
}
