import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { messages } from '../domain/error-catalogue.js';
import type { FieldError } from './errors.js';
import { pointerToPath } from '../domain/json-pointer.js';

/*
 * Request validation. Query strings and path parameters arrive as text, so they are coerced to the
 * declared types; JSON bodies are not coerced (a number sent as "12" is an error the integrator should
 * see). Unknown properties are rejected everywhere, so a misspelt filter never silently returns
 * everything. A schema may carry `x-error-message` to replace ajv's wording for its own failures.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, allErrors = false): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' });
  return ajv;
}

const textAjv = makeAjv(true);
const bodyAjv = makeAjv(false);
// The same validation reporting every failure, run only on a request already found invalid: the
// message stays the first failure's (as the fail-fast validator finds it), the list comes from here.
const textAjvAll = makeAjv(true, true);
const bodyAjvAll = makeAjv(false, true);

/** Every failure of an invalid request, beside the fail-fast errors Fastify hands the error formatter. */
const everyFailure = new WeakMap<ErrorObject[], ErrorObject[]>();

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return guarded(bodyAjv.compile(schema as object), () => bodyAjvAll.compile(schema as object), [], true);
  // Headers carry every header the client sent, not only the declared ones: only the schema judges them.
  return guarded(textAjv.compile(schema as object), () => textAjvAll.compile(schema as object), numericProperties(schema), httpPart !== 'headers');
};

type NumericKind = 'integer' | 'number';

/*
 * What ajv lets through but the API must not take:
 * - Text is coerced with JavaScript's `+text`, which also reads `0x10`, ` 7`, `1e3` (as an integer) and
 *   `Infinity`: `/units/0x10` would name unit 16. Numbers in paths and queries must be plain decimals.
 * - Text with U+0000 or a lone surrogate cannot be stored as sent in PostgreSQL (NUL is refused, a
 *   surrogate is silently replaced), and JSON's `1e309` parses to Infinity, which no column holds.
 *   Checked once the schema has passed, so only declared, bounded fields are walked.
 */
function guarded(validate: ValidateFunction, compileAll: () => ValidateFunction, numeric: readonly NumericProperty[], scan: boolean) {
  let validateAll: ValidateFunction | undefined;
  const check = (data: unknown): boolean => {
    check.errors = null;
    const misspelt = misspeltNumbers(data, numeric);
    if (misspelt.length > 0) check.errors = [misspelt[0]];
    else if (!validate(data)) check.errors = validate.errors ?? [];
    else if (scan) {
      const unstorable = unstorableValue(data);
      if (unstorable) check.errors = [unstorable];
    }
    if (check.errors && check.errors[0].keyword !== 'unstorable') {
      validateAll ??= compileAll();
      // A misspelt number is text the schema would coerce or refuse on its own terms: named once, as misspelt.
      const misspeltPaths = new Set(misspelt.map((error) => error.instancePath));
      const schemaFailures = validateAll(data) ? [] : (validateAll.errors ?? []).filter((error) => !misspeltPaths.has(error.instancePath));
      everyFailure.set(check.errors, [...misspelt, ...schemaFailures]);
    }
    return check.errors === null;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
}

function numericKind(schema: Record<string, unknown>): NumericKind | undefined {
  if (schema.type === 'integer' || schema.type === 'number') return schema.type;
  const branches = schema.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(branches) && branches.length > 0 && branches.every((branch) => numericKind(branch))) return 'number';
  return undefined;
}

/** A declared numeric property of a query or path schema (its text must match DECIMAL[kind]). */
interface NumericProperty {
  name: string;
  kind: NumericKind;
  schema: object;
}

function numericProperties(schema: unknown): NumericProperty[] {
  const properties = ((schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {}) as Record<string, Record<string, unknown>>;
  const numeric: NumericProperty[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const kind = numericKind(property);
    if (kind) numeric.push({ name, kind, schema: property });
  }
  return numeric;
}

const DECIMAL: Record<NumericKind, RegExp> = {
  integer: /^-?\d+$/,
  number: /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/,
};

/*
 * Both checks run on every request with parameters (the misspelt numbers before the schema, the
 * unstorable values after it): a request that passes makes no pointer text and no per-value arrays
 * (only the walk's small stack); a pointer is made only for the value that fails.
 */

/** What misspeltNumbers finds when nothing is misspelt: one shared, empty, frozen list. */
const NONE_MISSPELT: readonly ErrorObject[] = Object.freeze([]);

function misspeltNumbers(data: unknown, numeric: readonly NumericProperty[]): readonly ErrorObject[] {
  if (numeric.length === 0 || data === null || typeof data !== 'object') return NONE_MISSPELT;
  let misspelt: ErrorObject[] | undefined;
  for (const { name, kind, schema } of numeric) {
    const decimal = DECIMAL[kind];
    const value = (data as Record<string, unknown>)[name];
    const wrong = typeof value === 'string' ? !decimal.test(value) : Array.isArray(value) && value.some((item) => typeof item === 'string' && !decimal.test(item));
    if (wrong) (misspelt ??= []).push({ keyword: 'type', instancePath: `/${escapePointer(name)}`, schemaPath: '', params: { type: kind }, parentSchema: schema });
  }
  return misspelt ?? NONE_MISSPELT;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string or number cannot be stored as sent; undefined when it can (or it is neither). */
function unstorableReason(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain NUL characters (U+0000)';
    if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (it contains a lone surrogate)';
  } else if (typeof value === 'number' && !Number.isFinite(value)) return 'must be a finite number';
  return undefined;
}

/**
 * The first string or number (depth first) that cannot be stored as sent. Walked with a stack, not
 * recursion: a GeoJSON member the schema lets through may nest as deep as the body limit allows.
 */
function unstorableValue(data: unknown): ErrorObject | undefined {
  const reason = unstorableReason(data);
  if (reason) return { keyword: 'unstorable', instancePath: '', schemaPath: '', params: {}, message: reason };
  if (data === null || typeof data !== 'object') return undefined;
  const stack: Frame[] = [];
  enter(stack, data);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const length = top.keys ? top.keys.length : (top.container as unknown[]).length;
    if (top.next >= length) {
      stack.pop();
      continue;
    }
    const at = top.next++;
    const value = top.keys ? (top.container as Record<string, unknown>)[top.keys[at]] : (top.container as unknown[])[at];
    const message = unstorableReason(value);
    if (message) return { keyword: 'unstorable', instancePath: pointerOf(stack), schemaPath: '', params: {}, message };
    if (value !== null && typeof value === 'object') enter(stack, value);
  }
  return undefined;
}

/** A container still to walk, with the index of its next member (its keys when an object). */
interface Frame {
  container: object;
  keys: readonly string[] | undefined;
  next: number;
}

function enter(stack: Frame[], container: object): void {
  stack.push({ container, keys: Array.isArray(container) ? undefined : Object.keys(container), next: 0 });
}

/** The pointer of the member last taken from each container of the stack. */
function pointerOf(stack: readonly Frame[]): string {
  return stack.map(({ keys, next }) => `/${keys ? escapePointer(keys[next - 1]) : String(next - 1)}`).join('');
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const partNames: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
  body: 'field',
};

function join(path: string, child: string): string {
  return path ? `${path}.${child}` : child;
}

/**
 * Every problem of a request the schema refused, one per field, the first being the one
 * describeValidationError words (the envelope's `message`, unchanged).
 */
export function describeEveryValidationError(errors: ErrorObject[], dataVar: string): FieldError[] {
  const first: FieldError = { field: fieldOf(errors, dataVar), code: codeOf(errors), message: describeValidationError(errors, dataVar) };
  if (dataVar === 'params') return [first];
  const groups = new Map<string, ErrorObject[]>();
  for (const error of everyFailure.get(errors) ?? errors) {
    const subject = subjectPointer(error);
    groups.set(subject, [...(groups.get(subject) ?? []), error]);
  }
  const seen = new Set([first.field]);
  const list = [first];
  for (const group of groups.values()) {
    const field = fieldOf(group, dataVar);
    if (seen.has(field)) continue;
    seen.add(field);
    list.push({ field, code: codeOf(group), message: describeValidationError(group, dataVar) });
  }
  return list;
}

/** The pointer of the value a failure is about: for `required` and `additionalProperties`, the property named. */
function subjectPointer(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${error.instancePath}/${escapePointer(String(params.missingProperty))}`;
  if (error.keyword === 'additionalProperties') return `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`;
  return error.instancePath;
}

function fieldOf(errors: ErrorObject[], dataVar: string): string | null {
  if (dataVar === 'params') return 'id';
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  return pointerToPath(subjectPointer(union ?? errors[0])) || null;
}

/** The JSON Schema keyword that failed (`required`, `type`, `format`, `maxLength`, `pattern`, `anyOf`, …). */
function codeOf(errors: ErrorObject[]): string {
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  return (union ?? errors[0])?.keyword ?? 'invalid';
}

export function describeValidationError(errors: ErrorObject[], dataVar: string): string {
  if (errors.length === 0) return `invalid ${partNames[dataVar] ?? dataVar}`;
  if (dataVar === 'params') return messages.badId;
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (union) return describeUnionError(union, errors, dataVar);
  return describeOne(errors[0], dataVar);
}

/*
 * A union (nullable field, set of literals) fails once per branch. Say what the union accepts, unless
 * one branch got far enough to fail on something more specific than its type (e.g. a too-long string
 * for a nullable string): then that is the useful message.
 */
function describeUnionError(union: ErrorObject, errors: ErrorObject[], dataVar: string): string {
  const path = pointerToPath(union.instancePath);
  const custom = (union.parentSchema as Record<string, unknown> | undefined)?.['x-error-message'];
  if (typeof custom === 'string') return `${path} ${custom}`;
  const branches = errors.filter((e) => e !== union && e.instancePath === union.instancePath);
  const specific = errors.find((e) => e !== union && e.keyword !== 'type' && e.keyword !== 'const' && e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  if (specific) return describeOne(specific, dataVar);
  const constants = branches.filter((e) => e.keyword === 'const').map((e) => String((e.params as { allowedValue: unknown }).allowedValue));
  const types = branches.filter((e) => e.keyword === 'type').map((e) => String((e.params as { type: unknown }).type));
  const subject = path || 'value';
  if (constants.length && !types.length) return `${subject} must be one of: ${constants.join(', ')}`;
  return `${subject} must be ${[...new Set([...types.map(articleFor), ...constants])].join(' or ')}`;
}

function describeOne(error: ErrorObject, dataVar: string): string {
  const path = pointerToPath(error.instancePath);

  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-error-message'];
  if (typeof custom === 'string' && error.keyword !== 'required' && error.keyword !== 'additionalProperties') {
    return `${path} ${custom}`;
  }

  const subject = path || (dataVar === 'body' ? 'body' : partNames[dataVar] ?? dataVar);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${join(path, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return dataVar === 'querystring'
        ? `unknown query parameter: ${String(params.additionalProperty)}`
        : `unknown ${partNames[dataVar] ?? 'property'}: ${join(path, String(params.additionalProperty))}`;
    case 'type':
      return `${subject} must be ${articleFor(String(params.type))}`;
    case 'maxLength':
      return `${subject} must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return Number(params.limit) === 1 ? `${subject} must not be empty` : `${subject} must be at least ${String(params.limit)} characters`;
    case 'maxItems':
      return `${subject} must have at most ${String(params.limit)} items`;
    case 'minimum':
      return `${subject} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${subject} must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `${subject} must be greater than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `${subject} must be less than ${String(params.limit)}`;
    case 'enum':
      return `${subject} must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${subject} must be ${String(params.allowedValue)}`;
    case 'format':
      return `${subject} must be a valid ${String(params.format)}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

function articleFor(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'a boolean (true or false)',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}

export type RequestPart = 'querystring' | 'params' | 'headers' | 'body';

/**
 * A validator with the routes' rules and messages, for callers that are not Fastify routes (the MCP
 * tools validate their arguments as the matching part of the REST request): the message of the first
 * failure, or undefined. Query and path parts are coerced in place and get their defaults, as in routes.
 */
export function compileValidator(schema: object, part: RequestPart): (data: unknown) => string | undefined {
  const check = validatorCompiler({ schema, httpPart: part, method: 'POST', url: '' });
  return (data) => (check(data) ? undefined : describeValidationError((check as unknown as { errors: ErrorObject[] }).errors, part));
}
