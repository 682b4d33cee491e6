import {
  DEFAULT_LIMIT,
  FilterError,
  MAX_LIMIT,
  NEAR_PARAMETERS,
  parseBbox,
  parseCentre,
  parseCsv,
  parseFacets,
  parseHandoverBound,
  parsePercent,
  parseRange,
  parseSort,
  type CsvParameter,
  type ProjectFilters,
  type ProjectsPage,
  type UnitFilters,
} from '../domain/project-filters.js';
import { parsedPolygon } from './parsed-shapes.js';
import type { ProjectsQuery } from './schemas/projects.js';

/*
 * The GET /projects query as its route schema types it (`ProjectsQuery`, the one definition of its
 * shape), bound parameter by parameter to the filter rules of src/domain/project-filters.ts. The
 * binding lives here, above the domain, because the domain does not see the contract's schemas.
 */

/**
 * The whole query. `limit` above MAX_LIMIT is capped (not an error); below 1, or a negative offset, is
 * an error. `near_*=false` and `payment_only_post_handover=false` mean "no constraint", while
 * `is_branded`, `is_resale` and `is_escrow` filter on the attribute either way.
 */
export function parseProjectsQuery(query: ProjectsQuery): ProjectsPage {
  // Every parameter is checked even after one failed: the first problem is the error's message (as it
  // always was), the others ride along in `also` for clients that ask for every error at once.
  const problems: FilterError[] = [];
  const check = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      problems.push(error);
      return undefined;
    }
  };
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1) problems.push(new FilterError('limit', 'limit must be an integer of at least 1'));
  if (!Number.isInteger(offset) || offset < 0) problems.push(new FilterError('offset', 'offset must be an integer of at least 0'));

  const csv = (parameter: CsvParameter) => (query[parameter] === undefined ? undefined : check(() => parseCsv(parameter, query[parameter]!)));
  const rangeOf = (prefix: string) => check(() => parseRange(prefix, query as Record<string, unknown>));

  const units: UnitFilters = {};
  const bedrooms = csv('bedrooms');
  if (bedrooms) {
    units.bedrooms = bedrooms.filter((value) => value < 5);
    if (bedrooms.includes(5)) units.bedroomsFiveOrMore = true;
  }
  const statuses = csv('statuses');
  if (statuses) units.statuses = statuses;
  const price = rangeOf('price');
  if (price) units.price = price;
  const pricePerFt2 = rangeOf('price_per_ft2');
  if (pricePerFt2) units.pricePerFt2 = pricePerFt2;
  const pricePerM2 = rangeOf('price_per_m2');
  if (pricePerM2) units.pricePerM2 = pricePerM2;
  const size = rangeOf('size');
  if (size) units.size = size;
  if (query.parking_min !== undefined) {
    if (!Number.isInteger(query.parking_min) || query.parking_min < 0) problems.push(new FilterError('parking_min', 'parking_min must be an integer of at least 0'));
    else units.parkingMin = query.parking_min;
  }
  const tagIds = csv('unit_preference_ids');
  if (tagIds) units.tagIds = tagIds;

  const search = query.search?.trim();
  const filters: ProjectFilters = {
    ...(search && { search }),
    developerIds: csv('developer_ids'),
    unitTypes: csv('unit_types'),
    developmentStatuses: csv('development_status'),
    isBranded: query.is_branded,
    isResale: query.is_resale,
    isEscrow: query.is_escrow,
    handoverFrom: query.handover_from === undefined ? undefined : check(() => parseHandoverBound('handover_from', query.handover_from!)),
    handoverTo: query.handover_to === undefined ? undefined : check(() => parseHandoverBound('handover_to', query.handover_to!)),
    paymentMaxPreHandover: check(() => parsePercent('payment_max_pre_handover', query.payment_max_pre_handover)),
    paymentMinAfterHandover: check(() => parsePercent('payment_min_after_handover', query.payment_min_after_handover)),
    paymentOnlyPostHandover: query.payment_only_post_handover === true ? true : undefined,
    geo: check(() => parseCentre(query)),
    bbox: query.bbox === undefined ? undefined : check(() => parseBbox(query.bbox!)),
    polygon: query.polygon === undefined ? undefined : check(() => parsedPolygon(query.polygon!)),
    nearCategories: (Object.keys(NEAR_PARAMETERS) as (keyof typeof NEAR_PARAMETERS)[])
      .filter((name) => query[name] === true)
      .map((name) => NEAR_PARAMETERS[name]),
    featureIds: csv('preference_ids'),
    units: Object.keys(units).length > 0 ? units : undefined,
  };
  for (const key of Object.keys(filters) as (keyof ProjectFilters)[]) if (filters[key] === undefined) delete filters[key];

  // A failed centre must not add "distance needs lat, lng and radius_km" to the problem it already reported.
  const geoFailed = problems.some((problem) => ['lat', 'lng', 'radius_km'].includes(problem.parameter));
  const sort = check(() => parseSort(query.sort, filters.geo !== undefined || geoFailed));
  const facets = check(() => parseFacets(query.facets));
  if (problems.length > 0) {
    const [first, ...others] = problems;
    first.also = others;
    throw first;
  }
  return { filters, sort: sort!, facets: facets!, limit: Math.min(limit, MAX_LIMIT), offset, match: query.match === true };
}
