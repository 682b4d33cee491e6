import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { App } from '../../src/http/app.js';
import { baseBundle, DEV, withRecords, type Bundle } from './fixtures.js';
import type { openApiValidator } from './openapi.js';

/*
 * Shared pieces of the input-fuzzing suites (test/fuzz-*.test.ts): a small catalogue, hostile text and
 * numbers, raw URL encodings, and the property every response must satisfy.
 */

/**
 * Fixed, so a run is reproducible; fast-check prints seed and path of a failure for replay. FUZZ_SEED
 * explores other inputs locally (`FUZZ_SEED=$RANDOM npx vitest run test/fuzz-query.test.ts`).
 */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20260417;
/** Longer than any request to the embedded database should take, far shorter than the test timeout. */
export const RESPONSE_TIMEOUT_MS = 10_000;

export const PROJECT = 1;
export const UNIT = 1;

/** One visible project with every block filled, a unit with tags, a nearby facility. */
export function fuzzBundle(): Bundle {
  return withRecords(baseBundle(), {
    files: [{ id: 60, path: 'projects/1/cover.jpg', original_name: 'cover.jpg', storage_name: 'c.jpg', mime_type: 'image/jpeg', size: 5000 }],
    projects: [
      {
        id: PROJECT, company_id: DEV, author_id: 111, area_id: 1, name: 'Marina Vista', type: 2, development_status: 2, is_branded: true,
        escrow_account: 'ESC-1', handover_date: '2027-03-31T00:00:00Z', latitude: 25.08, longitude: 55.14, currency: 'AED',
        image_file_ids: [60], payment_plans: [{ type: 1, percent: 20 }, { type: 3, percent: 80 }], feature_ids: [1, 3],
      },
      { id: 2, company_id: DEV, name: 'Hidden Draft', is_draft: true },
    ],
    units: [
      { id: UNIT, project_id: PROJECT, unit_number: 'A-101', bedrooms: 2, status: 4, price: 1_000_000, unit_area: 80, parking: 1, tag_ids: [1, 2] },
      { id: 2, project_id: PROJECT, unit_number: 'A-102', bedrooms: 0, status: 3, unit_area: 35 },
      { id: 3, project_id: 2, unit_number: 'X', price: 1 },
    ],
    facilities: [{ category: 'transport', source_id: 'T-1', data: { name: 'Metro', asset_latitude: 25.081, asset_longitude: 55.14 } }],
  });
}

// ---------------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------------

const SPECIAL_TEXT = [
  '', ' ', '\t', '\u0000', 'a\u0000b', '\uD800', '\uDFFF', 'x\uDBFFy', '\uFEFF', '\u202Eevil\u202C', 'مرحبا', '\u{1F3D9}\u{FE0F}\u{1F469}\u{200D}\u{1F4BB}',
  'e\u0301', '\u00A0', '\r\n', "'; DROP TABLE projects; --", "' OR '1'='1", '%', '_', '\\', '%_\\', '"', '{}', '[]', 'null', 'true', 'false',
  'undefined', '__proto__', 'constructor', '$where', '../../etc/passwd', '<script>alert(1)</script>', 'a'.repeat(201), '9'.repeat(400),
];

export const SPECIAL_NUMBERS = [
  'NaN', 'Infinity', '-Infinity', '+Infinity', '-0', '+0', '0', '00', '1', '-1', '1e309', '-1e309', '1e308', '1e-400', '5e-324', '1e3', '1E3', '1.0',
  '1.', '.5', '0x10', '0b11', '0o7', '1_000', '1,5', '1 ', ' 1', '+1', '--1', '2147483647', '2147483648', '-2147483649', '9007199254740993',
  '99999999999999999999', '123456789012345678901234567890', '0.1e1', '1e', 'e1', '∞', '١٢٣',
];

/** Text from every corner of Unicode, including what is not valid Unicode at all. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_TEXT, ...SPECIAL_NUMBERS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('\u0000', '\uD800', '\uDC00', '\u202E', ',', '%', '1', 'a', '\u{1F600}'), maxLength: 12 }) },
);

/** Numbers as text: extremes, non-finite, non-decimal notations and ordinary values. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...SPECIAL_NUMBERS),
  fc.double().map(String),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((n) => n.toExponential()),
);

// ---------------------------------------------------------------------------------------------------
// URL encoding
// ---------------------------------------------------------------------------------------------------

/** UTF-8 percent-encoding of every byte (a lone surrogate becomes U+FFFD, as any client would send it). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** A value as it may appear in a URL: properly encoded, as raw bytes that are not UTF-8, or half-encoded. */
export const urlText = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: value.map(percentEncode) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 8 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')) },
    { weight: 1, arbitrary: fc.constantFrom('%C3%28', '%ED%A0%80', '%F0%28%8C%BC', '%FF', '%C0%AF', '%00', '%', '%Z', '%%', '%2', '+', '%2B', '%26', '%3D', '%23') },
  );

// ---------------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------------

/*
 * What an error message must never show: a stack trace, database text, file paths, exception names.
 * An `unknown ...: <name>` message echoes what the client sent, so only its fixed part is checked.
 */
const LEAKS: RegExp[] = [
  /\bat\s+\S+\s+\(/, /\bat\s+(file|node):/, /:\d+:\d+\b/, /\bselect\b/i, /\binsert\b/i, /\bupdate\b.*\bset\b/i, /syntax error/i, /\brelation\b/i,
  /\bcolumn\b/i, /\bSQLSTATE\b/, /\bviolates\b/i, /\bduplicate key\b/i, /\bpglite\b/i, /\bpostgres\b/i, /\binvalid byte sequence\b/i,
  /node_modules/, /\/(work|home|usr|src|tmp|app)\//, /[A-Za-z]:\\/, /\.(ts|js|mjs|cjs)\b/, /\b[A-Z][a-z]+Error\b/, /\bFST_[A-Z_]+\b/, /\bundefined\b/,
  /\[object Object\]/,
];

function fixedPart(message: string): string {
  const echo = /^(unknown [a-z ]+: )/.exec(message);
  return echo ? echo[1] : message;
}

export interface Expectation {
  method: 'GET' | 'POST';
  /** The OpenAPI path template of the operation, to check a success against. */
  template: string;
}

export type Documented = Awaited<ReturnType<typeof openApiValidator>>;

/**
 * The property: a documented success, or a 4xx in the error envelope with a clean message. Never a 5xx,
 * never a body in another shape.
 */
export function assertSafe(response: LightMyRequestResponse, expected: Expectation, documented: Documented): void {
  const { statusCode } = response;
  const context = `${statusCode} ${response.body.slice(0, 500)}`;
  expect(statusCode, context).toBeLessThan(500);
  expect(response.headers['content-type'], context).toMatch(/^application\/json/);
  const body = response.json() as Record<string, unknown>;
  if (statusCode >= 200 && statusCode < 300) {
    documented(expected.method, expected.template, statusCode, body);
    return;
  }
  expect(statusCode, context).toBeGreaterThanOrEqual(400);
  expect(Object.keys(body).sort(), context).toEqual(['message', 'status']);
  expect(body.status, context).toBe('error');
  expect(typeof body.message, context).toBe('string');
  const message = body.message as string;
  expect(message.length, context).toBeGreaterThan(0);
  const fixed = fixedPart(message);
  for (const leak of LEAKS) expect(fixed, `${context}: message matches ${leak}`).not.toMatch(leak);
}

/** app.inject that fails instead of hanging. */
export async function injectWithin(app: App, options: InjectOptions, timeoutMs = RESPONSE_TIMEOUT_MS): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no response within ${timeoutMs} ms: ${options.method} ${String(options.url).slice(0, 200)}`)), timeoutMs);
  });
  try {
    return await Promise.race([app.inject(options), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
