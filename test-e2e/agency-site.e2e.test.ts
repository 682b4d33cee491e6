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

  it('shows an invalid search (a hand-edited address) in the form\u2019s words, by the field\u2019s label, the field marked', async () => {
    const cases = [
      { query: 'price_min=-5', words: 'Price from (AED) cannot be below 0', field: 'Price from (AED)' },
      { query: 'price_min=abc', words: 'Price from (AED) must be an amount in figures', field: 'Price from (AED)' },
      { query: 'currency=USD&price_max=-1', words: 'Price to (USD) cannot be below 0', field: 'Price to (USD)' },
    ];
    for (const { query, words, field } of cases) {
      // The API does refuse it, naming its parameter ...
      const refusal = await apiGet(`/projects?${query}&limit=12`);
      expect(refusal.message).toMatch(/price_m(in|ax)/);
      await open(`/?${query}`);
      // ... and the page says it with the form's label, never the parameter.
      const alert = await page.getByRole('alert').textContent();
      expect(alert).toContain(words);
      expect(alert).not.toMatch(/price_min|price_max|_/);
      await expect(page.getByLabel(field).getAttribute('aria-invalid')).resolves.toBe('true');
      const describedBy = await page.getByLabel(field).getAttribute('aria-describedby');
      await expect(page.locator(`#${describedBy}`).textContent()).resolves.toContain(words);
      if (query === 'price_min=-5') {
        await expect(page.getByLabel('Price from (AED)').inputValue()).resolves.toBe('-5');
        await shot('10-search-error');
      }
      await page.close();
    }
  });

  it('shows the matching units on the cards of a search by bedrooms (the API\u2019s match), not the project\u2019s cheapest unit of any size', async () => {
    const filters = 'bedrooms=2&price_max=3000000&sort=price_from&currency=USD';
    await open(`/?${filters}`);
    type Item = { id: number; price_from: number | null; match: { units: number; price_from: number | null; size_from: number | null } };
    const items = (await apiGet(`/projects?${filters}&match=true&limit=12`)).data.items as Item[];
    const usd = (amount: number) => new Intl.NumberFormat('en-AE', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(amount);
    const cards = await page.locator('.card').evaluateAll((elements) =>
      elements.map((card) => ({ id: Number(card.getAttribute('data-project-id')), price: card.querySelector('.price')?.textContent, text: card.textContent ?? '' })),
    );
    expect(cards.map((card) => card.id)).toEqual(items.map((item) => item.id));
    let cheaperElsewhere = 0;
    for (const [i, item] of items.entries()) {
      expect(cards[i].price).toBe(item.match.price_from === null ? '2-bed: price on request' : `2-bed from ${usd(item.match.price_from)}`);
      expect(cards[i].text).toContain(`${item.match.units} unit`);
      // The project's cheapest unit of any size is only the "All units from" figure (what the price order compares).
      if (item.price_from !== null && item.match.price_from !== null && usd(item.price_from) !== usd(item.match.price_from)) {
        cheaperElsewhere++;
        expect(cards[i].price).not.toContain(usd(item.price_from));
        expect(cards[i].text).toContain(`All units from ${usd(item.price_from)}`);
      }
    }
    expect(cheaperElsewhere).toBeGreaterThan(0);
    await expect(page.locator('.order-note').textContent()).resolves.toContain('lowest price over all its units');
    await shot('08-search-by-bedrooms');
  });

  it('says "Price on request" (no "From") for a project without a priced unit, and no size for one without units', async () => {
    const all = (await apiGet('/projects?sort=price_from&limit=100&fields=id,price_from,size_from')).data.items as { id: number; price_from: number | null; size_from: number | null }[];
    const first = all.findIndex((item) => item.price_from === null);
    expect(first).toBeGreaterThanOrEqual(0);
    const pageNumber = Math.floor(first / 12) + 1;
    await open(`/?sort=price_from&page=${pageNumber}`);
    const onPage = all.slice((pageNumber - 1) * 12, pageNumber * 12).filter((item) => item.price_from === null);
    for (const item of onPage) {
      await expect(page.locator(`.card[data-project-id="${item.id}"] .price`).textContent()).resolves.toBe('Price on request');
      if (item.size_from === null) await expect(page.locator(`.card[data-project-id="${item.id}"]`).textContent()).resolves.not.toContain('From');
    }
    await expect(page.locator('.cards').textContent()).resolves.not.toMatch(/From Price on request|From —/);
    await shot('09-price-on-request');
  });

  it('sends a page past the end to the last page (302), filters kept; with no match at all, to page 1', async () => {
    const total = (await apiGet('/projects?bedrooms=2&limit=1')).data.total as number;
    const last = Math.ceil(total / 12);
    expect(last).toBeGreaterThan(1);
    for (const past of [999, '99999999999999999999']) {
      page = await running.browser.newPage();
      const response = (await page.goto(`${running.demo.site.url}/?bedrooms=2&page=${past}`))!;
      const redirect = await response.request().redirectedFrom()?.response();
      expect(redirect?.status()).toBe(302);
      expect(response.status()).toBe(200);
      expect(new URL(page.url()).search).toBe(`?bedrooms=2&page=${last}`);
      await expect(page.locator('.summary').textContent()).resolves.toBe(`Projects ${(last - 1) * 12 + 1}–${total} of ${total}`);
      await expect(page.locator('.pager span').textContent()).resolves.toBe(`Page ${last} of ${last}`);
      await expect(page.getByRole('link', { name: 'Next →' }).count()).resolves.toBe(0);
      await expect(page.getByRole('link', { name: '← Previous' }).getAttribute('href')).resolves.toBe(last > 2 ? `/?bedrooms=2&page=${last - 1}` : '/?bedrooms=2');
      await page.close();
    }
    page = await running.browser.newPage();
    await page.goto(`${running.demo.site.url}/?bedrooms=2&price_max=1&page=3`);
    expect(new URL(page.url()).search).toBe('?bedrooms=2&price_max=1');
    await expect(page.locator('.summary').textContent()).resolves.toBe('No project matches these filters.');
  });

  it('shows the payment plan readably at 390 and 1366 px: no word broken across lines, nothing cut off, the stages adding up to the plan', async () => {
    const projects = (await apiGet('/projects?limit=100&fields=id,payment_plans')).data.items as { id: number; payment_plans: { type: number; percent: number }[] }[];
    // The plan with the most parts (the narrowest shares).
    const { id, payment_plans: plan } = projects.reduce((most, project) => (project.payment_plans.length > most.payment_plans.length ? project : most));
    expect(plan.length).toBeGreaterThan(3);
    const sums = new Map<number, number>();
    for (const part of plan) sums.set(part.type, (sums.get(part.type) ?? 0) + part.percent);
    for (const width of WIDTHS) {
      page = await running.browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${running.demo.site.url}/projects/${id}`);
      const problems = await page.evaluate(() => {
        const found: string[] = [];
        for (const element of document.querySelectorAll('.plan, .plan-stages')) {
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, word.index!);
              range.setEnd(node, word.index! + word[0].length);
              const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
              if (lines.size > 1) found.push(`"${word[0]}" broken over ${lines.size} lines`);
            }
          }
          for (const child of element.querySelectorAll<HTMLElement>('*')) if (child.scrollWidth > child.clientWidth + 1) found.push(`"${child.textContent}" cut off`);
        }
        return found;
      });
      expect(problems, `at ${width}px`).toEqual([]);
      await expect(page.locator('.plan > div').count()).resolves.toBe(plan.length);
      const stages = await page.locator('.plan-stages li').evaluateAll((items) => items.map((item) => [Number(item.getAttribute('data-stage')), Number(item.getAttribute('data-percent'))]));
      expect(stages).toEqual([...sums]);
      await page.locator('.plan').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `payment-plan-${width}.png`), fullPage: true });
      await page.close();
    }
  });

  it('names unit statuses in plain words (status 2 is "Expression of interest", not "EOI")', async () => {
    const [{ id }] = (await apiGet('/projects?statuses=2&limit=1')).data.items as { id: number }[];
    const units = (await apiGet(`/projects/${id}`)).data.units as { id: number; status: number }[];
    const unit = units.find((candidate) => candidate.status === 2)!;
    await open(`/projects/${id}`);
    await expect(page.locator(`tr[data-unit-id="${unit.id}"] td[data-label="Status"]`).textContent()).resolves.toBe('Expression of interest');
    await expect(page.locator('table.units').textContent()).resolves.not.toContain('EOI');
  });

  it('serves the pictures from the port asked for (PICTURES_PORT of npm run example)', async () => {
    expect(new URL(running.demo.pictures.url).port).toBe(String(running.picturesPort));
    const [{ logo }] = (await apiGet('/projects?limit=1&fields=logo')).data.items as { logo: string }[];
    expect(logo.startsWith(`http://127.0.0.1:${running.picturesPort}/`)).toBe(true);
    expect((await fetch(logo)).status).toBe(200);
  });
});
