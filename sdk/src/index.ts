export { CatalogueClient, type ApplicationOptions, type CatalogueClientOptions } from './client.js';
export { isFullApplicationResult, type FullApplicationResult, type PrivateApplicationResult } from './applications.js';
export { CatalogueApiError, type FieldError } from './errors.js';
export { nextCursor, nextOffset, pages } from './paging.js';
export { isRetryable, type RetryOptions } from './retry.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/schema.js';

// Re-exported through a typed constant, not `export { default } from '….json'`: the declarations then
// name no JSON file, so a consumer's TypeScript needs no resolveJsonModule.
import document from './generated/openapi.json' with { type: 'json' };

/** The OpenAPI document this SDK was generated from (`info.version` is the SDK's version). */
export const openApiDocument: OpenApiDocument = document;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}
