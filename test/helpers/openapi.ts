import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { App } from '../../src/http/app.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Checks real responses against the published OpenAPI document (not against the route schemas in
 * code), so a drift between what the API sends and what it documents fails a test.
 */
export async function openApiValidator(app: App) {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  const document = response.json() as Record<string, any>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'openapi' });

  return function assertMatches(method: string, pathTemplate: string, status: number, body: unknown): void {
    const operation = document.paths?.[pathTemplate]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${pathTemplate} is not in the OpenAPI document`);
    const media = operation.responses?.[String(status)]?.content?.['application/json'];
    if (!media) throw new Error(`${method} ${pathTemplate} documents no ${status} response`);
    const pointer = ['paths', pathTemplate, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']
      .map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi#/${pointer}`);
    if (!validate) throw new Error(`cannot compile schema for ${method} ${pathTemplate} ${status}`);
    if (!validate(body)) {
      throw new Error(`${method} ${pathTemplate} ${status} does not match the OpenAPI document: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
    }
  };
}
