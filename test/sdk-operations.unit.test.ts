import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CatalogueClient, openApiDocument } from '../sdk/src/index.js';

/*
 * The hand-written layer keeps up with the generated one: every keyed operation of the document has
 * a method of the same name, and the SDK's README shows every method.
 */
const methods = Object.getOwnPropertyNames(CatalogueClient.prototype).filter((name) => name !== 'constructor');
const operations = Object.values(openApiDocument.paths as Record<string, Record<string, { operationId: string; security?: unknown[] }>>)
  .flatMap((path) => Object.values(path))
  // Routes without a key (the healthcheck) are for the operator, not for integrators.
  .filter((operation) => !(Array.isArray(operation.security) && operation.security.length === 0))
  // POST /mcp is spoken by MCP clients (the official @modelcontextprotocol/sdk client), not by this SDK.
  .filter((operation) => operation.operationId !== 'mcp')
  .map((operation) => operation.operationId);

describe('SDK surface', () => {
  it('has a method for every keyed operation of the document', () => {
    expect(operations.length).toBeGreaterThan(5);
    expect(operations.filter((operationId) => !methods.includes(operationId))).toEqual([]);
  });

  it('sdk/README.md shows every method', async () => {
    const readme = await readFile('sdk/README.md', 'utf8');
    expect(methods.filter((method) => !readme.includes(`catalogue.${method}(`))).toEqual([]);
  });
});
