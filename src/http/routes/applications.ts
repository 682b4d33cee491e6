import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApplicationRejected, contactRuleProblem } from '../../domain/application-merge.js';
import type { AppDeps } from '../deps.js';
import { requireLiveAuthor } from '../auth.js';
import { applicationRejected } from '../errors.js';
import { applicationsCreated, applicationsRefused } from '../../metrics/instruments.js';
import { APPLICATION_BODY_LIMIT, ApplicationBody, ApplicationHeaders, ApplicationResponse } from '../../contract/schemas/applications.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { IdParams } from '../../contract/schemas/params.js';

const description = `
Records an end client's enquiry about a unit in the CRM of the key's agency, in one transaction (all
or nothing): the client (an existing client of the agency with the same email, case-insensitive, or
the same mobile digits is reused unchanged), a new opportunity in the first stage of the agency's board
(at the end of the column), a draft offer for the unit (first offer status, unit price in the key's
prices, \`is_sent\` false, the key's author as advisor) and the link between offer and opportunity.

The request must be \`Content-Type: application/json\` and at most 64 KiB; a larger body, malformed
JSON or another content type gives 400. Unknown fields give 400.

Interests: explicit values are kept and, with \`preferences.based_on_unit\`, the unit's data is added
after them without duplicates. The budget is not merged: an explicit bound always wins; the unit price
fills a missing bound only when the range stays ordered. Explicit bounds with \`min_budget\` greater than
\`max_budget\` give 400.

Decisions where the specification is open:
- \`currency\` must be exactly \`AED\` or \`USD\` (upper-case); other values, \`aed\` included, give 400.
  When the offer's currency differs from the unit's and both have a rate (GET /currencies), the offer
  price and any budget bound derived from the unit are converted: base price × key factor × unit rate ÷
  offer rate, rounded half away from zero to the cent; \`offer.price_conversion\` (an addition, stored
  with the offer) gives the unit's own price, the rate and its \`as_of\`. Without a rate nothing is
  converted (the unit price is taken as is) and \`price_conversion.converted\` is false. Explicit budget
  bounds are taken as given, in the offer's currency.
- \`language\`: letters, digits, \`-\` and \`_\` only (e.g. \`en\`, \`en-GB\`), stored lower-cased.
- Names and email are stored without surrounding whitespace; a blank \`last_name\` is stored as null.
  \`mobile_number\` must contain at least one digit.
- Budget bounds and \`property_types\` values must not be negative; reference ids are at least 1.
- An agency whose board has no stage gets a stage \`New\` at position 0, created in the same transaction.
- A unit without a price gives an offer with \`price\` null and derives no budget.
- The operation is not idempotent unless the optional \`Idempotency-Key\` header is sent; a 500 after
  which the outcome is unknown can then be retried safely with the same key and body.

Private applications (a key setting, off by default; \`keys create --private-applications\`, bundle
\`api_keys[].private_applications\`). Meant for keys that sit in web pages, where anyone can send any
contact. The CRM records are written exactly as above (a known client is still reused); only the answer
changes. It is built only from what the request sent and what the unit derived, never from a stored
value, and is the same whether the contact was new or known:
- \`client\`: \`first_name\`, \`last_name\`, \`email\`, \`mobile_number\` as the request gave them (trimmed,
  e-mail lower-cased), and \`property_types\`, \`preferred_area_ids\`, \`property_features\` as this
  application sent and derived them, never those stored on a known client. No \`id\`, \`created\` or
  \`created_at\`.
- \`opportunity\`: \`name\` made from the names the request sent (not the stored client's),
  \`investment_type\`, \`currency\`, \`min_budget\`, \`max_budget\`, \`preferences\`, \`project_preferences\`.
  No \`id\`, \`stage\`, \`position\` or \`created_at\`.
- \`offer\`: \`unit\`, \`price\`, \`language\`, \`currency\`, \`measure_units\`, \`is_sent\`. No \`id\`, \`uuid\`,
  \`offer_status\`, advisor fields or \`created_at\`.

The setting is part of what an \`Idempotency-Key\` remembers: after the key's setting changed, an
\`Idempotency-Key\` used before answers 409 instead of replaying an answer of the other form.
`.trim();

export const applicationRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { applications }) => {
  // Only JSON is accepted: without this, Fastify's built-in text/plain parser would hand a string to
  // the validator. Encapsulated, so it only affects this route.
  app.removeContentTypeParser('text/plain');

  app.post(
    '/units/:id/applications',
    {
      bodyLimit: APPLICATION_BODY_LIMIT,
      // With `Prefer: errors=all`, a body the schema refuses also learns the contact rule at once.
      config: { bodyRules: (body: unknown) => [contactRuleProblem(body)].filter((problem) => problem !== undefined) },
      // Before the body is read: a key whose agency or author is gone is a configuration problem (401)
      // whatever the body says.
      onRequest: async (request) => requireLiveAuthor(request.auth),
      // Every refusal is counted, also those answered before the handler (schema, key, author).
      onResponse: async (request, reply) => {
        if (reply.statusCode >= 400) applicationsRefused.inc({ reason: refusedFor.get(request) ?? refusalByStatus(reply.statusCode) });
      },
      schema: {
        tags: ['Applications'],
        summary: 'Submit an end-client application',
        operationId: 'submitApplication',
        description,
        params: IdParams,
        headers: ApplicationHeaders,
        body: ApplicationBody,
        response: responses({ 201: Success(ApplicationResponse, 'Created: the client (new or reused), the opportunity and the draft offer; for a key with private applications, the second form (see the description).') }, [404, 409], {
          400: 'Invalid request: body not JSON, larger than 64 KiB or of another content type; a field over its limit, an unknown reference id, an inverted budget, `client.email or client.mobile_number is required`. The message names the field.',
          401: 'Missing or invalid API key (`missing api key`, `invalid api key`), or `api key author is gone` when the key\u2019s agency or author was removed. Retrying does not help.',
          404: '`unit not found`: unknown or deleted unit, draft or deleted project, or a developer without an approved contract (all alike).',
          409: 'Idempotency-Key conflict: reused with a different body or unit, or the first request with this key is still running.',
          500: '`internal server error` (unexpected, logged), or `offer status catalogue is empty` (reference data not configured; retrying does not help). Nothing was written. Retrying without an Idempotency-Key after an ambiguous failure can create a duplicate opportunity and offer.',
          503: '`service unavailable, retry later`, with `Retry-After`: the database could not be reached, or the application waited more than 15 s for its turn behind other applications (nothing was written then). A connection lost before the commit wrote nothing; one lost during the commit leaves the outcome unknown to the service, so retry with the same Idempotency-Key (it replays the 201 if the first attempt was committed) rather than without one.',
        }),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const idempotencyKey = request.headers['idempotency-key'];
      try {
        const outcome = await applications.submit({ unitId: id, body: request.body, key: request.auth, idempotencyKey });
        if (outcome.replayed) request.log.info({ idempotencyKey }, 'idempotent replay: stored response returned, nothing written');
        applicationsCreated.inc({ replayed: outcome.replayed ? 'true' : 'false' });
        // Only 201 responses are ever stored for replay.
        reply.code(outcome.statusCode as 201);
        return ok(outcome.data);
      } catch (error) {
        if (error instanceof ApplicationRejected) {
          refusedFor.set(request, error.reason.code === 'idempotency_mismatch' || error.reason.code === 'idempotency_in_flight' ? 'idempotency_conflict' : error.reason.code);
          throw applicationRejected(error.reason);
        }
        throw error;
      }
    },
  );
};

/** The reason of a refusal the handler saw (a rejection of the domain); others are told by their status. */
const refusedFor = new WeakMap<object, string>();

function refusalByStatus(statusCode: number): string {
  if (statusCode === 400) return 'invalid';
  if (statusCode === 401) return 'unauthorized';
  if (statusCode === 403) return 'forbidden';
  if (statusCode === 404) return 'unit_not_found';
  if (statusCode === 409) return 'idempotency_conflict';
  if (statusCode === 429) return 'rate_limited';
  if (statusCode === 503) return 'unavailable';
  if (statusCode >= 500) return 'internal';
  return 'other';
}

