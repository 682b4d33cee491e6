import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { baseBundle } from './helpers/fixtures.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/*
 * Every parameter, request body and response of the published document has an example, and every
 * example is valid against the schema it sits next to in that same document (not against the route
 * schemas in code), headers included.
 */
describe('OpenAPI examples', () => {
  let t: TestApp;
  let document: Record<string, any>;
  let ajv: Ajv2020;

  beforeAll(async () => {
    t = await createTestApp('pglite', baseBundle());
    document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'openapi' });
  });
  afterAll(() => t?.close());

  const pointer = (segments: Array<string | number>) =>
    segments.map((segment) => encodeURIComponent(String(segment).replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

  function check(segments: Array<string | number>, example: unknown, where: string, problems: string[]): void {
    if (example === undefined) return void problems.push(`${where}: no example`);
    const validate = ajv.getSchema(`openapi#/${pointer(segments)}`);
    if (!validate) return void problems.push(`${where}: schema not found`);
    if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }

  it('has a valid example for every parameter, request body and response', () => {
    const problems: string[] = [];
    let counted = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
        const base = ['paths', path, method];
        (operation.parameters ?? []).forEach((parameter: Record<string, any>, i: number) => {
          counted++;
          check([...base, 'parameters', i, 'schema'], parameter.example, `${method} ${path} ${parameter.in} ${parameter.name}`, problems);
        });
        if (operation.requestBody) {
          counted++;
          const media = operation.requestBody.content['application/json'];
          check([...base, 'requestBody', 'content', 'application/json', 'schema'], media.example, `${method} ${path} request body`, problems);
        }
        for (const [code, response] of Object.entries<Record<string, any>>(operation.responses)) {
          const media = response.content?.['application/json'];
          if (!media) continue;
          counted++;
          check([...base, 'responses', code, 'content', 'application/json', 'schema'], media.example, `${method} ${path} ${code}`, problems);
        }
      }
    }
    expect(problems).toEqual([]);
    // 55 parameters, 1 request body and 84 response bodies when this test was written.
    expect(counted).toBeGreaterThanOrEqual(140);
  });

  it('has a valid example for every declared response header', () => {
    const problems: string[] = [];
    for (const [name, header] of Object.entries<Record<string, any>>(document.components.headers)) {
      check(['components', 'headers', name, 'schema'], header.schema.example, `header ${name}`, problems);
    }
    expect(problems).toEqual([]);
  });

  it('an example that breaks its schema is caught', () => {
    const problems: string[] = [];
    const path = ['paths', '/projects/{id}', 'get', 'responses', '200', 'content', 'application/json', 'schema'];
    const example = structuredClone(document.paths['/projects/{id}'].get.responses['200'].content['application/json'].example);
    example.data.units[0].price = 'one million';
    check(path, example, 'broken', problems);
    expect(problems).toHaveLength(1);
  });

  it('the application example is accepted by the service itself', async () => {
    const body = document.paths['/units/{id}/applications'].post.requestBody.content['application/json'].example;
    const key = await t.key();
    // No such unit in the fixture catalogue: past validation, the answer is the 404 of an unknown unit.
    const res = await t.app.inject({ method: 'POST', url: '/units/1201/applications', headers: { 'x-api-key': key }, payload: body });
    expect(res.json()).toEqual({ status: 'error', message: 'unit not found' });
  });
});
