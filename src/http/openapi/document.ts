import type { SwaggerOptions, SwaggerTransformObject } from '@fastify/swagger';
import { addHttpConventions } from './http.js';
import { webhookDocs } from './webhooks.js';

/** Raised with every change of the API (CHANGELOG.md); see "Versioning and changes" below. */
export const API_VERSION = '1.2.0';

/*
 * The OpenAPI 3.1 document is generated from the route schemas; this file only adds what no route
 * schema can say: the overview, security schemes and the decisions taken where the specification
 * leaves a point open ("not shown").
 */
const description = `
Partner read access to the catalogue of off-plan and ready projects in the UAE, with every price in
the agency's own prices, and one write operation: an end client's application for a unit, recorded in
the agency's CRM as client + opportunity + draft offer, all or nothing.

## Authentication
Send the agency API key as \`X-API-Key: <key>\` or \`Authorization: Bearer <key>\` (a bare
\`Authorization: <key>\` works too). When an \`Authorization\` header with the Bearer scheme (or no
scheme) is present it is used; any other scheme is ignored and \`X-API-Key\` is read. Keys look like
\`ck_\` followed by 64 lowercase hexadecimal characters. Checks run in this order: missing key (401
\`missing api key\`), unknown, malformed, revoked or deleted key (401 \`invalid api key\`), the key's
domain list against the host of \`Origin\` (or \`Referer\`) (403 \`origin is not allowed for this api
key\`), the agency's licence (403 \`agency license is required: upload a company license and wait for
its approval\`).

## Envelope
Every response is \`{"status":"success","data":...}\` or \`{"status":"error","message":"..."}\`,
including unknown routes (404 \`route not found\`) and malformed requests (400, the message names the
parameter or field). Every response carries an \`X-Request-Id\` header (a valid incoming
\`X-Request-Id\` is echoed); quote it when reporting a problem.

## Prices
Every price is the base price times the key's \`price_factor\` (1 + price_vector/100), rounded half
away from zero to 2 decimals. Price filter bounds are in the same prices and compared against exactly
that rounded figure, so a unit shown at price P is matched by \`price_min=P&price_max=P\`.

## Compression
Responses of at least 1 KiB are compressed when the request's \`Accept-Encoding\` allows it: Brotli
(\`br\`, preferred at equal weight) or \`gzip\`, with \`Content-Encoding\` saying which; successful
\`GET\`s carry \`Vary: accept-encoding\`. A project detail of a large catalogue shrinks to about a ninth.
Without \`Accept-Encoding\` every body is sent as it is. The header is read as RFC 9110 §12.5.3 says: a
coding weighted \`q=0\` is never used, and \`*\` stands for every coding not named (\`gzip;q=0, *\` gets
Brotli, \`*\` alone Brotli, \`br;q=0, gzip;q=0, *\` no compression).

## Caching
Every successful keyed \`GET\` carries a strong \`ETag\` (a hash of the body, so it differs
between keys whose prices or visibility differ and changes whenever the data does) and
\`Cache-Control: private, no-cache\`: keep the response if you like, but revalidate it by sending its
ETag in \`If-None-Match\` (a list, \`W/\` tags and \`*\` are understood). While it still matches, the
answer is **304 Not Modified** with no body. Errors and the application (\`POST\`) carry no ETag.
Each representation has its own ETag: a compressed body's is the hash of its content with \`-br\` or
\`-gzip\` appended, and \`If-None-Match\` is compared with the ETag of the representation the request
would get (send the same \`Accept-Encoding\` as when you received the ETag).

## Field selection (an addition to the specification)
\`GET /projects\` and \`POST /projects/search\` (each item), \`GET /projects/{id}\` and \`GET /units/{id}\` take
\`fields\`, a comma-separated list of top-level property names; the answer then holds only those
properties, each with its full content. Each of these objects is described twice under
\`components.schemas\`: whole (\`ProjectListItem\`, \`ProjectDetail\`, \`UnitDetail\`, every specified
property required: the answer without \`fields\`) and selected (\`…Selection\`: the same properties, none
required: the answer with \`fields\`); the response schema is \`anyOf\` the two. A client that sends no
\`fields\` can rely on the whole object.

## Changes feed (an addition to the specification)
\`GET /changes\` is opt-in: nothing else changes for clients that do not call it. It lists, in commit
order, the projects and units that changed for the key (\`upsert\`: visible now, fetch the detail;
\`removed\`: deleted, turned draft, contract ended or developer removed; a removed project takes its
units with it). Start without a cursor, follow \`next_cursor\` while \`has_more\`, keep the last
\`next_cursor\` and call again later: a change committed after a page was read is never skipped. A
cursor is tied to its key and to the key's price vector: after a change of prices (every price changed),
with another key, or after the catalogue was restored, the answer is **410** \`cursor expired: start over
without a cursor\`; drop the mirror and start again. A cursor that was altered is refused with 400.

## Webhooks (an addition to the specification)
Instead of polling \`GET /changes\`, an agency can have the service POST to its HTTPS endpoint (set up
by the operator: \`catalogue webhooks create --key ID --url URL\`). An endpoint belongs to an API key
and sees exactly what the key sees, in the key's prices: the feed's entries as they are committed
(\`project.changed\`, \`project.removed\`, \`unit.changed\` with what changed among price, status and
availability and the previous values, \`unit.removed\`), \`application.created\` for applications sent
with any key of the agency, and \`ping\` for tests. The bodies are in the \`webhooks\` section.
- Signed as Standard Webhooks: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`; verify them
  on the raw body with any Standard Webhooks library and the endpoint's \`whsec_\` secret.
- At least once: retried until a 2xx (timeout 10 s; backoff with jitter for 72 h), so drop duplicates
  by \`webhook-id\`. Order is not guaranteed; each catalogue event carries \`catalogue_version\` and a
  \`cursor\` from which \`GET /changes\` lists it and everything after: after an outage, pull from the
  last cursor received. Events are recorded with the change they report, in its transaction.
- 410 Gone disables the endpoint at once; 72 h of failures disables it too. A disabled endpoint
  records no new events (catch up with \`GET /changes\` from the last cursor received).

## Versioning and changes
\`info.version\` follows semantic versioning. Additions (a new field in a response object, a new
optional parameter, a new header, a new operation) raise the minor version; every response object may
gain fields, so clients must ignore properties they do not know (response schemas leave
\`additionalProperties\` open for that reason). An answer the specification defines never changes
within a major version. Every change is announced in the changelog (CHANGELOG.md in the repository).

## Rate limits
Off unless the deployment enables them (the specification sets none). When on, each key may make a
fixed number of requests per window, counted per key after authentication (requests refused 401/403
do not count). Every keyed response then carries \`RateLimit-Policy: "per-key";q=<requests>;w=<window
seconds>\` and \`RateLimit: "per-key";r=<remaining>;t=<seconds until reset>\`
(draft-ietf-httpapi-ratelimit-headers); past the limit the answer is **429** \`rate limit exceeded,
retry in N seconds\` with \`Retry-After: N\`.

## Security
- The domain list compares the host of \`Origin\` (or \`Referer\`) exactly, case-insensitively and
  ignoring a trailing dot; scheme, port, path and query are ignored, and userinfo
  (\`https://agency.ae@evil.com\` is host \`evil.com\`) cannot disguise a host. The \`null\` origin, a
  value that is not an http(s) URL, and several origins in one header are refused. Like every
  Origin-based check, it stops other websites from using a key in visitors' browsers; a server-side
  client can send any header, so keep keys secret all the same.
- CORS: any origin may call the API from a browser (the key and its domain list decide); responses
  carry \`Vary: Origin\`. Every response carries \`X-Content-Type-Options: nosniff\`.
- Timeouts: the whole request (headers and body) must arrive within 30 s, and an idle keep-alive
  connection is closed after 72 s.

## Decisions where the specification is open
- Success status of every read operation: **200**. The application answers **201**.
- 404 messages: \`project not found\` for projects and their contacts, \`unit not found\` for units and
  applications, \`route not found\` for unknown paths. The same message is given whatever the cause
  (unknown id, draft, deleted, developer without an approved contract), so a key learns nothing about
  what it may not see.
- Unknown query parameters and unknown body fields are rejected with 400 naming them, so a misspelt
  filter never silently returns the whole catalogue.
- \`GET /projects/list\` returns its entries in \`data.items\`, like \`GET /companies\`.
- The nearby facilities of a project are in \`nearby_facilities\`, an object with one array per category
  (\`airports_ports\`, \`education\`, \`employment\`, \`healthcare\`, \`lifestyle\`, \`retail\`,
  \`transport\`, \`tourism\`); each entry is \`{distance, facility}\`, sorted by distance.
- Reads keep working for a key whose agency or author was removed; only the application answers 401
  \`api key author is gone\`, as specified.
- 500 versus 503: an unexpected failure (a bug, a constraint the service did not anticipate) is 500
  \`internal server error\`; retrying the same request is unlikely to help. When the database cannot be
  reached (connection refused, reset or closed, connect or query timeout, server shutting down) the
  answer is **503** \`service unavailable, retry later\` with a \`Retry-After\` header in seconds: the
  request was not processed (or, for an application interrupted at its commit, may have been; see the
  operation) and the same request works once the database is back, with no restart of the service.
  Requests do not hang on a missing database: a refused or lost connection is answered at once,
  opening or waiting for a connection gives up after 3 s, and a query on a connection that stops
  answering after 30 s. \`GET /health\` answers 503 \`database is down\` meanwhile.
`.trim();

/**
 * `publicBaseUrl` (PUBLIC_BASE_URL) is where integrators reach the API; unset, the server is `/`,
 * which OpenAPI resolves against wherever the document was fetched from.
 */
export const openApiOptions = (publicBaseUrl: string | undefined): SwaggerOptions => ({
  openapi: {
    openapi: '3.1.0',
    info: { title: 'Catalogue API', version: API_VERSION, description },
    servers: [
      publicBaseUrl
        ? { url: publicBaseUrl, description: 'Production' }
        : { url: '/', description: 'This server (PUBLIC_BASE_URL is not set: paths are relative to where this document was fetched)' },
    ],
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Agency API key.' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Agency API key as a bearer token.' },
      },
    },
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    tags: [
      { name: 'Key', description: 'The API key itself.' },
      { name: 'Catalogue', description: 'Projects, units and developers visible to the key.' },
      { name: 'Reference', description: 'Reference lists used by filters and applications.' },
      { name: 'Applications', description: 'Send an end client\u2019s application into the agency CRM.' },
      { name: 'AI agents', description: 'The catalogue and the application for AI assistants, over the Model Context Protocol (also: /llms.txt).' },
      { name: 'Service', description: 'Routes that need no key.' },
      { name: 'Webhooks', description: 'Requests this service sends to an agency\u2019s endpoint (see "Webhooks" above).' },
    ],
    webhooks: webhookDocs(),
  },
  transformObject: addHttpConventions as SwaggerTransformObject,
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
  },
});
