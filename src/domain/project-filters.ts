import type { FacilityCategory } from './catalogue-codes.js';
import { INT32_MAX } from './record-ids.js';
import { boundingBox, boxOf, type GeoBox, type LngLatBox, type LngLatRing, type LngLatShape } from './geo.js';
import { selfIntersection } from './simple-ring.js';

/*
 * The rules that turn the GET /projects query from text into a typed filter set. The route schema already
 * coerces scalars (numbers, integers, booleans) and checks their declared ranges; everything a JSON
 * schema cannot express well is checked here: CSV lists and their items, parameters that only make sense
 * together, dates in two notations, non-finite numbers. Every failure names its parameter. The query as
 * a whole (typed by its route schema) is bound to these rules in src/contract/projects-query.ts.
 */

export class FilterError extends Error {
  override name = 'FilterError';
  /** The other problems of the same query, in the order they were found (parseProjectsQuery reports them all). */
  also: FilterError[] = [];
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Range {
  min?: number;
  max?: number;
}

export interface GeoFilter {
  lat: number;
  lng: number;
  radiusM: number;
  /** A box that contains the circle; only a cheap pre-filter, the great-circle distance decides. */
  box: GeoBox;
}

/** Unit-level predicates: all of them must hold for one and the same unit of the project. */
export interface UnitFilters {
  bedrooms?: number[];
  /** True when `5` was asked for: it means five bedrooms or more. */
  bedroomsFiveOrMore?: boolean;
  statuses?: number[];
  price?: Range;
  pricePerFt2?: Range;
  pricePerM2?: Range;
  size?: Range;
  parkingMin?: number;
  tagIds?: number[];
}

export interface HandoverBound {
  /** RFC 3339 instant (UTC); a year past 9999 is written with five digits (see instantText). */
  at: string;
  inclusive: boolean;
}

export interface ProjectFilters {
  search?: string;
  developerIds?: number[];
  unitTypes?: number[];
  developmentStatuses?: number[];
  isBranded?: boolean;
  isResale?: boolean;
  isEscrow?: boolean;
  handoverFrom?: HandoverBound;
  handoverTo?: HandoverBound;
  paymentMaxPreHandover?: number;
  paymentMinAfterHandover?: number;
  paymentOnlyPostHandover?: boolean;
  geo?: GeoFilter;
  /** `bbox`: the project's coordinates within the box, edges included (src/domain/geo.ts). */
  bbox?: LngLatBox;
  /** `polygon`: the project's coordinates inside the shape or on its boundary (src/domain/geo.ts). */
  polygon?: LngLatShape;
  nearCategories: FacilityCategory[];
  featureIds?: number[];
  /** Undefined when no unit-level parameter was given (no EXISTS over units at all then). */
  units?: UnitFilters;
}

export interface ProjectsPage {
  filters: ProjectFilters;
  sort: ProjectSort;
  /** Facets asked for, in the order of FACET_NAMES; empty when `facets` is absent. */
  facets: FacetName[];
  limit: number;
  offset: number;
  /** `match=true`: each item (and cluster) also shows what matched inside it; changes no match, order or count. */
  match: boolean;
}

/*
 * The orders of GET /projects. Every key is ascending, or descending with `-`; projects without a value
 * (no priced unit, no unit, no handover date) come last either way, and ties are broken by id
 * (ascending either way), so paging is stable. `price_from` orders by the lowest base price: the key's
 * price is a non-decreasing function of it, so the order is the same for every price vector (two prices
 * that round to the same shown amount keep their base-price order). `newest` is the creation time,
 * newest first; `-newest` is oldest first. `distance` is from lat/lng (only with them).
 */
export const SORT_KEYS = ['name', 'price_from', 'size_from', 'handover_date', 'newest', 'distance'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export const SORT_VALUES = SORT_KEYS.flatMap((key) => [key, `-${key}`] as const);

export interface ProjectSort {
  key: SortKey;
  descending: boolean;
}

/**
 * Facet counts: for each value of the facet, the number of projects that match every filter of the
 * request except the facet's own one (as if that filter asked for this value alone). `area` has no
 * filter of its own, so it counts under every filter. Unit-level facets (bedrooms, statuses) count the
 * projects with one unit that has the value and satisfies every other unit-level filter.
 */
export const FACET_NAMES = ['bedrooms', 'statuses', 'development_status', 'developer', 'unit_types', 'area', 'is_branded', 'is_resale', 'is_escrow'] as const;
export type FacetName = (typeof FACET_NAMES)[number];

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** The largest `offset` accepted: past the end the page is empty and `total` still exact. */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** near_<name> query parameter -> facility category. */
export const NEAR_PARAMETERS = {
  near_airport: 'airports_ports',
  near_education: 'education',
  near_employment: 'employment',
  near_healthcare: 'healthcare',
  near_lifestyle: 'lifestyle',
  near_retail: 'retail',
  near_transport: 'transport',
  near_tourism: 'tourism',
} as const satisfies Record<string, FacilityCategory>;

interface CsvRule {
  min: number;
  max: number;
  describe: string;
}

export const CSV_RULES = {
  developer_ids: { min: 1, max: INT32_MAX, describe: 'positive integers (developer company ids)' },
  unit_types: { min: 1, max: INT32_MAX, describe: 'positive integers (project types)' },
  development_status: { min: 1, max: 3, describe: 'integers from 1 to 3' },
  bedrooms: { min: 0, max: 5, describe: 'integers from 0 to 5 (0 = studio, 5 = five or more)' },
  statuses: { min: 1, max: 5, describe: 'integers from 1 to 5' },
  preference_ids: { min: 1, max: INT32_MAX, describe: 'positive integers (project feature/amenity ids)' },
  unit_preference_ids: { min: 1, max: INT32_MAX, describe: 'positive integers (unit tag ids)' },
} as const satisfies Record<string, CsvRule>;

export type CsvParameter = keyof typeof CSV_RULES;

/** `1, 2,2` -> [1, 2]; anything else than a list of integers in range is an error naming the parameter. */
export function parseCsv(parameter: CsvParameter, raw: string): number[] {
  const rule: CsvRule = CSV_RULES[parameter];
  const fail = () => new FilterError(parameter, `${parameter} must be a comma-separated list of ${rule.describe}`);
  // Any number of items: GET /companies, meant for developer_ids, can list more than any fixed cap.
  const parts = raw.split(',').map((part) => part.trim());
  const values = new Set<number>();
  for (const part of parts) {
    if (!/^\d{1,10}$/.test(part)) throw fail();
    const value = Number(part);
    if (value < rule.min || value > rule.max) throw fail();
    values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}

export function finite(parameter: string, value: number | undefined): number | undefined {
  if (value !== undefined && !Number.isFinite(value)) throw new FilterError(parameter, `${parameter} must be a finite number`);
  return value;
}

export function parseRange(prefix: string, query: Record<string, unknown>): Range | undefined {
  const min = finite(`${prefix}_min`, query[`${prefix}_min`] as number | undefined);
  const max = finite(`${prefix}_max`, query[`${prefix}_max`] as number | undefined);
  if (min === undefined && max === undefined) return undefined;
  return { ...(min !== undefined && { min }), ...(max !== undefined && { max }) };
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A handover bound. A bare date is a whole UTC day: as a lower bound it starts at 00:00Z, as an upper
 * bound it takes in the entire day (everything before the next day's 00:00Z). A date-time is taken as
 * the exact instant, inclusive.
 */
export function parseHandoverBound(parameter: 'handover_from' | 'handover_to', raw: string): HandoverBound {
  const fail = () => new FilterError(parameter, `${parameter} must be an RFC 3339 date-time or a YYYY-MM-DD date`);
  const value = raw.trim();
  const date = DATE_ONLY.exec(value);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!isCalendarDate(year, month, day)) throw fail();
    if (parameter === 'handover_from') return { at: instantText(new Date(Date.UTC(year, month - 1, day))), inclusive: true };
    return { at: instantText(new Date(Date.UTC(year, month - 1, day + 1))), inclusive: false };
  }
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime) throw fail();
  const [year, month, day, hour, minute, second] = dateTime.slice(1, 7).map(Number);
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) throw fail();
  if (dateTime[9] && (Number(dateTime[10]) > 23 || Number(dateTime[11]) > 59)) throw fail();
  const instant = new Date(value.replace(' ', 'T'));
  if (Number.isNaN(instant.getTime())) throw fail();
  return { at: preciseInstantText(instant, dateTime[7], parameter === 'handover_from'), inclusive: true };
}

/*
 * A Date keeps milliseconds, PostgreSQL microseconds: the fraction of a second is taken from the text
 * again, in whole microseconds. Finer digits round towards the inside of the range (up for a lower
 * bound, down for an upper one), so the bound admits exactly the stored instants the text admits.
 */
function preciseInstantText(instant: Date, fraction: string | undefined, lower: boolean): string {
  const digits = fraction?.slice(1) ?? '';
  let micros = Number(digits.slice(0, 6).padEnd(6, '0'));
  if (lower && /[1-9]/.test(digits.slice(6))) micros += 1;
  const text = instantText(new Date(Math.floor(instant.getTime() / 1000) * 1000 + Math.floor(micros / 1000)));
  return micros % 1000 === 0 ? text : text.replace(/Z$/, `${String(micros % 1000).padStart(3, '0')}Z`);
}

/*
 * A bound can land past 9999 (`handover_to=9999-12-31` ends at 10000-01-01, an offset of -23:59 pushes
 * 9999-12-31T23:59:59 over too). toISOString writes such a year as `+010000`, which PostgreSQL reads as
 * a time zone and rejects; without the sign and padding it reads the year.
 */
function instantText(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, '');
}

/** `lat`, `lng` and `radius_km` together, or none of them. */
export function parseCentre(query: { lat?: number; lng?: number; radius_km?: number }): GeoFilter | undefined {
  const given = (['lat', 'lng', 'radius_km'] as const).filter((name) => query[name] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < 3) {
    const missing = (['lat', 'lng', 'radius_km'] as const).filter((name) => query[name] === undefined);
    throw new FilterError(missing[0], `lat, lng and radius_km must be given together: ${missing.join(' and ')} missing`);
  }
  const lat = finite('lat', query.lat)!;
  const lng = finite('lng', query.lng)!;
  const radiusKm = finite('radius_km', query.radius_km)!;
  if (lat < -90 || lat > 90) throw new FilterError('lat', 'lat must be between -90 and 90');
  if (lng < -180 || lng > 180) throw new FilterError('lng', 'lng must be between -180 and 180');
  if (!(radiusKm > 0)) throw new FilterError('radius_km', 'radius_km must be greater than 0');
  const radiusM = radiusKm * 1000;
  const centre = { lat: flushTiny(lat), lng: flushTiny(lng) };
  return { ...centre, radiusM, box: boundingBox(centre.lat, centre.lng, radiusM) };
}

/*
 * PostgreSQL's float8 arithmetic raises "value out of range: underflow" where IEEE would round to 0, so
 * a centre like lat=5e-324 made the distance SQL fail. Below a nanodegree (0.1 mm) a coordinate is 0.
 */
function flushTiny(degrees: number): number {
  return Math.abs(degrees) < 1e-9 ? 0 : degrees;
}

/** The most vertices `polygon` takes, all rings together (the closing repeat of each ring's first not counted). */
export const MAX_POLYGON_VERTICES = 1000;

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** `55.1, 25.2,...` -> [55.1, 25.2, ...]: decimal numbers only (no hex, no Infinity, no blanks). */
function numberList(parameter: string, raw: string, describe: string): number[] {
  return raw.split(',').map((part) => {
    const text = part.trim();
    const value = Number(text);
    if (!DECIMAL.test(text) || !Number.isFinite(value)) throw new FilterError(parameter, `${parameter} must be ${describe}; "${text.slice(0, 40)}" is not a number`);
    return value;
  });
}

function checkLngLat(parameter: string, lng: number, lat: number, what: string): void {
  if (lng < -180 || lng > 180) throw new FilterError(parameter, `${parameter}: ${what} longitude ${lng} is not between -180 and 180`);
  if (lat < -90 || lat > 90) throw new FilterError(parameter, `${parameter}: ${what} latitude ${lat} is not between -90 and 90`);
}

const BBOX_FORMAT = 'four comma-separated numbers west,south,east,north (degrees, GeoJSON order)';

/** `bbox=west,south,east,north`; west <= east (a box across the antimeridian is two searches) and south <= north. */
export function parseBbox(raw: string): LngLatBox {
  const values = numberList('bbox', raw, BBOX_FORMAT);
  if (values.length !== 4) throw new FilterError('bbox', `bbox must be ${BBOX_FORMAT}; got ${values.length} numbers`);
  const [west, south, east, north] = values;
  checkLngLat('bbox', west, south, 'the south-west corner\u2019s');
  checkLngLat('bbox', east, north, 'the north-east corner\u2019s');
  if (west > east) throw new FilterError('bbox', 'bbox: west must not be greater than east (boxes across the antimeridian are not supported)');
  if (south > north) throw new FilterError('bbox', 'bbox: south must not be greater than north');
  return { west, south, east, north };
}

const POLYGON_FORMAT = 'a comma-separated list lng,lat,lng,lat,... of at least 3 vertices (degrees, GeoJSON order)';

/** Where a ring sits in the shape, for messages: nothing for the only ring, else "polygon 2, hole 1: ". */
function ringName(polygon: number, ring: number, polygons: number, rings: number): string {
  if (polygons === 1 && rings === 1) return '';
  const hole = ring === 0 ? 'outer ring' : `hole ${ring}`;
  return polygons === 1 ? `${hole}: ` : `polygon ${polygon + 1}, ${hole}: `;
}

/** A ring's vertices: in order, closed or not (a last vertex equal to the first is dropped), repeats in a row dropped. */
function verticesOf(values: number[], where: string): { xs: number[]; ys: number[] } {
  if (values.length % 2 !== 0) throw new FilterError('polygon', `polygon must be ${POLYGON_FORMAT}; ${where}got an odd count of numbers (${values.length})`);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let k = 0; k < values.length; k += 2) {
    const [lng, lat] = [flushTiny(values[k]), flushTiny(values[k + 1])];
    checkLngLat('polygon', lng, lat, `${where}vertex ${k / 2 + 1}\u2019s`);
    if (xs.length > 0 && xs[xs.length - 1] === lng && ys[ys.length - 1] === lat) continue;
    xs.push(lng);
    ys.push(lat);
  }
  if (xs.length > 1 && xs[0] === xs[xs.length - 1] && ys[0] === ys[ys.length - 1]) {
    xs.pop();
    ys.pop();
  }
  return { xs, ys };
}

/** A ring as the filter takes it: at least 3 distinct vertices, simple (no edge crosses or touches another), of non-zero area. */
function ringOf({ xs, ys }: { xs: number[]; ys: number[] }, where: string): LngLatRing {
  if (xs.length < 3) throw new FilterError('polygon', `polygon must be ${POLYGON_FORMAT}; ${where}got ${xs.length} distinct vertices`);
  const crossing = selfIntersection(xs, ys);
  if (crossing) throw new FilterError('polygon', `polygon must not intersect itself: ${where}${crossing}`);
  let twiceArea = 0;
  for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) twiceArea += xs[j] * ys[i] - xs[i] * ys[j];
  // A simple ring of zero area has every vertex on one line.
  if (twiceArea === 0) throw new FilterError('polygon', `polygon has no area (${where}its vertices are collinear)`);
  return { xs, ys, box: boxOf(xs, ys) };
}

/**
 * The shape from polygons of rings (outer ring first, then holes), each ring a flat list
 * lng,lat,lng,lat,...: every vertex in range, at most MAX_POLYGON_VERTICES in all (counted before
 * the rings are checked for crossings, the costly part), then each ring as ringOf says.
 */
export function shapeOf(polygons: number[][][]): LngLatShape {
  const names = polygons.map((rings, p) => rings.map((_, r) => ringName(p, r, polygons.length, rings.length)));
  const vertices = polygons.map((rings, p) => rings.map((values, r) => verticesOf(values, names[p][r])));
  const total = vertices.flat().reduce((sum, ring) => sum + ring.xs.length, 0);
  if (total > MAX_POLYGON_VERTICES) throw new FilterError('polygon', `polygon has ${total} vertices; at most ${MAX_POLYGON_VERTICES} are allowed`);
  const shape = vertices.map((rings, p) => {
    const [outer, ...holes] = rings.map((ring, r) => ringOf(ring, names[p][r]));
    return { outer, holes };
  });
  const boxes = shape.map(({ outer }) => outer.box);
  const box = {
    west: Math.min(...boxes.map((b) => b.west)),
    south: Math.min(...boxes.map((b) => b.south)),
    east: Math.max(...boxes.map((b) => b.east)),
    north: Math.max(...boxes.map((b) => b.north)),
  };
  return { polygons: shape, box };
}

/**
 * GeoJSON Polygon or MultiPolygon coordinates (positions [lng, lat, altitude?]) in the one-line form
 * parsePolygon reads, so that both forms go through the same checks: numbers print exactly as they
 * were read (JavaScript's shortest round-trip form), an altitude is dropped.
 */
export function polygonLine(geometry: { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] }): string {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  return polygons.map((rings) => rings.map((ring) => ring.map(([lng, lat]) => `${lng},${lat}`).join(',')).join(';')).join('|');
}

/**
 * `polygon=lng,lat,lng,lat,...`: one ring; `;` starts a hole of the current polygon and `|` starts
 * another polygon (`outer;hole|outer`, GeoJSON's Polygon and MultiPolygon in one line). At most
 * MAX_POLYGON_VERTICES vertices in all. Each ring as ringOf says.
 */
export function parsePolygon(raw: string): LngLatShape {
  return shapeOf(raw.split('|').map((polygon) => polygon.split(';').map((ring) => numberList('polygon', ring, POLYGON_FORMAT))));
}

export function parsePercent(parameter: string, value: number | undefined): number | undefined {
  if (finite(parameter, value) === undefined) return undefined;
  if (value! < 0 || value! > 100) throw new FilterError(parameter, `${parameter} must be between 0 and 100`);
  return value;
}

/** `-price_from` -> price_from descending; absent: by name. The schema already limits the values. */
export function parseSort(raw: string | undefined, hasCentre: boolean): ProjectSort {
  const text = raw ?? 'name';
  const descending = text.startsWith('-');
  const key = (descending ? text.slice(1) : text) as SortKey;
  if (!(SORT_KEYS as readonly string[]).includes(key)) throw new FilterError('sort', `sort must be one of: ${SORT_VALUES.join(', ')}`);
  if (key === 'distance' && !hasCentre) throw new FilterError('sort', 'sort by distance needs lat, lng and radius_km');
  return { key, descending };
}

/** `area, bedrooms` -> [bedrooms, area] (the order of FACET_NAMES, duplicates dropped). */
export function parseFacets(raw: string | undefined): FacetName[] {
  if (raw === undefined) return [];
  const names = new Set(raw.split(',').map((part) => part.trim()));
  for (const name of names) {
    if (!(FACET_NAMES as readonly string[]).includes(name)) throw new FilterError('facets', `facets must be a comma-separated list of: ${FACET_NAMES.join(', ')}`);
  }
  return FACET_NAMES.filter((name) => names.has(name));
}

/** `50%_off\` -> `%50\%\_off\\%`: a literal substring for LIKE/ILIKE with the default escape `\`. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
