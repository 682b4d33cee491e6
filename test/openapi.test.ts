import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

const run = promisify(execFile);

describe('OpenAPI document', () => {
  let t: TestApp;
  let yamlText: string;

  beforeAll(async () => {
    t = await createTestApp('pglite');
    const res = await t.app.inject({ method: 'GET', url: '/openapi.yaml' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/yaml/);
    yamlText = res.body;
  });
  afterAll(() => t?.close());

  it('is OpenAPI 3.1.0 and matches the JSON form', async () => {
    const document = parse(yamlText);
    expect(document.openapi).toBe('3.1.0');
    const json = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(json).toEqual(document);
  });

  it('documents every operation of the specification with its security', () => {
    const document = parse(yamlText);
    const operations = [
      ['get', '/whoIAm'], ['get', '/projects'], ['get', '/projects/list'], ['get', '/projects/{id}'],
      ['get', '/projects/{id}/contacts'], ['get', '/units/{id}'], ['post', '/units/{id}/applications'],
      ['get', '/companies'], ['get', '/areas'], ['get', '/preferences'], ['get', '/project-preferences'],
    ];
    for (const [method, path] of operations) {
      const operation = document.paths?.[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      for (const code of ['401', '403', '500']) expect(operation.responses[code], `${method} ${path} ${code}`).toBeDefined();
    }
    expect(document.components.securitySchemes.ApiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(document.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/health'].get.security).toEqual([]);
  });

  it('passes redocly lint', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.yaml');
      await writeFile(file, yamlText);
      const config = join(dir, 'redocly.yaml');
      // The recommended ruleset, minus what this API deliberately does not have: a servers list (the
      // base URL is wherever it is deployed), a license (a private partner API), and a 4xx answer on
      // the healthcheck (it has none).
      await writeFile(config, 'extends:\n  - recommended\nrules:\n  no-empty-servers: off\n  info-license: off\n  operation-4xx-response: warn\n  operation-operationId: error\n');
      const { stdout, stderr } = await run('npx', ['--no-install', 'redocly', 'lint', file, '--config', config, '--format', 'stylish'], { cwd: process.cwd(), timeout: 120_000 }).catch((error) => {
        throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
      });
      // redocly exits non-zero on any error, which rejects above; here it ran to the end.
      expect(`${stdout}${stderr}`).toMatch(/validated/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('serves the docs site with security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/html/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
