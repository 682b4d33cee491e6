import type { FastifyRequest } from 'fastify';
import { FilterError } from '../domain/project-filters.js';
import { ApiError, type FieldError } from './errors.js';

/*
 * Every validation error at once, opt-in: a request with `Prefer: errors=all` (RFC 7240) gets, on a
 * 400, the list of every problem found beside the specified `message` (unchanged, and the list's first
 * entry), and `Preference-Applied: errors=all`. Without the preference the envelope is exactly the
 * specified `{status, message}`. What "every problem" covers: every failure of the request's schema
 * (query, body, header), one per field; once the schema passes, every failure of the rules checked
 * after it (the GET /projects filters). Problems of a later stage are not looked for while an earlier
 * stage fails (a body that is not JSON has no field to name).
 */
export const PREFERENCE = 'errors=all';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's rules checked after its body schema, as problems of the body as it came (any shape):
     * listed with the schema's problems when the schema refuses the body, so that one submission
     * learns every rule (an application's "e-mail or mobile number").
     */
    bodyRules?: (body: unknown) => ReadonlyArray<{ field: string; message: string }>;
  }
}

/** Whether the request asked for every error (`Prefer: errors=all`, among other preferences or not). */
export function wantsEveryError(request: FastifyRequest): boolean {
  const header = request.headers.prefer;
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((value) => value.split(',').some((preference) => preference.split(';')[0].trim().toLowerCase().replace(/\s+/g, '') === PREFERENCE));
}

/**
 * The list sent for a 400: the problems the error carries (a schema refusal, every GET /projects
 * filter problem), or its message alone, about no one field.
 */
export function everyErrorOf(message: string, error: unknown, request?: FastifyRequest): FieldError[] {
  if (error instanceof ApiError && error.errors && error.errors.length > 0) return withBodyRules(error.errors, request);
  if (error instanceof FilterError) return [error, ...error.also].map((problem) => ({ field: problem.parameter, code: 'invalid', message: problem.message }));
  return [{ field: null, code: 'invalid', message }];
}

/** The schema's problems, then each of the route's body rules that fails about a field not listed yet. */
function withBodyRules(errors: FieldError[], request: FastifyRequest | undefined): FieldError[] {
  const rules = request?.routeOptions.config.bodyRules;
  if (!rules) return errors;
  const listed = new Set(errors.map((problem) => problem.field));
  const more = rules(request.body)
    .filter((problem) => !listed.has(problem.field))
    .map((problem): FieldError => ({ field: problem.field, code: 'invalid', message: problem.message }));
  return [...errors, ...more];
}
