import type { FieldError, ProjectsPage, ProjectsQuery } from '@catalogue-api/sdk';
import { money } from './format.js';

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

/**
 * Whether the form sets a unit-level filter (bedrooms, a price bound): the API then matches projects
 * through one unit satisfying all of them, and `match: true` tells what matched (the cheapest 2-bed,
 * not the project's cheapest studio).
 */
export function hasUnitFilters(form: SearchForm): boolean {
  return form.bedrooms.length > 0 || form.priceMin !== '' || form.priceMax !== '';
}

/** The GET /projects query for a form: its filters, order and page, with the Refine panel's facets. */
export function projectsQuery(form: SearchForm): ProjectsQuery {
  return {
    limit: PAGE_SIZE,
    // A hand-edited page far past the end still asks a valid offset (the API takes at most 2^53 - 1); the site then sends the visitor to the last page.
    offset: Math.min((form.page - 1) * PAGE_SIZE, Number.MAX_SAFE_INTEGER),
    facets: FACETS.join(','),
    ...searchFilters(form),
    ...(hasUnitFilters(form) && { match: true }),
    ...(form.sort !== '' && { sort: form.sort }),
  };
}

/** The last page of results for a total (page 1 when nothing matches). */
export function lastPage(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_SIZE));
}

/** What the matching units are, in the visitor's words, from the bedrooms chosen: "2-bed", "Studio or 1-bed"; "Matching units" without. */
export function matchName(form: SearchForm): string {
  const names = form.bedrooms.map((value) => (value === '0' ? 'Studio' : value === '5' ? '5+ bed' : `${value}-bed`));
  if (names.length === 0) return 'Matching units';
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * The matching units' lowest price (`match.price_from`) as the search page's cards and the map page say
 * it: "2-bed from AED 1,103,560"; "2-bed: price on request" when none of them has a price. `format`
 * writes the amount (`moneyShort` for a map marker).
 */
export function matchPrice(form: SearchForm, amount: number | null, currency: string | null, format: (amount: number, currency: string) => string = money): string {
  const what = matchName(form);
  return amount === null || currency === null ? `${what}: price on request` : `${what} from ${format(amount, currency)}`;
}

/** A search problem in the form's words; `field` names the form control it is about (for aria-describedby), when there is one. */
export interface SearchProblem {
  field?: 'price_min' | 'price_max' | 'developer' | 'bedrooms' | 'near_metro';
  text: string;
}

/**
 * The API's 400 (`errors[]`, which the SDK asks for) in the form's words: each problem names the
 * control by its label ("Price from (AED)"), never the API's parameter (`price_min`). A problem about
 * no field of the form (a drawn shape that crosses itself) keeps the API's message.
 */
export function searchProblems(error: { message: string; errors?: FieldError[] }, form: Pick<SearchForm, 'currency'>): SearchProblem[] {
  const amount = (field: 'price_min' | 'price_max', code: string): SearchProblem => {
    const label = `${field === 'price_min' ? 'Price from' : 'Price to'} (${form.currency})`;
    return { field, text: code === 'minimum' ? `${label} cannot be below 0: enter 0 or more, or leave it empty.` : `${label} must be an amount in figures, such as 1500000, or empty.` };
  };
  const inWords = ({ field, code, message }: FieldError): SearchProblem => {
    switch (field) {
      case 'price_min':
      case 'price_max':
        return amount(field, code);
      case 'developer_ids':
        return { field: 'developer', text: 'Developer: choose one from the list, or Any developer.' };
      case 'bedrooms':
        return { field: 'bedrooms', text: 'Bedrooms: choose from Studio to 5+.' };
      case 'near_transport':
        return { field: 'near_metro', text: 'Near metro / public transport: tick the box or leave it empty.' };
      case 'development_status':
        return { text: 'We cannot search by that development status: choose one in the Refine panel.' };
      case 'unit_types':
        return { text: 'We cannot search by that property type: choose one in the Refine panel.' };
      case 'currency':
        return { text: 'Prices cannot be shown in that currency: choose one from the Currency list.' };
      default:
        return { text: message };
    }
  };
  const problems: SearchProblem[] = [];
  for (const problem of (error.errors?.length ? error.errors : [{ field: null, code: 'invalid', message: error.message }]).map(inWords)) {
    if (!problems.some((known) => known.text === problem.text)) problems.push(problem);
  }
  return problems;
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
