import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { assertSafe, FUZZ_SEED, fuzzBundle, hostileText, injectWithin, numberText, percentEncode, UNIT, urlText, type Documented } from './helpers/fuzz.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Property: whatever the body, its framing, content type, size and headers, POST /units/{id}/applications
 * answers a documented 201 or a 4xx in the error envelope with a clean message; never a 5xx, never a
 * hang. Bodies start valid and get mutated at known and unknown places, so both the validation and the
 * transaction run with hostile values.
 */

const OPERATION = { method: 'POST', template: '/units/{id}/applications' } as const;
const LIMIT = 64 * 1024;

/** A JSON number written exactly as given (`1e309`, `-0`), which JSON.stringify cannot produce. */
class RawNumber {
  constructor(readonly text: string) {}
}

type Json = null | boolean | number | string | RawNumber | Json[] | { [key: string]: Json };

function toJson(value: Json): string {
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : String(value).replace('NaN', '0');
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  return JSON.stringify(value);
}

const JSON_NUMBERS = ['1e309', '-1e309', '-0', '1e-400', '5e-324', '1E3', '1.0', '2147483648', '-2147483649', '99999999999999999999', '123456789012345678901234567890', '0.1e1'];

const hostileJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: hostileText },
    { weight: 2, arbitrary: fc.constantFrom(...JSON_NUMBERS).map((text) => new RawNumber(text)) },
    { weight: 2, arbitrary: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0, -1, 2147483647, 1e308)) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(256), 'y'.repeat(5001), '@'.repeat(256), '7'.repeat(51), `${'a'.repeat(250)}@b.co`) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: -1, max: 6 }), { minLength: 0, maxLength: 101 }) },
    { weight: 1, arbitrary: fc.dictionary(hostileText, tie('value'), { maxKeys: 3 }) },
  ),
})).value;

const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { freq: 5, nil: null });

const validBody = fc.record(
  {
    client: fc.record(
      {
        first_name: fc.oneof(fc.constantFrom('Jane', 'Ωmar', 'مريم', '\u{1F600}', '\u202Eevil'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((s) => `J${s}`)),
        last_name: nullable(fc.string({ unit: 'grapheme', maxLength: 30 })),
        email: fc.oneof(fc.emailAddress({ size: 'small' }).filter((email) => email.length <= 255), fc.constant(null)),
        mobile_number: nullable(fc.stringMatching(/^\+9715[0-9] [0-9]{3} [0-9]{4}$/)),
        landline_number: nullable(fc.stringMatching(/^\+9714[0-9]{7}$/)),
        city: nullable(fc.string({ unit: 'grapheme', maxLength: 20 })),
        social_links: fc.record({ instagram: nullable(fc.stringMatching(/^@?[a-z0-9._-]{1,20}$/)), x: nullable(fc.stringMatching(/^[a-z]{1,10}$/)) }, { requiredKeys: [] }),
      },
      { requiredKeys: ['first_name', 'email'] },
    ),
    preferences: fc.record(
      {
        based_on_unit: fc.boolean(),
        property_types: fc.array(fc.integer({ min: 0, max: 2147483647 }), { maxLength: 5 }),
        preferred_area_ids: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
        property_features: fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }), { maxLength: 4 }),
        preference_ids: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
        project_preference_ids: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
        investment_type: nullable(fc.integer({ min: -2147483648, max: 2147483647 })),
        min_budget: nullable(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(0, 5e-324))),
        max_budget: nullable(fc.oneof(fc.double({ min: 1e6, max: 1e308, noNaN: true }), fc.constantFrom(1e308, Number.MAX_VALUE))),
      },
      { requiredKeys: [] },
    ),
    message: nullable(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.constant('m'.repeat(5000)))),
    language: nullable(fc.constantFrom('en', 'EN-gb', 'ar', 'zh_Hant', 'x'.repeat(10))),
    currency: nullable(fc.constantFrom('AED', 'USD')),
  },
  { requiredKeys: ['client'] },
) as fc.Arbitrary<{ [key: string]: Json }>;

const MUTATION_PATHS: string[][] = [
  [], ['client'], ['client', 'first_name'], ['client', 'last_name'], ['client', 'email'], ['client', 'mobile_number'], ['client', 'postcode'],
  ['client', 'social_links'], ['client', 'social_links', 'tiktok'], ['client', 'unknown'], ['preferences'], ['preferences', 'based_on_unit'],
  ['preferences', 'property_types'], ['preferences', 'preferred_area_ids'], ['preferences', 'property_features'], ['preferences', 'preference_ids'],
  ['preferences', 'project_preference_ids'], ['preferences', 'investment_type'], ['preferences', 'min_budget'], ['preferences', 'max_budget'],
  ['message'], ['language'], ['currency'], ['unknown'], ['__proto__'], ['constructor'],
];

/** Replaces (or adds) the value at `path`; an empty path replaces the whole body. */
function mutate(body: Json, path: string[], value: Json): Json {
  if (path.length === 0) return value;
  const copy: { [key: string]: Json } = body !== null && typeof body === 'object' && !Array.isArray(body) && !(body instanceof RawNumber) ? { ...body } : {};
  const [head, ...rest] = path;
  // defineProperty, so that `__proto__` becomes a key of the JSON rather than the prototype.
  Object.defineProperty(copy, head, { value: mutate(Object.hasOwn(copy, head) ? copy[head] : {}, rest, value), enumerable: true, writable: true, configurable: true });
  return copy;
}

const mutatedBody: fc.Arbitrary<string> = fc
  .tuple(validBody, fc.array(fc.tuple(fc.constantFrom(...MUTATION_PATHS), hostileJson), { maxLength: 2 }))
  .map(([body, mutations]) => toJson(mutations.reduce<Json>((current, [path, value]) => mutate(current, path, value), body)));

const padded = (json: string, bytes: number) => json + ' '.repeat(Math.max(0, bytes - Buffer.byteLength(json)));

const MINIMAL = JSON.stringify({ client: { first_name: 'Jane', email: 'jane@example.com' } });

function nested(depth: number, open: string, close: string): string {
  return `{"client":{"first_name":"Jane","email":"jane@example.com"},"message":${open.repeat(depth)}1${close.repeat(depth)}}`;
}

/** Framing: BOM, truncation, deep nesting, sizes around the 64 KiB limit, garbage bytes, UTF-16. */
const payload: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 4, arbitrary: mutatedBody },
  { weight: 1, arbitrary: mutatedBody.map((json) => `\uFEFF${json}`) },
  { weight: 1, arbitrary: fc.tuple(mutatedBody, fc.nat()).map(([json, cut]) => json.slice(0, cut % Math.max(1, json.length))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      nested(10_000, '[', ']'),
      nested(10_000, '{"a":', '}'),
      nested(9_000, '{"constructor":', '}'),
      '['.repeat(100_000),
      padded(MINIMAL, LIMIT),
      padded(MINIMAL, LIMIT + 1),
      `{"client":{"first_name":"Jane","email":"jane@example.com"},"message":"${'z'.repeat(LIMIT)}"}`,
      '',
      ' ',
      'null',
      '[]',
      '"client"',
      '{"client":{"first_name":"Jane","email":"jane@example.com"},"client":{"first_name":"X"}}',
      '{"client":{"first_name":"Jane","email":"jane@example.com"}}garbage',
      '{"client":{"first_name":"J\\u0000","email":"j@e.co"}}',
      '{"client":{"first_name":"\\ud800","email":"j@e.co"}}',
      '{"client":{"first_name":"Jane","email":"j@e.co"},"preferences":{"max_budget":1e309}}',
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: mutatedBody.map((json) => Buffer.from(json, 'utf16le')) },
);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'APPLICATION/JSON', 'application/json; charset=utf-16',
  'application/json; charset=latin1', 'application/json; foo=bar; charset=utf-8', 'text/plain', 'text/json', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'application/jsonp', 'application/json-patch+json', 'application/vnd.api+json', 'application/*', '*/*', ';;;',
  'application/json\u0000', '',
];

const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(255), 'a'.repeat(256), 'k'.repeat(10_000), '', ' ', 'key with spaces', 'tab\tkey', 'nul\u0000key', 'bell\u0007', 'é', '\u{1F600}', 'del\u007F') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 300 }) },
);

/** Ids of the path: the fixture unit mostly, then unpriced (2), draft (3), and hostile text. */
const unitId: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(String(UNIT)) },
  { weight: 1, arbitrary: fc.constantFrom('2', '3', '1e0', '0x1', '-0', '99999999999999999999', '1'.repeat(120)) },
  { weight: 1, arbitrary: numberText.map((text) => text.replace(/[^A-Za-z0-9._~+-]/g, (c) => percentEncode(c))) },
  { weight: 1, arbitrary: urlText(hostileText) },
);

describe.each(drivers)('input fuzzing: POST /units/{id}/applications (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let documented: Documented;

  useTestApp(driver, fuzzBundle(), (started) => ({ t, key, assertDocumented: documented } = started), { documented: true });

  const post = (body: string | Buffer, headers: Record<string, string> = {}, id = String(UNIT)) =>
    injectWithin(t.app, { method: 'POST', url: `/units/${id}/applications`, headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers }, payload: body });

  it('any body built from a valid one by hostile mutations', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedBody, async (body) => assertSafe(await post(body), OPERATION, documented)),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
  });

  it('any framing, content type, Idempotency-Key and path id', async () => {
    await fc.assert(
      fc.asyncProperty(
        payload,
        fc.oneof(
          { weight: 4, arbitrary: fc.constant('application/json') },
          { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        idempotencyKey,
        unitId,
        fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
        async (body, contentType, idempotency, id, lieAboutLength) => {
          const headers: Record<string, string> = { 'x-api-key': key };
          if (contentType !== undefined) headers['content-type'] = contentType;
          if (idempotency !== undefined) headers['idempotency-key'] = idempotency;
          // A Content-Length that disagrees with the body must not make the server wait for more.
          if (lieAboutLength) headers['content-length'] = String(Buffer.byteLength(body) + 7);
          const res = await injectWithin(t.app, { method: 'POST', url: `/units/${id}/applications`, headers, payload: body });
          assertSafe(res, OPERATION, documented);
        },
      ),
      { seed: FUZZ_SEED, numRuns: 150 },
    );
  });

  // Regressions found by the properties above, and the limits the specification names.

  it.each([
    ['{"client":{"first_name":"J\\u0000ane","email":"nul@example.com"}}', 'client.first_name must not contain NUL characters (U+0000)'],
    ['{"client":{"first_name":"Jane","email":"nul@example.com"},"message":"\\u0000"}', 'message must not contain NUL characters (U+0000)'],
    ['{"client":{"first_name":"Jane","email":"nul@example.com"},"preferences":{"property_features":["ok","a\\u0000"]}}', 'preferences.property_features[1] must not contain NUL characters (U+0000)'],
    ['{"client":{"first_name":"\\ud800","email":"surrogate@example.com"}}', 'client.first_name must be valid Unicode (it contains a lone surrogate)'],
    ['{"client":{"first_name":"Jane","email":"big@example.com"},"preferences":{"min_budget":1e309}}', 'preferences.min_budget must be a finite number'],
    ['{"client":{"first_name":"Jane","email":"big@example.com"},"preferences":{"max_budget":-1e309}}', 'preferences.max_budget must be at least 0'],
  ])('answers 400 instead of 500 for %s', async (body, message) => {
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message });
  });

  it('keeps well-formed Unicode (emoji, RTL, combining marks) as sent', async () => {
    const first = '\u{1F3D9}\uFE0F \u202Eمريم\u202C e\u0301';
    const res = await post(JSON.stringify({ client: { first_name: first, email: 'unicode@example.com' } }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.client.first_name).toBe(first);
  });

  it('takes a body of exactly 64 KiB and refuses 64 KiB + 1 byte', async () => {
    const exact = padded(JSON.stringify({ client: { first_name: 'Jane', email: 'exact@example.com' } }), LIMIT);
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    expect((await post(exact)).statusCode).toBe(201);
    const over = await post(`${exact} `);
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ status: 'error', message: 'request body must not exceed 64 KiB' });
  });

  it('names a Content-Length that disagrees with the body, rather than blaming the Content-Type', async () => {
    for (const length of [Buffer.byteLength(MINIMAL) + 7, Buffer.byteLength(MINIMAL) - 1]) {
      const res = await post(MINIMAL, { 'content-length': String(length) });
      expect(res.statusCode, `${length}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'request body length does not match its Content-Length header' });
    }
  });

  it('answers 400 for 10,000 levels of nesting', async () => {
    for (const body of [nested(10_000, '[', ']'), nested(10_000, '{"a":', '}'), '['.repeat(10_000) + ']'.repeat(10_000)]) {
      const res = await post(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().status).toBe('error');
    }
  });

  it.each(['1e0', '0x1', '%201', '-0'])('answers 400 for the unit id %s', async (id) => {
    const res = await post(MINIMAL, {}, id);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'id must be a positive integer' });
  });
});
