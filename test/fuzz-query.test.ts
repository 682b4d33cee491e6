import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import {
  assertSafe,
  FUZZ_SEED,
  fuzzBundle,
  hostileText,
  injectWithin,
  numberText,
  percentEncode,
  PROJECT,
  UNIT,
  urlText,
  type Documented,
  type Expectation,
} from './helpers/fuzz.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Property: whatever the query string and path id, every GET answers a documented success or a 4xx in
 * the error envelope with a clean message; never a 5xx, never a hang. Hostile values (broken UTF-8,
 * NUL, lone surrogates, non-decimal and non-finite numbers, repeated and bracketed parameters) are
 * mixed with well-formed extremes, which reach the SQL.
 */

const CSV = ['developer_ids', 'unit_types', 'development_status', 'bedrooms', 'statuses', 'preference_ids', 'unit_preference_ids'];
const NUMBERS = [
  'price_min', 'price_max', 'price_per_ft2_min', 'price_per_ft2_max', 'price_per_m2_min', 'price_per_m2_max', 'size_min', 'size_max',
  'payment_max_pre_handover', 'payment_min_after_handover', 'lat', 'lng', 'radius_km',
];
const INTEGERS = ['parking_min', 'limit', 'offset'];
const BOOLEANS = [
  'is_branded', 'is_resale', 'is_escrow', 'payment_only_post_handover', 'near_airport', 'near_education', 'near_employment', 'near_healthcare',
  'near_lifestyle', 'near_retail', 'near_transport', 'near_tourism',
];
const DATES = ['handover_from', 'handover_to'];

const pad = (value: number, width: number) => String(value).padStart(width, '0');

const dateText: fc.Arbitrary<string> = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: -24, max: 24 }))
    .map(([y, m, d, h, offset]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(h, 2)}:59:59.999${offset < 0 ? '-' : '+'}${pad(Math.abs(offset), 2)}:59`),
  fc.constantFrom(
    '9999-12-31', '9999-12-31T23:59:59-23:59', '0000-01-01', '0001-01-01T00:00:00+23:59', '2024-02-29', '2026-02-29', '2026-01-01T24:00:00Z',
    '2026-01-01t00:00:00z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00.123456789+05:30', '2026-01-01T00:00:00', '+275760-09-13T00:00:00Z',
  ),
);

const csvText: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.oneof(fc.integer({ min: -2, max: 8 }), fc.integer()), { minLength: 1, maxLength: 6 }).map((items) => items.join(',')),
  fc.array(numberText, { minLength: 1, maxLength: 4 }).map((items) => items.join(',')),
  fc.constantFrom(',', ',,1', '1,', ' 1 , 2 ', Array.from({ length: 101 }, () => 1).join(','), Array.from({ length: 100 }, (_, i) => i + 1).join(','), '1'.repeat(11)),
);

const booleanText = fc.constantFrom('true', 'false', 'TRUE', 'True', '1', '0', 'yes', 'on', '', 'null', 'true,false');

function valueFor(name: string): fc.Arbitrary<string> {
  if (CSV.includes(name)) return csvText;
  if (NUMBERS.includes(name)) return fc.oneof(numberText, fc.double({ min: -200, max: 200, noNaN: true }).map(String));
  if (INTEGERS.includes(name)) return fc.oneof(numberText, fc.integer({ min: -5, max: 150 }).map(String));
  if (BOOLEANS.includes(name)) return booleanText;
  if (DATES.includes(name)) return dateText;
  return fc.oneof(hostileText, fc.string({ unit: 'grapheme', maxLength: 20 }));
}

type Pair = [name: string, value: string | undefined];

/** `name=value` with the name possibly mangled (`limit[]`, `LIMIT`, `limit[a]`) and the value encoded or broken. */
const knownPair = (names: string[]): fc.Arbitrary<Pair> =>
  fc.constantFrom(...names).chain((name) =>
    fc.tuple(
      fc.oneof(
        { weight: 15, arbitrary: fc.constant(name) },
        { weight: 1, arbitrary: fc.constantFrom(`${name}[]`, `${name}[0]`, `${name}[a]`, name.toUpperCase(), `${name}%00`, `%20${name}`, `${name}.x`) },
      ),
      fc.oneof(
        { weight: 10, arbitrary: urlText(fc.oneof({ weight: 4, arbitrary: valueFor(name) }, { weight: 1, arbitrary: hostileText })) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
    ),
  );

const unknownPair: fc.Arbitrary<Pair> = fc.tuple(urlText(hostileText), fc.option(urlText(hostileText), { nil: undefined }));

/**
 * A query string of known parameters (one may be repeated: `?limit=1&limit=2`), now and then an unknown
 * one, empty pieces and bare names included.
 */
const queryString = (names: string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      names.length ? fc.array(knownPair(names), { maxLength: 5 }) : fc.constant([] as Pair[]),
      fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: unknownPair }),
      fc.boolean(),
      fc.constantFrom('&', '&', '&&', ';'),
    )
    .map(([known, unknown, repeatFirst, separator]) => {
      const pairs = [...known, ...(unknown ? [unknown] : []), ...(repeatFirst && known.length ? [known[0]] : [])];
      return pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join(separator);
    });

/** Well-formed values at their extremes, all parameters of a kind together, so the SQL runs with them. */
const extremeNumber = fc.oneof(
  fc.constantFrom(0, -0, 5e-324, 1e-300, 1, 1e15, 1e308, Number.MAX_VALUE, 2147483647, 2147483648),
  fc.double({ min: 0, max: 1e308, noNaN: true, noDefaultInfinity: true }),
);
const extremesQuery: fc.Arbitrary<string> = fc
  .record(
    {
      search: fc.oneof(fc.constantFrom('%', '_', '\\', "'", '\u{1F600}', '\u202E', 'marina'), fc.string({ unit: 'grapheme', maxLength: 200 })),
      developer_ids: fc.array(fc.integer({ min: 1, max: 2147483647 }), { minLength: 1, maxLength: 100 }).map((ids) => ids.join(',')),
      unit_types: fc.array(fc.integer({ min: 1, max: 2147483647 }), { minLength: 1, maxLength: 5 }).map((ids) => ids.join(',')),
      development_status: fc.subarray([1, 2, 3], { minLength: 1 }).map((ids) => ids.join(',')),
      bedrooms: fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }).map((ids) => ids.join(',')),
      statuses: fc.subarray([1, 2, 3, 4, 5], { minLength: 1 }).map((ids) => ids.join(',')),
      price_min: extremeNumber,
      price_max: extremeNumber,
      price_per_ft2_min: extremeNumber,
      price_per_ft2_max: extremeNumber,
      price_per_m2_min: extremeNumber,
      price_per_m2_max: extremeNumber,
      size_min: extremeNumber,
      size_max: extremeNumber,
      parking_min: fc.integer({ min: 0, max: 2147483647 }),
      is_branded: fc.boolean(),
      is_escrow: fc.boolean(),
      handover_from: dateText,
      handover_to: dateText,
      payment_max_pre_handover: fc.double({ min: 0, max: 100, noNaN: true }),
      payment_min_after_handover: fc.double({ min: 0, max: 100, noNaN: true }),
      payment_only_post_handover: fc.boolean(),
      geo: fc.tuple(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true }), fc.oneof(extremeNumber, fc.constant(20_000))),
      near_transport: fc.boolean(),
      near_airport: fc.boolean(),
      preference_ids: fc.array(fc.integer({ min: 1, max: 2147483647 }), { minLength: 1, maxLength: 4 }).map((ids) => ids.join(',')),
      unit_preference_ids: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }).map((ids) => ids.join(',')),
      limit: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constantFrom(2147483647, 2147483648, 1e20)),
      offset: fc.integer({ min: 0, max: 2147483647 }),
    },
    { requiredKeys: [] },
  )
  .map((query) =>
    Object.entries(query)
      .flatMap(([name, value]): [string, unknown][] =>
        name === 'geo' ? (['lat', 'lng', 'radius_km'] as const).map((part, i) => [part, (value as number[])[i]]) : [[name, value]],
      )
      .map(([name, value]) => `${name}=${percentEncode(String(value))}`)
      .join('&'),
  );

/** A path id: existing ids, extremes, non-decimal notations, over-long digits, broken encodings. */
const idSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map(String) },
  { weight: 3, arbitrary: numberText.map((text) => text.replace(/[^A-Za-z0-9._~+-]/g, (c) => percentEncode(c))) },
  { weight: 1, arbitrary: fc.stringMatching(/^[1-9]\d{10,150}$/) },
  { weight: 2, arbitrary: urlText(hostileText) },
);

interface Endpoint extends Expectation {
  path: (id: string) => string;
  parameters: string[];
}

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', template: '/projects/{id}', path: (id) => `/projects/${id}`, parameters: [] },
  { method: 'GET', template: '/projects/{id}/contacts', path: (id) => `/projects/${id}/contacts`, parameters: [] },
  { method: 'GET', template: '/units/{id}', path: (id) => `/units/${id}`, parameters: [] },
  { method: 'GET', template: '/areas', path: () => '/areas', parameters: ['city'] },
  { method: 'GET', template: '/project-preferences', path: () => '/project-preferences', parameters: ['type'] },
  { method: 'GET', template: '/projects/list', path: () => '/projects/list', parameters: [] },
  { method: 'GET', template: '/companies', path: () => '/companies', parameters: [] },
  { method: 'GET', template: '/preferences', path: () => '/preferences', parameters: [] },
];

const PROJECTS: Endpoint = {
  method: 'GET',
  template: '/projects',
  path: () => '/projects',
  parameters: ['search', ...CSV, ...NUMBERS, ...INTEGERS, ...BOOLEANS, ...DATES],
};

describe.each(drivers)('input fuzzing: query strings and path ids (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let documented: Documented;

  useTestApp(driver, fuzzBundle(), (started) => ({ t, key, assertDocumented: documented } = started), { documented: true });

  const get = (url: string) => injectWithin(t.app, { method: 'GET', url, headers: { 'x-api-key': key } });

  async function check(endpoint: Expectation, url: string) {
    assertSafe(await get(url), endpoint, documented);
  }

  it('GET /projects: any mix of parameters, values and encodings', async () => {
    await fc.assert(
      fc.asyncProperty(queryString(PROJECTS.parameters), (query) => check(PROJECTS, `/projects?${query}`)),
      { seed: FUZZ_SEED, numRuns: 250 },
    );
  });

  it('GET /projects: every filter at once at its well-formed extremes', async () => {
    await fc.assert(
      fc.asyncProperty(extremesQuery, (query) => check(PROJECTS, `/projects?${query}`)),
      { seed: FUZZ_SEED, numRuns: 100 },
    );
  });

  it('GET by id and the reference lists: any path id, any query', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), idSegment, fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: queryString([]) }), (endpoint, id, query) =>
        check(endpoint, query === undefined ? endpoint.path(id) : `${endpoint.path(id)}?${query}`),
      ),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
  });

  it('GET /areas and /project-preferences: their own parameters', async () => {
    const endpoints = ENDPOINTS.filter((endpoint) => endpoint.parameters.length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints).chain((endpoint) => fc.tuple(fc.constant(endpoint), queryString(endpoint.parameters))),
        ([endpoint, query]) => check(endpoint, `${endpoint.path('')}?${query}`),
      ),
      { seed: FUZZ_SEED, numRuns: 150 },
    );
  });

  // Regressions found by the properties above.

  // A positive integer written in plain digits beyond storage (99999999999999999999) is an id naming no
  // record: 404, in units.test.ts and project-detail.test.ts.
  it.each(['1e0', '0x1', '%201', '1%20', '1.0', '+1', '-0', '1e3', '0b1', '1'.repeat(101)])(
    'answers 400 for the path id %s instead of reading it as a number',
    async (id) => {
      for (const path of [`/units/${id}`, `/projects/${id}`, `/projects/${id}/contacts`]) {
        const res = await get(path);
        expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({ status: 'error', message: 'id must be a positive integer' });
      }
    },
  );

  it('answers 404 for a plain-digit id beyond storage, on every path', async () => {
    for (const path of ['/units/99999999999999999999', '/projects/99999999999999999999', '/projects/99999999999999999999/contacts']) {
      const res = await get(path);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(404);
    }
  });

  it('still reads plain decimal ids and numbers (exponents included for non-integers)', async () => {
    expect((await get(`/units/${UNIT}`)).statusCode).toBe(200);
    expect((await get(`/projects/${PROJECT}`)).statusCode).toBe(200);
    const res = await get('/projects?price_min=1e3&price_max=1.5E6&limit=10');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBe(1);
  });

  it.each([
    ['limit=0x10', 'limit must be an integer'],
    ['offset=1e1', 'offset must be an integer'],
    ['parking_min=%201', 'parking_min must be an integer'],
    ['price_min=Infinity', 'price_min must be a number'],
    ['price_min=1e309', 'price_min must be a finite number'],
    ['lat=0x1&lng=0&radius_km=1', 'lat must be a number'],
    ['search=a%00b', 'search must not contain NUL characters (U+0000)'],
    ['handover_from=%00', 'handover_from must not contain NUL characters (U+0000)'],
  ])('GET /projects?%s answers 400 %s', async (query, message) => {
    const res = await get(`/projects?${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message });
  });

  it('walks a drawn polygon\u2019s extra GeoJSON members however deep: 200 at 20,000 levels, 400 naming a NUL 3,000 levels down', async () => {
    // GeoJSON members other than type and coordinates are let through (and ignored), so the check for
    // values that cannot be stored walks whatever the body nests, within its 64 KiB.
    const polygon = (extra: string) =>
      `{"polygon":{"type":"Polygon","coordinates":[[[55.1,25.1],[55.3,25.1],[55.3,25.3],[55.1,25.1]]],"extra":${extra}}}`;
    const post = (body: string) => injectWithin(t.app, { method: 'POST', url: '/projects/search', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: body });
    const deep = await post(polygon(`${'['.repeat(20_000)}${']'.repeat(20_000)}`));
    expect(deep.statusCode, deep.body.slice(0, 200)).toBe(200);
    const nul = await post(polygon(`${'['.repeat(3_000)}"a\\u0000"${']'.repeat(3_000)}`));
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({ status: 'error', message: `polygon.extra${'[0]'.repeat(3_000)} must not contain NUL characters (U+0000)` });
  });

  it('answers 400 for a NUL in /areas?city and a hex /project-preferences?type', async () => {
    const city = await get('/areas?city=Dubai%00');
    expect(city.statusCode, city.body).toBe(400);
    expect(city.json()).toEqual({ status: 'error', message: 'city must not contain NUL characters (U+0000)' });
    const type = await get('/project-preferences?type=0x1');
    expect(type.statusCode, type.body).toBe(400);
    expect(type.json()).toEqual({ status: 'error', message: 'type must be 1 (features) or 2 (amenities)' });
  });

  it('answers a malformed percent-encoding in the path with 400 in the envelope', async () => {
    for (const path of ['/units/%C3%28', '/projects/%ED%A0%80/contacts', '/area%FFs']) {
      const res = await get(path);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'request path is not valid: malformed percent-encoding' });
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('takes a search centre with a subnormal coordinate (PostgreSQL float8 underflow)', async () => {
    for (const query of ['lat=-5e-324&lng=0&radius_km=20000', 'lat=0&lng=5e-324&radius_km=20000', 'lat=1e-310&lng=-1e-320&radius_km=1e-300']) {
      const res = await get(`/projects?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
      documented('GET', '/projects', 200, res.json());
    }
    expect((await get('/projects?lat=-5e-324&lng=0&radius_km=20000')).json().data.total).toBe(1);
  });

  it('takes handover bounds in the year 9999 whose instant falls in 10000', async () => {
    const to = await get('/projects?handover_to=9999-12-31');
    expect(to.statusCode, to.body).toBe(200);
    expect(to.json().data.total).toBe(1);
    const from = await get(`/projects?handover_from=${encodeURIComponent('9999-12-31T23:59:59-23:59')}`);
    expect(from.statusCode, from.body).toBe(200);
    expect(from.json().data.total).toBe(0);
  });
});
