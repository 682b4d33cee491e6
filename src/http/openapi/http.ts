import { COMPRESSION_THRESHOLD } from '../../bodies/compression.js';
import { errorExamples, ifNoneMatchExample, operationExamples } from './examples.js';

/*
 * What the generated document needs beyond the route schemas, added in one place so each route does
 * not repeat it: the headers every response carries (X-Request-Id, CORS, Vary...), conditional GETs
 * (ETag, If-None-Match, 304, Cache-Control), compression (Content-Encoding), the opt-in rate limit
 * (429, RateLimit headers), Retry-After where it is sent, the examples (openapi-examples.ts), and a
 * form of the validation rules that code generators read as plain strings.
 */
type Json = Record<string, any>;

const headers: Json = {
  XRequestId: {
    description: 'Identifier of this request: a valid incoming `X-Request-Id` (1 to 128 of `A-Z a-z 0-9 . _ : -`) is echoed, otherwise a new UUID. Quote it when reporting a problem.',
    schema: { type: 'string', example: '4f6c1f2e-8d3b-4c1a-9e7f-2b5d8a0c6e13' },
  },
  XContentTypeOptions: { description: 'Always `nosniff`.', schema: { type: 'string', example: 'nosniff' } },
  Vary: {
    description: '`Origin` on every response; successful `GET`s (200 and 304) add `accept-encoding`, since the body may be compressed.',
    schema: { type: 'string', example: 'Origin, accept-encoding' },
  },
  AccessControlAllowOrigin: {
    description: 'Only when the request has an `Origin` header: that origin (CORS; the key\u2019s domain list decides what a key may do).',
    schema: { type: 'string', example: 'https://www.example-agency.ae' },
  },
  AccessControlExposeHeaders: {
    description: 'Only when the request has an `Origin` header: the response headers a browser script may read.',
    schema: { type: 'string', example: 'X-Request-Id, ETag, Retry-After, RateLimit, RateLimit-Policy' },
  },
  ContentEncoding: {
    description: `\`br\` or \`gzip\` when the request\u2019s \`Accept-Encoding\` allows it (Brotli preferred at equal weight) and the body is at least ${COMPRESSION_THRESHOLD} bytes; absent otherwise (identity).`,
    schema: { type: 'string', enum: ['br', 'gzip'], example: 'gzip' },
  },
  ETag: {
    description:
      'Strong validator of this representation: a hash of the body, with `-br` or `-gzip` appended when the body is sent compressed (each representation has its own). It differs between keys whose prices or visibility differ. Send it back in `If-None-Match`.',
    schema: { type: 'string', example: ifNoneMatchExample },
  },
  CacheControl: {
    description: '`private, no-cache`: a client may keep the response but must revalidate it before use; shared caches must not store it.',
    schema: { type: 'string', example: 'private, no-cache' },
  },
  RateLimitPolicy: {
    description: 'Only when the deployment enables rate limiting: `"per-key";q=<requests>;w=<window seconds>` (draft-ietf-httpapi-ratelimit-headers).',
    schema: { type: 'string', example: '"per-key";q=600;w=60' },
  },
  RateLimit: {
    description: 'Only when the deployment enables rate limiting: `"per-key";r=<remaining>;t=<seconds until the window resets>`.',
    schema: { type: 'string', example: '"per-key";r=598;t=41' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1, example: 5 } },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const everyResponse = {
  'X-Request-Id': ref('XRequestId'),
  'X-Content-Type-Options': ref('XContentTypeOptions'),
  Vary: ref('Vary'),
  'Access-Control-Allow-Origin': ref('AccessControlAllowOrigin'),
  'Access-Control-Expose-Headers': ref('AccessControlExposeHeaders'),
};
const rateLimitHeaders = { RateLimit: ref('RateLimit'), 'RateLimit-Policy': ref('RateLimitPolicy') };
const validators = { ETag: ref('ETag'), 'Cache-Control': ref('CacheControl') };

const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETag(s) of a response you hold; when one matches the ETag of the representation this request would get, the answer is 304 with no body.',
  schema: { type: 'string' },
  example: ifNoneMatchExample,
};

const errorEnvelope = { $ref: '#/components/schemas/ErrorEnvelope' };

export function addHttpConventions({ openapiObject }: { openapiObject: Json }): Json {
  openapiObject.components = { ...openapiObject.components, headers: { ...openapiObject.components?.headers, ...headers } };
  for (const operations of Object.values<Json>(openapiObject.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      if (!operation.responses) continue;
      const keyed = !(Array.isArray(operation.security) && operation.security.length === 0);
      const responses = operation.responses;
      // A route that words its own 429 (POST /mcp: a JSON-RPC error) keeps it.
      if (keyed && !responses['429']) {
        responses['429'] = {
          description: 'Only when the deployment enables rate limiting: the key used up its requests for the current window. `rate limit exceeded, retry in N seconds`; retry after `Retry-After` seconds.',
          content: { 'application/json': { schema: errorEnvelope } },
        };
      }
      if (method === 'get' && keyed) addConditionalGet(operation);
      for (const [code, response] of Object.entries<Json>(responses)) {
        response.headers = { ...everyResponse, ...response.headers };
        // The limiter counts after authentication: 401 and 403 are answered before it.
        if (keyed && code !== '401' && code !== '403') Object.assign(response.headers, rateLimitHeaders);
        if (code.startsWith('2') && response.content) response.headers['Content-Encoding'] = ref('ContentEncoding');
        if (code === '429' || code === '503') response.headers['Retry-After'] = ref('RetryAfter');
        if (code === '409' && operation.operationId === 'submitApplication') {
          response.headers['Retry-After'] = { ...ref('RetryAfter'), description: 'Only while the first request with this Idempotency-Key is still running.' };
        }
      }
      operation.responses = Object.fromEntries(Object.entries<Json>(responses).sort(([a], [b]) => a.localeCompare(b)));
      addExamples(operation);
    }
  }
  flattenRuleWrappers(openapiObject);
  // Every response shares the same header and schema objects; written to YAML as they are, they become
  // anchors and hundreds of aliases, which YAML parsers refuse past a limit ("excessive alias count",
  // reached with GET /changes). A plain copy has no shared objects, so the YAML has no aliases.
  return JSON.parse(JSON.stringify(openapiObject)) as Json;
}

function addConditionalGet(operation: Json): void {
  const responses = operation.responses;
  if (responses['200']) responses['200'].headers = { ...validators, ...responses['200'].headers };
  responses['304'] = { description: 'Not Modified: `If-None-Match` matched the current ETag. No body.', headers: { ...validators } };
  const parameters: Json[] = operation.parameters ?? [];
  if (!parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-None-Match')) operation.parameters = [...parameters, ifNoneMatch];
}

/** A missing example is left out here (the document is still served) and fails test/openapi-examples.test.ts. */
function addExamples(operation: Json): void {
  const examples = operationExamples[operation.operationId];
  for (const parameter of operation.parameters ?? []) parameter.example ??= examples?.parameters?.[parameter.name];
  const body = operation.requestBody?.content?.['application/json'];
  if (body) body.example = examples?.requestBody;
  for (const [code, response] of Object.entries<Json>(operation.responses)) {
    const media = response.content?.['application/json'];
    if (media) media.example = examples?.responses[code] ?? (code.startsWith('2') ? undefined : errorExamples[code]);
  }
}

/*
 * A rule with a message of its own is written `allOf: [{pattern, x-error-message}]` next to the length
 * limits (schemas/applications.ts), so that the validator words that rule only. Code generators read
 * such an `allOf` as an intersection and type the field `string & unknown`; in the document the
 * pattern is moved up into the string schema, which validates exactly the same strings.
 */
function flattenRuleWrappers(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(flattenRuleWrappers);
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && schema.pattern === undefined) {
    const [rule] = schema.allOf;
    if (rule && typeof rule === 'object' && Object.keys(rule).every((key) => key === 'pattern' || key === 'x-error-message')) {
      delete schema.allOf;
      schema.pattern = rule.pattern;
    }
  }
  Object.values(schema).forEach(flattenRuleWrappers);
}
