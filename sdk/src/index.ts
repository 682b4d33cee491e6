export { CatalogueClient, type ApplicationOptions, type CatalogueClientOptions } from './client.js';
export { isFullApplicationResult, type FullApplicationResult, type PrivateApplicationResult } from './applications.js';
export { CatalogueApiError } from './errors.js';
export { nextCursor, nextOffset, pages } from './paging.js';
export { isRetryable, type RetryOptions } from './retry.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/schema.js';
export { default as openApiDocument } from './generated/openapi.json' with { type: 'json' };
