import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { BundleError } from './bundle-error.js';
import { BundleSchema, type Bundle } from './bundle-schema.js';
import { pointerToPath } from '../domain/json-pointer.js';

/*
 * The first step of an import: is the input a bundle at all? Checked against BundleSchema before any
 * database work, stopping at the first problem, which is worded for the person who wrote the bundle
 * (`units[12].status: must be one of ...`) rather than in ajv's terms. Also refused here: what the
 * schema cannot say but the database could not store (NUL characters, out-of-range timestamps).
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let validator: ValidateFunction<Bundle> | undefined;

function compileValidator(): ValidateFunction<Bundle> {
  // allErrors off: stop at the first problem (fast on large bundles, and only one is reported).
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: false, coerceTypes: false, useDefaults: false });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' });
  // Checked after `format`, so it only sees well-formed RFC 3339 strings.
  ajv.addKeyword({
    keyword: 'x-storable-timestamp',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (enabled: boolean, value: string) => !enabled || isStorableTimestamp(value),
  });
  return ajv.compile<Bundle>(BundleSchema);
}

/** The bundle, typed, or a BundleError describing its first problem. */
export function validateBundle(input: unknown): Bundle {
  validator ??= compileValidator();
  if (!validator(input)) throw new BundleError(describeSchemaError(validator.errors?.[0]));
  const unstorable = findUnstorableValue(input, '');
  if (unstorable) throw new BundleError(unstorable);
  return input;
}

const NUL_PROBLEM = 'must not contain the NUL character (\\u0000)';

/*
 * PostgreSQL text and jsonb cannot hold U+0000; left to the database, a NUL would fail the whole
 * section without naming the record. Nor is a number that is not finite a value of the catalogue: JSON
 * has none, but JSON.parse reads `1e400` as Infinity and a bundle built in code may hold NaN, both of
 * which the schema's type and range checks let through (NaN fails no comparison). Walks every value,
 * facilities[].data included.
 */
function findUnstorableValue(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? `${path}: ${NUL_PROBLEM}` : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path}: must be a finite number`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableValue(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return `${path}: field names ${NUL_PROBLEM}`;
    const found = findUnstorableValue(item, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** PostgreSQL refuses UTC offsets beyond this (minutes). */
const MAX_OFFSET_MIN = 15 * 60 + 59;
const DAY_S = 24 * 60 * 60;
const TIMESTAMP_PARTS = /^(\d{4})-(\d\d)-(\d\d)[t\s](\d\d):(\d\d):(\d\d(?:\.\d+)?)(?:z|([+-])(\d\d)(?::?(\d\d))?)$/i;

/*
 * An RFC 3339 timestamp the database stores and gives back unchanged: an offset PostgreSQL accepts, and
 * an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z (PostgreSQL would store a year
 * 0, BC or 10000 instant, but it reads back as a string that is no RFC 3339 timestamp).
 */
function isStorableTimestamp(value: string): boolean {
  const parts = TIMESTAMP_PARTS.exec(value);
  if (!parts) return true; // not well formed: `format` reports it
  const [, year, month, day, hour, minute, second, sign, offsetHours = '0', offsetMinutes = '0'] = parts;
  const offsetMin = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  if (Math.abs(offsetMin) > MAX_OFFSET_MIN || year === '0000') return false;
  // Seconds of the UTC day, rounded to microseconds as the database stores them.
  const utcS = Number(hour) * 3600 + Number(minute) * 60 + Math.round(Number(second) * 1e6) / 1e6 - offsetMin * 60;
  if (year === '0001' && month === '01' && day === '01' && utcS < 0) return false;
  if (year === '9999' && month === '12' && day === '31' && utcS >= DAY_S) return false;
  return true;
}

function describeSchemaError(error: ErrorObject | undefined): string {
  if (!error) return 'bundle: invalid bundle';
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    return path ? `${path}.${name}: unknown field` : `bundle: unknown section "${name}"`;
  }
  if (error.keyword === 'required') {
    const field = String(params.missingProperty);
    return `${path ? `${path}.${field}` : field}: is required`;
  }
  return `${path || 'bundle'}: ${schemaProblem(error, params)}`;
}

function schemaProblem(error: ErrorObject, params: Record<string, unknown>): string {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const custom = schema['x-error-message'];
  if (typeof custom === 'string') return custom;
  switch (error.keyword) {
    case 'type':
      return `must be ${String(params.type).split(',').map(typeName).join(' or ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return rangeProblem(schema);
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : JSON.stringify(v))).join(', ')}`;
    case 'format':
      return params.format === 'date-time'
        ? 'must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'
        : `must be a valid ${String(params.format)}`;
    case 'uniqueItems': {
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return `must not contain duplicates (items ${first} and ${second} are equal)`;
    }
    case 'x-storable-timestamp':
      return 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, with a UTC offset within ±15:59';
    case 'minLength':
      return 'must not be empty';
    default:
      return error.message ?? 'is invalid';
  }
}

function rangeProblem(schema: Record<string, unknown>): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return `must be between ${String(minimum)} and ${String(maximum)}`;
  const lower = minimum !== undefined ? `at least ${String(minimum)}` : exclusiveMinimum !== undefined ? `greater than ${String(exclusiveMinimum)}` : '';
  const upper = maximum !== undefined ? `at most ${String(maximum)}` : exclusiveMaximum !== undefined ? `less than ${String(exclusiveMaximum)}` : '';
  return `must be ${[lower, upper].filter(Boolean).join(' and ')}`;
}

function typeName(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false',
    object: 'an object', array: 'an array', null: 'null',
  };
  return names[type] ?? type;
}
