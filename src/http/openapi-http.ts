/*
 * What every keyed operation shares at the HTTP level and no route schema says: conditional GETs
 * (ETag, If-None-Match, 304, Cache-Control) and the opt-in rate limit (429, RateLimit headers). Added
 * to the generated document in one place so each route does not repeat it.
 */
type Json = Record<string, any>;

const headers: Json = {
  ETag: {
    description: 'Strong validator of this response body (it differs between keys whose prices or visibility differ). Send it back in `If-None-Match`.',
    schema: { type: 'string' },
  },
  CacheControl: {
    description: '`private, no-cache`: a client may keep the response but must revalidate it before use; shared caches must not store it.',
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: 'Only when the deployment enables rate limiting: `"per-key";q=<requests>;w=<window seconds>` (draft-ietf-httpapi-ratelimit-headers).',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'Only when the deployment enables rate limiting: `"per-key";r=<remaining>;t=<seconds until the window resets>`.',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const rateLimitHeaders = { RateLimit: ref('RateLimit'), 'RateLimit-Policy': ref('RateLimitPolicy') };

const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETag(s) of a response you hold; when one still matches, the answer is 304 with no body.',
  schema: { type: 'string' },
};

export function addHttpConventions({ openapiObject }: { openapiObject: Json }): Json {
  openapiObject.components = { ...openapiObject.components, headers: { ...openapiObject.components?.headers, ...headers } };
  for (const operations of Object.values<Json>(openapiObject.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const keyed = !(Array.isArray(operation.security) && operation.security.length === 0);
      if (!keyed || !operation.responses) continue;
      const responses = operation.responses;
      for (const [code, response] of Object.entries<Json>(responses)) {
        if (code.startsWith('2')) response.headers = { ...response.headers, ...rateLimitHeaders };
      }
      responses['429'] = {
        description: 'Only when the deployment enables rate limiting: the key used up its requests for the current window. `rate limit exceeded, retry in N seconds`; retry after `Retry-After` seconds.',
        headers: { 'Retry-After': ref('RetryAfter'), ...rateLimitHeaders },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
      if (method === 'get') addConditionalGet(operation);
      operation.responses = Object.fromEntries(Object.entries<Json>(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return openapiObject;
}

function addConditionalGet(operation: Json): void {
  const responses = operation.responses;
  if (responses['200']) responses['200'].headers = { ETag: ref('ETag'), 'Cache-Control': ref('CacheControl'), ...responses['200'].headers };
  responses['304'] = {
    description: 'Not Modified: `If-None-Match` matched the current ETag. No body.',
    headers: { ETag: ref('ETag'), 'Cache-Control': ref('CacheControl'), ...rateLimitHeaders },
  };
  const parameters: Json[] = operation.parameters ?? [];
  if (!parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-None-Match')) operation.parameters = [...parameters, ifNoneMatch];
}
