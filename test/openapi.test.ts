import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../src/http/openapi/document.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { baseBundle } from './helpers/fixtures.js';

const run = promisify(execFile);

describe('OpenAPI document', () => {
  let t: TestApp;
  let yamlText: string;

  beforeAll(async () => {
    t = await createTestApp('pglite', baseBundle());
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
      // The recommended ruleset, minus what this API deliberately does not have: a license (a private
      // partner API) and a 4xx answer on the healthcheck (it has none).
      await writeFile(config, 'extends:\n  - recommended\nrules:\n  info-license: off\n  operation-4xx-response: warn\n  operation-operationId: error\n');
      const { stdout, stderr } = await run('npx', ['--no-install', 'redocly', 'lint', file, '--config', config, '--format', 'stylish'], { cwd: process.cwd(), timeout: 120_000 }).catch((error) => {
        throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
      });
      // redocly exits non-zero on any error, which rejects above; here it ran to the end.
      expect(`${stdout}${stderr}`).toMatch(/validated/i);
      expect(`${stdout}${stderr}`).not.toMatch(/\berror\b/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('names its server: PUBLIC_BASE_URL, or / (relative to the document) when unset', async () => {
    expect(parse(yamlText).servers).toEqual([{ url: '/', description: expect.stringContaining('PUBLIC_BASE_URL') }]);
    const configured = await createTestApp('pglite', undefined, { PUBLIC_BASE_URL: 'https://api.example-agency.ae/' });
    try {
      const document = (await configured.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(document.servers).toEqual([{ url: 'https://api.example-agency.ae', description: 'Production' }]);
    } finally {
      await configured.close();
    }
  });

  it('states its version and its change policy', () => {
    const document = parse(yamlText);
    expect(document.info.version).toBe(API_VERSION);
    expect(API_VERSION).not.toBe('1.0.0');
    expect(document.info.description).toMatch(/## Versioning and changes[\s\S]*clients must ignore properties they do not know[\s\S]*CHANGELOG\.md/);
  });

  it('describes every response and every property, and leaves every response object open', () => {
    const document = parse(yamlText);
    const problems: string[] = [];
    const walk = (schema: Record<string, any> | undefined, where: string, response: boolean) => {
      if (!schema || typeof schema !== 'object') return;
      if (response && schema.additionalProperties === false) problems.push(`${where}: additionalProperties false`);
      if (schema.allOf) problems.push(`${where}: allOf`);
      for (const [name, property] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
        if (!property.description && !property.$ref) problems.push(`${where}.${name}: no description`);
        walk(property, `${where}.${name}`, response);
      }
      for (const key of ['items', 'additionalProperties']) if (schema[key] && typeof schema[key] === 'object') walk(schema[key], `${where}[]`, response);
      for (const key of ['anyOf', 'oneOf']) (schema[key] ?? []).forEach((branch: Record<string, any>) => walk(branch, where, response));
    };
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
        walk(operation.requestBody?.content['application/json'].schema, `${method} ${path} body`, false);
        for (const [code, response] of Object.entries<Record<string, any>>(operation.responses)) {
          if (!response.description || response.description === 'Default Response') problems.push(`${method} ${path} ${code}: ${response.description}`);
          walk(response.content?.['application/json']?.schema, `${method} ${path} ${code}`, true);
        }
      }
    }
    for (const [name, schema] of Object.entries<Record<string, any>>(document.components.schemas)) walk(schema, name, true);
    expect(problems).toEqual([]);
  });

  it('declares the headers each response carries', () => {
    const document = parse(yamlText);
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
        const keyed = !(Array.isArray(operation.security) && operation.security.length === 0);
        for (const [code, response] of Object.entries<Record<string, any>>(operation.responses)) {
          const where = `${method} ${path} ${code}`;
          const names = Object.keys(response.headers ?? {});
          for (const name of ['X-Request-Id', 'X-Content-Type-Options', 'Vary', 'Access-Control-Allow-Origin']) expect(names, where).toContain(name);
          if (code === '503' || code === '429') expect(names, where).toContain('Retry-After');
          if (keyed && !['401', '403'].includes(code)) expect(names, where).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
          // A response without a body (POST /mcp's 202) has nothing to encode.
          if (code.startsWith('2') && response.content) expect(names, where).toContain('Content-Encoding');
          if (keyed && method === 'get' && (code === '200' || code === '304')) expect(names, where).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
        }
      }
    }
  });

  it('serves the headers it declares', async () => {
    const key = await t.key();
    const ok = await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key, origin: 'https://www.example-agency.ae' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    expect(ok.headers.vary).toMatch(/Origin/);
    expect(ok.headers.vary).toMatch(/accept-encoding/);
    expect(ok.headers['access-control-allow-origin']).toBe('https://www.example-agency.ae');
    expect(ok.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
    const notModified = await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': key, 'if-none-match': String(ok.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['x-request-id']).toBeDefined();
    const rejected = await t.app.inject({ method: 'GET', url: '/whoIAm' });
    expect(rejected.statusCode).toBe(401);
    expect(rejected.headers['x-request-id']).toBeDefined();
    expect(rejected.headers.vary).toMatch(/Origin/);
  });

  it('types its string fields as plain strings for openapi-typescript', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-ts-'));
    try {
      const input = join(dir, 'openapi.yaml');
      const output = join(dir, 'types.ts');
      await writeFile(input, yamlText);
      await run('npx', ['--no-install', 'openapi-typescript', input, '-o', output], { cwd: process.cwd(), timeout: 120_000 });
      const types = await readFile(output, 'utf8');
      expect(types).not.toMatch(/& unknown/);
      for (const field of ['first_name: string;', 'email?: string | null;', 'mobile_number?: string | null;', 'language?: string | null;', 'instagram?: string | null;']) {
        expect(types).toContain(field);
      }
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
