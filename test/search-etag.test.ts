import { createHash } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { catalogueBundle, scenarioArb } from './helpers/project-scenarios.js';
import { loadReferenceCatalogue, type ReferenceCatalogue } from './helpers/projects-reference.js';

/*
 * A search page asked again keeps its ETag's hash with the kept result (src/bodies/http-cache.ts,
 * HashSlot; the route names the page, `match` and `fields` beside the result's key). A fast path: the
 * ETag must stay the hash of the body as sent, for every page of a result asked in any order, with
 * and without compression. Each search is asked three times (a result is kept from its second time),
 * its pages interleaved, against the hash of the body actually received.
 */

const hashOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url')}"`;

describe('search ETags kept with the result (pglite)', () => {
  let t: TestApp;
  let catalogue: ReferenceCatalogue;
  const keys: string[] = [];

  beforeAll(async () => {
    t = await createTestApp('pglite', catalogueBundle(), { FACILITY_LINK_RADIUS_M: '4000' });
    catalogue = await loadReferenceCatalogue(t.db);
    const author = { companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID };
    keys.push(await t.key(author), await t.key({ ...author, priceVector: 7.5 }));
  });
  afterAll(() => t?.close());

  it('sends the hash of the body it sends, for pages, match, fields and codings asked in any order', async () => {
    // A page, and the same page with one thing changed (offset, limit, `match`, `fields`, `currency`, the
    // key): each must keep its own hash.
    const pageArb = fc.record({
      limit: fc.constantFrom('1', '2', '20'),
      match: fc.constantFrom(undefined, 'true'),
      fields: fc.constantFrom(undefined, 'name', 'id,price_from', 'price_from,id'),
      currency: fc.constantFrom(undefined, 'USD', 'EUR'),
    });
    type Page = Record<string, string | undefined>;
    const variants = (page: Page, key: number): { page: Page; key: number }[] => [
      { page: { ...page, offset: '0' }, key },
      { page: { ...page, offset: '1' }, key },
      { page: { ...page, offset: '2' }, key },
      { page: { ...page, limit: page.limit === '1' ? '2' : '1' }, key },
      { page: { ...page, match: page.match ? undefined : 'true' }, key },
      { page: { ...page, fields: page.fields === 'name' ? 'id,price_from' : 'name' }, key },
      { page: { ...page, currency: page.currency === 'USD' ? undefined : 'USD' }, key },
      { page, key: 1 - key },
    ];
    // The drawn filters, or none (many projects: pages that differ).
    const filtersArb = fc.oneof(scenarioArb(catalogue).map((scenario) => scenario.query), fc.constant({}));
    let pagesWithItems = 0;
    await fc.assert(
      fc.asyncProperty(filtersArb, pageArb, fc.nat(1), async (filters, page, keyIndex) => {
        const asks = variants(page, keyIndex).map((variant) => {
          const query: Record<string, string> = { ...filters };
          for (const [name, value] of Object.entries(variant.page)) if (value !== undefined) query[name] = value;
          return { url: `/projects?${new URLSearchParams(query)}`, key: keys[variant.key] };
        });
        const first = new Map<string, string>();
        for (let round = 0; round < 3; round++) {
          for (const { url, key } of asks) {
            const label = `${url} (key ${keys.indexOf(key)})`;
            const identity = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
            expect(identity.statusCode, `${label}: ${identity.body}`).toBe(200);
            const body = identity.rawPayload;
            expect(identity.headers.etag, label).toBe(hashOf(body));
            // The same page asked again is the same body.
            if (!first.has(label)) first.set(label, identity.body);
            expect(identity.body, label).toBe(first.get(label));
            if (identity.json().data.items.length > 0) pagesWithItems++;
            const head = await t.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
            expect(head.headers.etag, label).toBe(identity.headers.etag);
            const br = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, 'accept-encoding': 'br' } });
            if (br.headers['content-encoding'] === 'br') {
              const decoded = brotliDecompressSync(br.rawPayload);
              expect(decoded.toString(), label).toBe(identity.body);
              expect(br.headers.etag, label).toBe(hashOf(decoded).replace(/"$/, '-br"'));
            } else {
              expect(br.headers.etag, label).toBe(hashOf(br.rawPayload));
            }
            const revalidated = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, 'if-none-match': identity.headers.etag as string } });
            expect(revalidated.statusCode, label).toBe(304);
          }
        }
      }),
      { numRuns: 25, seed: 47 },
    );
    // The random searches found something often enough to tell pages apart.
    expect(pagesWithItems).toBeGreaterThan(100);
  });

  it('keeps no hash for POST /projects/search, and a GET after a POST of the same search gets the hash of its own body', async () => {
    for (const limit of [1, 3, 7]) {
      for (let round = 0; round < 3; round++) {
        const posted = await t.app.inject({ method: 'POST', url: '/projects/search', headers: { 'x-api-key': keys[0], 'content-type': 'application/json' }, payload: { limit, sort: '-price_from' } });
        expect(posted.statusCode, posted.body).toBe(200);
        expect(posted.headers.etag).toBeUndefined();
        const got = await t.app.inject({ method: 'GET', url: `/projects?limit=${limit}&sort=-price_from`, headers: { 'x-api-key': keys[0] } });
        expect(got.body).toBe(posted.body);
        expect(got.headers.etag).toBe(hashOf(got.rawPayload));
      }
    }
  });
});
