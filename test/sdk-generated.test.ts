import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchOpenApiDocument } from '../scripts/openapi-document.js';
import { GENERATED_DIR, SDK_DIR, sdkPackageJson, sdkSources } from '../scripts/sdk-generate.js';
import { createTestApp, type TestApp } from './helpers/app.js';

/*
 * The SDK's generated files must be what `npm run sdk:generate` makes of the document the service
 * publishes today: a route schema changed without regenerating fails here.
 */
describe('generated SDK sources', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('equal what npm run sdk:generate produces from the live document', async () => {
    const sources = await sdkSources(await fetchOpenApiDocument(t.app));
    expect(Object.keys(sources).sort()).toEqual(['openapi.json', 'schema.ts']);
    for (const [name, expected] of Object.entries(sources)) {
      const committed = await readFile(join(GENERATED_DIR, name), 'utf8').catch(() => '(missing)');
      // Not toEqual on the whole text: a diff of 6,000 lines helps nobody.
      if (committed !== expected) expect.fail(`sdk/src/generated/${name} is stale: run \`npm run sdk:generate\` and commit the result`);
    }
  });

  it('sdk/package.json carries the API\u2019s info.version (the SDK is versioned with the API)', async () => {
    const document = await fetchOpenApiDocument(t.app);
    const committed = await readFile(join(SDK_DIR, 'package.json'), 'utf8');
    expect((JSON.parse(committed) as { version: string }).version).toBe(document.info.version);
    expect(committed).toBe(sdkPackageJson(committed, document));
  });

  it('declares every operation of the document', async () => {
    const document = await fetchOpenApiDocument(t.app);
    const schema = await readFile(join(GENERATED_DIR, 'schema.ts'), 'utf8');
    for (const operations of Object.values<Record<string, { operationId: string }>>(document.paths)) {
      for (const operation of Object.values(operations)) expect(schema).toContain(`    ${operation.operationId}: {`);
    }
  });
});
