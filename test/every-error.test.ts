import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CatalogueApiError, CatalogueClient } from '../sdk/src/index.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

/*
 * Every validation error at once (opt-in with `Prefer: errors=all`): the specified message unchanged
 * and first, every other problem beside it, one per field; nothing added without the preference.
 */
const bundle = withRecords(baseBundle(), {
  projects: [{ id: 1, company_id: DEV, name: 'Alpha' }],
  units: [{ id: 11, project_id: 1, unit_number: 'A1', bedrooms: 1, status: 4, price: 900000 }],
});

describe.each(drivers)('every validation error at once (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { documented: true });

  const send = async (request: { method: 'GET' | 'POST'; url: string; payload?: unknown; body?: string }, every: boolean) => {
    const headers: Record<string, string> = { 'x-api-key': key, ...(every && { prefer: 'respond-async, errors=all' }) };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const res = await t.app.inject({ method: request.method, url: request.url, headers, ...(request.payload !== undefined && { payload: request.payload as object }), ...(request.body !== undefined && { payload: request.body }) });
    return res;
  };

  /** The same request with and without the preference: same status and message; the list only with it. */
  const both = async (request: Parameters<typeof send>[0], template: string) => {
    const plain = await send(request, false);
    const every = await send(request, true);
    expect(plain.statusCode).toBe(400);
    expect(every.statusCode).toBe(400);
    expect(Object.keys(plain.json())).toEqual(['status', 'message']);
    expect(plain.headers['preference-applied']).toBeUndefined();
    expect(every.headers['preference-applied']).toBe('errors=all');
    const body = every.json() as { status: string; message: string; errors: { field: string | null; code: string; message: string }[] };
    expect(body.message).toBe(plain.json().message);
    expect(body.errors[0].message).toBe(body.message);
    assertDocumented(request.method, template, 400, body);
    return body;
  };

  it('an application with two bad fields lists both, by field, the specified message first', async () => {
    const body = await both(
      { method: 'POST', url: '/units/11/applications', payload: { client: { first_name: 'Ann', email: 'no-at-sign', mobile_number: 'call me' } } },
      '/units/{id}/applications',
    );
    expect(body.errors).toEqual([
      { field: 'client.email', code: 'anyOf', message: body.message },
      { field: 'client.mobile_number', code: expect.any(String), message: expect.stringContaining('client.mobile_number') },
    ]);
  });

  it('a missing field and an unknown one are both named', async () => {
    const body = await both({ method: 'POST', url: '/units/11/applications', payload: { client: { email: 'a@b.c' }, colour: 'red' } }, '/units/{id}/applications');
    expect(body.errors.map((error) => [error.field, error.code])).toEqual(
      expect.arrayContaining([
        ['client.first_name', 'required'],
        ['colour', 'additionalProperties'],
      ]),
    );
    expect(body.errors).toHaveLength(2);
  });

  it('an empty application form learns every rule in one submission, the e-mail-or-mobile rule too', async () => {
    for (const payload of [{}, { client: {} }, { client: { last_name: 'Doe', mobile_number: null } }]) {
      const body = await both({ method: 'POST', url: '/units/11/applications', payload }, '/units/{id}/applications');
      const fields = body.errors.map((error) => error.field);
      expect(fields[0], JSON.stringify(payload)).toBe(Object.keys(payload).length === 0 ? 'client' : 'client.first_name');
      expect(body.errors).toContainEqual({ field: 'client.email', code: 'invalid', message: 'client.email or client.mobile_number is required' });
      expect(new Set(fields).size).toBe(fields.length);
      // The second submission, with the first name given, is refused by that same rule alone.
      const second = await send({ method: 'POST', url: '/units/11/applications', payload: { client: { first_name: 'Ann' } } }, true);
      expect(second.json().message).toBe('client.email or client.mobile_number is required');
    }
  });

  it('the contact rule is not added when a contact is given or is the schema\u2019s own problem', async () => {
    const withEmail = await both({ method: 'POST', url: '/units/11/applications', payload: { client: { email: 'a@b.c' } } }, '/units/{id}/applications');
    expect(withEmail.errors.map((error) => error.field)).toEqual(['client.first_name']);
    const withMobile = await both({ method: 'POST', url: '/units/11/applications', payload: { client: { mobile_number: '+971 50 1' } } }, '/units/{id}/applications');
    expect(withMobile.errors.map((error) => error.field)).toEqual(['client.first_name']);
    const badType = await both({ method: 'POST', url: '/units/11/applications', payload: { client: { email: 7 } } }, '/units/{id}/applications');
    expect(badType.errors.map((error) => error.field)).not.toContain(undefined);
    expect(badType.errors.filter((error) => error.code === 'invalid')).toEqual([]);
  });

  it('GET /projects: every query parameter the schema refuses', async () => {
    const body = await both({ method: 'GET', url: '/projects?price_min=-1&limit=0&sort=cheapest' }, '/projects');
    expect(body.errors.map((error) => error.field).sort()).toEqual(['limit', 'price_min', 'sort']);
  });

  it('GET /projects: every filter rule checked after the schema, in the order they were always checked', async () => {
    const body = await both({ method: 'GET', url: '/projects?bedrooms=9&development_status=0&facets=colour&handover_from=soon' }, '/projects');
    expect(body.errors.map((error) => error.field)).toEqual(['bedrooms', 'development_status', 'handover_from', 'facets']);
    expect(body.errors.every((error) => error.code === 'invalid')).toBe(true);
  });

  it('a problem with no field (a body that is not JSON) is listed with field null', async () => {
    const body = await both({ method: 'POST', url: '/units/11/applications', body: '{"client":' }, '/units/{id}/applications');
    expect(body.errors).toEqual([{ field: null, code: 'invalid', message: body.message }]);
  });

  it('the SDK asks for every error and exposes them typed on CatalogueApiError', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const sdk = new CatalogueClient({ baseUrl, apiKey: key, retry: { retries: 0 } });
    const error = await sdk.submitApplication(11, { client: { first_name: ' ', email: 'nope' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogueApiError);
    const fields = (error as CatalogueApiError).errors.map((problem) => problem.field);
    expect(fields).toEqual(['client.first_name', 'client.email']);
    // Opted out: the specified envelope alone.
    const quiet = new CatalogueClient({ baseUrl, apiKey: key, everyError: false, retry: { retries: 0 } });
    const plain = (await quiet.submitApplication(11, { client: { first_name: ' ', email: 'nope' } }).catch((caught: unknown) => caught)) as CatalogueApiError;
    expect(plain.message).toBe((error as CatalogueApiError).message);
    expect(plain.errors).toEqual([]);
  });
});
