import type { ProjectsPage, ProjectsQuery } from '@catalogue-api/sdk';

/** What the visitor chose on the search page, as read from the page's query string. */
export interface SearchForm {
  bedrooms: string[];
  priceMin: string;
  priceMax: string;
  developer: string;
  /** Set from the Refine panel only (one value, as the `development_status` filter takes it). */
  developmentStatus: string;
  /** Set from the Refine panel only (one project type, as the `unit_types` filter takes it). */
  unitType: string;
  nearMetro: boolean;
  sort: SortChoice | '';
  /** The display currency: every price and both price inputs are in it (`currency=` of GET /projects). */
  currency: DisplayCurrency;
  page: number;
}

/** The currencies the visitor may display prices in (the demo catalogue has a rate for each, GET /currencies). */
export const DISPLAY_CURRENCIES = ['AED', 'USD', 'EUR', 'GBP', 'RUB', 'INR', 'CNY'] as const;
export type DisplayCurrency = (typeof DISPLAY_CURRENCIES)[number];

export const PAGE_SIZE = 12;
export const BEDROOM_CHOICES = [
  { value: '0', label: 'Studio' },
  { value: '1', label: '1' },
  { value: '2', label: '2' },
  { value: '3', label: '3' },
  { value: '4', label: '4' },
  { value: '5', label: '5+' },
] as const;

type Sort = NonNullable<ProjectsQuery['sort']>;
/** The orders the page offers, first the API's default; `distance` needs a search centre, which the page never sends. */
export type SortChoice = Exclude<Sort, 'distance' | '-distance'>;
export const SORT_LABELS: Record<SortChoice, string> = {
  name: 'Name: A to Z',
  '-name': 'Name: Z to A',
  price_from: 'Price: low to high',
  '-price_from': 'Price: high to low',
  size_from: 'Size: small to large',
  '-size_from': 'Size: large to small',
  handover_date: 'Handover: soonest first',
  '-handover_date': 'Handover: latest first',
  newest: 'Newest first',
  '-newest': 'Oldest first',
};

export type FacetName = keyof NonNullable<ProjectsPage['facets']>;
/** The facets the Refine panel shows, in its order. */
export const FACETS = ['bedrooms', 'developer', 'area', 'development_status', 'unit_types'] as const satisfies readonly FacetName[];

export function readSearchForm(params: URLSearchParams): SearchForm {
  const page = Number(params.get('page'));
  const text = (name: string) => params.get(name)?.trim() ?? '';
  const sort = text('sort');
  return {
    bedrooms: params.getAll('bedrooms').filter((value) => BEDROOM_CHOICES.some((choice) => choice.value === value)),
    priceMin: text('price_min'),
    priceMax: text('price_max'),
    developer: text('developer'),
    developmentStatus: text('development_status'),
    unitType: text('unit_type'),
    nearMetro: params.get('near_metro') === 'on',
    // Only an order the page offers; a hand-edited one falls back to the default.
    sort: Object.hasOwn(SORT_LABELS, sort) ? (sort as SortChoice) : '',
    currency: DISPLAY_CURRENCIES.find((code) => code === text('currency')) ?? 'AED',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The filters of GET /projects a form sets: the map's clusters and area searches take the same ones. */
export type SearchFilters = Omit<ProjectsQuery, 'limit' | 'offset' | 'facets' | 'sort'>;

/** The filters for a form. Values go to the API as typed: the service validates them and its 400 message is shown on the page. */
export function searchFilters(form: SearchForm): SearchFilters {
  const query: SearchFilters = {};
  if (form.bedrooms.length > 0) query.bedrooms = form.bedrooms.join(',');
  if (form.priceMin !== '') query.price_min = Number(form.priceMin);
  if (form.priceMax !== '') query.price_max = Number(form.priceMax);
  if (form.developer !== '') query.developer_ids = form.developer;
  if (form.developmentStatus !== '') query.development_status = form.developmentStatus;
  if (form.unitType !== '') query.unit_types = form.unitType;
  // Metro stations are facilities of the transport category.
  if (form.nearMetro) query.near_transport = true;
  // Always one currency: a mixed catalogue then shows (and filters) every price in the visitor's.
  query.currency = form.currency;
  return query;
}

/** The GET /projects query for a form: its filters, order and page, with the Refine panel's facets. */
export function projectsQuery(form: SearchForm): ProjectsQuery {
  return {
    limit: PAGE_SIZE,
    offset: (form.page - 1) * PAGE_SIZE,
    facets: FACETS.join(','),
    ...searchFilters(form),
    ...(form.sort !== '' && { sort: form.sort }),
  };
}

/** The form as query parameters (the search page's and the map page's), on the given page of results. */
export function searchParams(form: SearchForm, page = 1): URLSearchParams {
  const params = new URLSearchParams();
  for (const bedrooms of form.bedrooms) params.append('bedrooms', bedrooms);
  if (form.priceMin) params.set('price_min', form.priceMin);
  if (form.priceMax) params.set('price_max', form.priceMax);
  if (form.developer) params.set('developer', form.developer);
  if (form.developmentStatus) params.set('development_status', form.developmentStatus);
  if (form.unitType) params.set('unit_type', form.unitType);
  if (form.nearMetro) params.set('near_metro', 'on');
  if (form.sort) params.set('sort', form.sort);
  if (form.currency !== 'AED') params.set('currency', form.currency);
  if (page > 1) params.set('page', String(page));
  return params;
}

/** The search page's own address for a form, on the given page of results. */
export function searchHref(form: SearchForm, page: number, path = '/'): string {
  const text = searchParams(form, page).toString();
  return text ? `${path}?${text}` : path;
}
