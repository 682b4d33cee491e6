import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, HAS_CHROMIUM, useDemoInChromium, WIDTHS } from './demo-in-chromium.js';

/*
 * The example agency site in headless Chromium (Debian's package, driven by playwright-core) against
 * the real service on the embedded database with the demo catalogue, both on free ports. Screenshots
 * of each step go to test-e2e/artifacts/ (git-ignored).
 */
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

describe.skipIf(!HAS_CHROMIUM)(`agency site in headless Chromium (needs ${CHROMIUM}: apt-get install chromium)`, () => {
  const running = useDemoInChromium();
  let page: Page;
  /** Every URL the browser asked for: none may be the API's. */
  let browserRequests: string[] = [];

  afterEach(async () => {
    await page?.close();
  });

  async function open(path: string): Promise<Page> {
    page = await running.browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => browserRequests.push(request.url()));
    await page.goto(`${running.demo.site.url}${path}`);
    return page;
  }
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const total = async () => Number(await page.locator('.summary').getAttribute('data-total'));
  const apiGet = async (path: string) => {
    const response = await fetch(`${running.demo.api.url}${path}`, { headers: { 'X-API-Key': running.demo.apiKey } });
    return (await response.json()) as { status: string; data: any; message?: string };
  };

  it('search → filter → page → open a project → apply → the application is in the CRM', async () => {
    browserRequests = [];
    await open('/');
    const everything = await total();
    expect(everything).toBe((await apiGet('/projects?limit=1')).data.total);
    await shot('01-search');

    // Filter: 2 bedrooms, up to AED 3,000,000, near a metro; the count is the API's for the same filters.
    await page.getByLabel('2', { exact: true }).check();
    await page.getByLabel('Price to (AED)').fill('3000000');
    await page.getByLabel('Near metro / public transport').check();
    await page.getByRole('button', { name: 'Search' }).click();
    const filtered = await total();
    expect(filtered).toBe((await apiGet('/projects?bedrooms=2&price_max=3000000&near_transport=true&limit=1')).data.total);
    expect(filtered).toBeGreaterThan(0);
    expect(filtered).toBeLessThan(everything);
    await expect(page.getByLabel('2', { exact: true }).isChecked()).resolves.toBe(true);
    await shot('02-filtered');

    // The Refine panel names the developers (GET /companies) with the API's counts for these filters ...
    const developers = (await apiGet('/companies')).data.items as Array<{ id: number; name: string }>;
    const developerName = (id: number) => developers.find((candidate) => candidate.id === id)?.name;
    const facets = (await apiGet('/projects?bedrooms=2&price_max=3000000&near_transport=true&facets=developer&limit=1')).data.facets;
    const refine = page.locator('.facets section[data-facet="developer"] li');
    expect(facets.developer.length).toBeGreaterThan(0);
    // The API's labels are the developers' names.
    await expect(refine.allTextContents()).resolves.toEqual(facets.developer.map(({ value, count }: { value: number; count: number }) => `${developerName(value)} (${count})`));
    // ... each count being the total with that developer added, and a link that adds it, keeping the other filters.
    const facetValue = refine.last();
    const facetDeveloper = Number(await facetValue.getAttribute('data-value'));
    const facetCount = Number(await facetValue.getAttribute('data-count'));
    expect(facetCount).toBe((await apiGet(`/projects?bedrooms=2&price_max=3000000&near_transport=true&developer_ids=${facetDeveloper}&limit=1`)).data.total);
    await expect(facetValue.textContent()).resolves.toContain(developerName(facetDeveloper));
    await facetValue.getByRole('link').click();
    expect(await total()).toBe(facetCount);
    await expect(page.getByLabel('Developer').inputValue()).resolves.toBe(String(facetDeveloper));
    await expect(page.getByLabel('2', { exact: true }).isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Price to (AED)').inputValue()).resolves.toBe('3000000');
    await expect(page.locator('.facets section[data-facet="developer"] li[aria-current]').textContent()).resolves.toBe(`${developerName(facetDeveloper)} (${facetCount})`);
    await shot('02-refined');

    // A developer chosen in the form narrows it to exactly that developer's projects.
    const developer = developers[0];
    await page.getByLabel('Developer').selectOption(String(developer.id));
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await total()).toBe((await apiGet(`/projects?bedrooms=2&price_max=3000000&near_transport=true&developer_ids=${developer.id}&limit=1`)).data.total);
    await page.getByLabel('Developer').selectOption('');
    await page.getByRole('button', { name: 'Search' }).click();

    // Paging: the second page continues the first.
    const firstPage = await page.locator('.card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-project-id')));
    const expected = (await apiGet('/projects?bedrooms=2&price_max=3000000&near_transport=true&limit=100')).data.items.map((project: { id: number }) => String(project.id));
    expect(firstPage).toEqual(expected.slice(0, firstPage.length));
    if (filtered > firstPage.length) {
      await page.getByRole('link', { name: 'Next →' }).click();
      const secondPage = await page.locator('.card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-project-id')));
      expect(secondPage).toEqual(expected.slice(firstPage.length, firstPage.length + secondPage.length));
      await page.getByRole('link', { name: '← Previous' }).click();
    }

    // Open the first project: gallery, payment plan, units, nearby facilities by category.
    const first = page.locator('.card h3 a').first();
    const projectName = await first.textContent();
    await first.click();
    await expect(page.locator('h1').textContent()).resolves.toBe(projectName);
    const projectId = Number(new URL(page.url()).pathname.split('/').pop());
    const detail = (await apiGet(`/projects/${projectId}`)).data;
    await expect(page.locator('.gallery > *').count()).resolves.toBe(detail.media.images.length);
    await expect(page.locator('table[aria-label="Units"] tbody tr').count()).resolves.toBe(detail.units.length);
    await expect(page.locator('.plan > div').count()).resolves.toBe(detail.payment_plans.length);
    const categories = Object.entries(detail.nearby_facilities as Record<string, unknown[]>).filter(([, entries]) => entries.length > 0).map(([category]) => category);
    await expect(page.locator('.nearby section').evaluateAll((sections) => sections.map((section) => section.getAttribute('data-category')))).resolves.toEqual(categories);
    await shot('03-project');

    // Apply for a priced unit.
    const unit = detail.units.find((candidate: { price: number | null; status: number }) => candidate.price !== null && candidate.status !== 5);
    await page.locator(`tr[data-unit-id="${unit.id}"] a.apply`).click();
    const idempotencyKey = await page.locator('input[name="idempotency_key"]').inputValue();
    expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const email = `e2e.${idempotencyKey}@example.com`;
    await page.getByLabel('First name').fill('Mariam');
    await page.getByLabel('Last name').fill('Al Suwaidi');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Mobile number (with country code)').fill('+971 50 555 0101');
    await page.getByLabel('Message').fill('Interested in a viewing next week.');
    await shot('04-application-form');
    await page.getByRole('button', { name: 'Send application' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Thank you, Mariam!');
    // What the visitor typed, never a CRM record (issue 20): no offer id, no "existing client".
    await expect(page.locator('.offer').textContent()).resolves.toContain(email);
    await expect(page.locator('.offer').textContent()).resolves.not.toMatch(/client record|existing client|#\d/i);
    await shot('05-offer');

    // The application exists in the CRM: one offer for that unit, client and opportunity.
    const db = running.demo.api.database.db;
    const [offer, ...others] = await db.selectFrom('offers').selectAll().where('unit_id', '=', unit.id).execute();
    expect(others).toEqual([]);
    const offerId = offer.id;
    const client = await db.selectFrom('clients').select(['first_name', 'last_name']).where('email', '=', email).executeTakeFirstOrThrow();
    expect(client).toEqual({ first_name: 'Mariam', last_name: 'Al Suwaidi' });
    // ... and through the API: the same Idempotency-Key returns that offer again rather than a new one.
    const replay = await fetch(`${running.demo.api.url}/units/${unit.id}/applications`, {
      method: 'POST',
      headers: { 'X-API-Key': running.demo.apiKey, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify({
        client: { first_name: 'Mariam', last_name: 'Al Suwaidi', email, mobile_number: '+971 50 555 0101' },
        message: 'Interested in a viewing next week.',
        preferences: { based_on_unit: true },
      }),
    });
    expect(replay.status).toBe(201);
    // The site's key has private applications: the answer carries no id, only the unit and what was sent.
    expect(((await replay.json()) as { data: { offer: Record<string, unknown> } }).data.offer).not.toHaveProperty('id');

    // A refresh of the result page re-posts the form with the same key: still one offer.
    await page.reload();
    await expect(page.locator('h1').textContent()).resolves.toBe('Thank you, Mariam!');
    const offers = await db.selectFrom('offers').select('id').where('unit_id', '=', unit.id).execute();
    expect(offers.map((row) => row.id)).toEqual([offerId]);

    // The browser only ever talked to the site and the picture host, never the API, and no page carried the key.
    expect(browserRequests.length).toBeGreaterThan(0);
    for (const url of browserRequests) expect(url.startsWith(running.demo.site.url) || url.startsWith(running.demo.pictures.url), url).toBe(true);
  });

  it('sorts by price', async () => {
    await open('/');
    await page.getByLabel('Sort by').selectOption({ label: 'Price: low to high' });
    await page.getByRole('button', { name: 'Search' }).click();
    const prices = (await page.locator('.card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-price-from')))).filter(Boolean).map(Number);
    expect(prices.length).toBeGreaterThan(1);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    await shot('06-sorted');
  });

  it('shows two field errors from one submission beside their fields, keeps what was typed, and records nothing', async () => {
    const { items } = (await apiGet('/projects?limit=1')).data;
    const unitId = (await apiGet(`/projects/${items[0].id}`)).data.units.find((unit: { status: number }) => unit.status !== 5).id;
    const before = await running.demo.api.database.db.selectFrom('offers').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    await open(`/units/${unitId}/apply`);
    await page.getByLabel('First name').fill('Omar');
    await page.getByLabel('E-mail').fill('omar.example.com');
    await page.getByLabel('Mobile number (with country code)').fill('call me after six');
    const response = page.waitForResponse((candidate) => candidate.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send application' }).click();
    // The form again (200: no browser error for an ordinary correction), from one 400 of the API.
    expect((await response).status()).toBe(200);
    // One submission, both problems, each beside its field (aria-describedby), in plain words.
    await expect(page.locator('.field-error').count()).resolves.toBe(2);
    await expect(page.getByLabel('E-mail').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Mobile number (with country code)').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#error-email').textContent()).resolves.toContain('valid e-mail address');
    await expect(page.locator('#error-mobile_number').textContent()).resolves.toContain('phone number with digits');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('the 2 fields');
    await expect(page.getByLabel('Mobile number (with country code)').inputValue()).resolves.toBe('call me after six');
    await expect(page.getByLabel('E-mail').inputValue()).resolves.toBe('omar.example.com');
    await expect(page.getByLabel('First name').inputValue()).resolves.toBe('Omar');
    await shot('07-application-400');
    const after = await running.demo.api.database.db.selectFrom('offers').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    expect(Number(after.count)).toBe(Number(before.count));
  });

  it('offers Apply only on units that can be applied for (not out of stock)', async () => {
    const projects = (await apiGet('/projects?limit=100')).data.items as { id: number }[];
    let checked = 0;
    for (const { id } of projects.slice(0, 12)) {
      const detail = (await apiGet(`/projects/${id}`)).data as { units: { id: number; status: number }[] };
      const soldOut = detail.units.find((unit) => unit.status === 5);
      if (!soldOut) continue;
      await open(`/projects/${id}`);
      await expect(page.locator(`tr[data-unit-id="${soldOut.id}"] a.apply`).count()).resolves.toBe(0);
      const open_ = detail.units.find((unit) => unit.status !== 5);
      if (open_) await expect(page.locator(`tr[data-unit-id="${open_.id}"] a.apply`).count()).resolves.toBe(1);
      await page.close();
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('every page at 390 and 1366 px: no horizontal overflow, no console error, no failed request, every image loads, no serious or critical axe violation', async () => {
    const axe = await readFile(AXE_SOURCE, 'utf8');
    const first = (await apiGet('/projects?limit=1&sort=-price_from')).data.items[0].id as number;
    const unit = ((await apiGet(`/projects/${first}`)).data.units as { id: number; status: number }[]).find((candidate) => candidate.status !== 5)!;
    // The map page's clusters and land come after the page has loaded.
    const mapReady = async (current: Page) => void (await current.waitForSelector('#map[data-state=ready][data-land=ready] .marker [data-count]', { state: 'attached' }));
    const pages: { name: string; path: string; before?: (page: Page) => Promise<void> }[] = [
      { name: 'search', path: '/' },
      { name: 'search-filtered', path: '/?bedrooms=2&sort=price_from' },
      { name: 'project', path: `/projects/${first}` },
      { name: 'map', path: '/map?bedrooms=2', before: mapReady },
      // Zoomed in on Dubai: the communities' names.
      { name: 'map-area', path: '/map?bbox=55.10,25.03,55.30,25.15', before: mapReady },
      { name: 'apply', path: `/units/${unit.id}/apply` },
      {
        name: 'apply-errors',
        path: `/units/${unit.id}/apply`,
        before: async (current) => {
          await current.getByLabel('E-mail').fill('nobody');
          await current.getByRole('button', { name: 'Send application' }).click();
        },
      },
    ];
    const problems: string[] = [];
    for (const width of WIDTHS) {
      for (const { name, path, before } of pages) {
        const where = `${name} at ${width}px`;
        page = await running.browser.newPage({ viewport: { width, height: 900 } });
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(`${where}: console error ${message.text()}`);
        });
        page.on('pageerror', (error) => problems.push(`${where}: page error ${error.message}`));
        page.on('requestfailed', (request) => problems.push(`${where}: request failed ${request.url()}`));
        page.on('response', (response) => {
          if (response.status() >= 400 && response.request().resourceType() !== 'document') problems.push(`${where}: ${response.status()} ${response.url()}`);
        });
        await page.goto(`${running.demo.site.url}${path}`, { waitUntil: 'load' });
        if (before) {
          await before(page);
          await page.waitForLoadState('load');
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) problems.push(`${where}: ${overflow}px horizontal overflow`);
        const broken = await page.locator('img').evaluateAll((images) => (images as HTMLImageElement[]).filter((image) => !image.complete || image.naturalWidth === 0).map((image) => image.src));
        for (const src of broken) problems.push(`${where}: image does not load ${src}`);
        // Through the DevTools protocol: the page's CSP (no inline script) rightly refuses a script tag.
        await page.evaluate(axe);
        const violations = (await page.evaluate(async () => {
          const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe.run();
          return result.violations.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.length }));
        })) as { id: string; impact: string; nodes: number }[];
        for (const violation of violations.filter((candidate) => candidate.impact === 'serious' || candidate.impact === 'critical')) {
          problems.push(`${where}: axe ${violation.impact} ${violation.id} (${violation.nodes} elements)`);
        }
        await page.screenshot({ path: join(ARTIFACTS, `page-${name}-${width}.png`), fullPage: true });
        await page.close();
      }
    }
    expect(problems).toEqual([]);
  });

  it('shows the service message for an invalid search (a hand-edited address)', async () => {
    await open('/?price_min=-5');
    const { message } = await apiGet('/projects?price_min=-5&limit=12&offset=0');
    await expect(page.getByRole('alert').locator('strong').textContent()).resolves.toBe(message);
    await expect(page.getByLabel('Price from (AED)').inputValue()).resolves.toBe('-5');
  });
});
