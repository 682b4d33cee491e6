import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';

const PROJECT = 100;
const UNIT = 1000;

const catalogue = () =>
  withRecords(baseBundle(), {
    projects: [{ id: PROJECT, company_id: DEV, name: 'Marina Heights', area_id: 1, type: 1, currency: 'AED' }],
    units: [{ id: UNIT, project_id: PROJECT, unit_number: 'A-101', price: 1_000_000 }],
  });

describe.each(drivers)('HTTP caching (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, catalogue(), (started) => ({ t, key } = started));

  const get = (url: string, headers: Record<string, string> = {}, apiKey = key) =>
    t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, ...headers } });

  it('sends a strong ETag of the body as sent, and Cache-Control: private, no-cache, on every keyed GET', async () => {
    for (const url of ['/whoIAm', '/projects', '/projects/list', `/projects/${PROJECT}`, `/projects/${PROJECT}/contacts`, `/units/${UNIT}`, '/companies', '/areas', '/preferences', '/project-preferences']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers.etag, url).toBe(`"${createHash('sha256').update(res.rawPayload).digest('base64url')}"`);
      expect(res.headers['cache-control'], url).toBe('private, no-cache');
    }
  });

  it('answers 304 with no body when If-None-Match matches, in any accepted form', async () => {
    const first = await get(`/units/${UNIT}`);
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"stale", ${etag}`, `"a",W/${etag} , "b"`, '*']) {
      const res = await get(`/units/${UNIT}`, { 'if-none-match': ifNoneMatch });
      expect(res.statusCode, ifNoneMatch).toBe(304);
      expect(res.body, ifNoneMatch).toBe('');
      expect(res.headers.etag, ifNoneMatch).toBe(etag);
      expect(res.headers['cache-control'], ifNoneMatch).toBe('private, no-cache');
      expect(res.headers['content-type'], ifNoneMatch).toBeUndefined();
      expect(res.headers['content-length'], ifNoneMatch).toBeUndefined();
    }
    for (const ifNoneMatch of ['"stale"', etag.slice(0, -2) + '"', etag.replace(/^"|"$/g, '')]) {
      const res = await get(`/units/${UNIT}`, { 'if-none-match': ifNoneMatch });
      expect(res.statusCode, ifNoneMatch).toBe(200);
      expect(res.json().data.id, ifNoneMatch).toBe(UNIT);
    }
  });

  it('answers HEAD with the same ETag as GET', async () => {
    const etag = (await get('/areas')).headers.etag;
    const head = await t.app.inject({ method: 'HEAD', url: '/areas', headers: { 'x-api-key': key } });
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(etag);
  });

  it('gives keys with different price vectors different ETags on a priced resource, and keys that see the same body the same one', async () => {
    const marked = await t.key({ priceVector: 10 });
    const twin = await t.key();
    const plain = await get(`/units/${UNIT}`);
    const marked10 = await get(`/units/${UNIT}`, {}, marked);
    expect(marked10.json().data.price).not.toBe(plain.json().data.price);
    expect(marked10.headers.etag).not.toBe(plain.headers.etag);
    expect((await get(`/units/${UNIT}`, {}, twin)).headers.etag).toBe(plain.headers.etag);
    // Another key's ETag never turns into a 304 carrying prices it was not shown.
    const crossed = await get(`/units/${UNIT}`, { 'if-none-match': String(plain.headers.etag) }, marked);
    expect(crossed.statusCode).toBe(200);
    expect(crossed.json().data.price).toBe(marked10.json().data.price);
  });

  it('changes the ETag when the data changes, and a stale ETag gets the new body', async () => {
    const before = await get(`/projects/${PROJECT}`);
    await t.db.updateTable('projects').set({ name: 'Marina Heights II' }).where('id', '=', PROJECT).execute();
    try {
      // The detail is the snapshot's (kept with it): the change is seen once the snapshot follows it.
      await t.refresh();
      const after = await get(`/projects/${PROJECT}`, { 'if-none-match': String(before.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.json().data.name).toBe('Marina Heights II');
      expect(after.headers.etag).not.toBe(before.headers.etag);
    } finally {
      await t.db.updateTable('projects').set({ name: 'Marina Heights' }).where('id', '=', PROJECT).execute();
      await t.refresh();
    }
  });

  it('puts no ETag or Cache-Control on errors', async () => {
    const responses = [
      await get(`/units/999999`),
      await get('/projects?bedrooms=many'),
      await t.app.inject({ method: 'GET', url: '/whoIAm' }),
      await get('/whoIAm', {}, `ck_${'0'.repeat(64)}`),
    ];
    expect(responses.map((res) => res.statusCode)).toEqual([404, 400, 401, 401]);
    for (const res of responses) {
      expect(res.headers.etag).toBeUndefined();
      expect(res.headers['cache-control']).toBeUndefined();
      expect(res.json().status).toBe('error');
    }
  });

  it('never puts an ETag on POST, even with If-None-Match', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/units/${UNIT}/applications`,
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'if-none-match': '*' },
      payload: JSON.stringify({ client: { first_name: 'Jane', last_name: 'Doe', email: `jane.${Date.now()}@example.com` } }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).toBeUndefined();
    expect(res.json().status).toBe('success');
  });
});
