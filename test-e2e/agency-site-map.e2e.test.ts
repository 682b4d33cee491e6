import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, HAS_CHROMIUM, useDemoInChromium, WIDTHS } from './demo-in-chromium.js';

/*
 * The example site's map page (/map) in headless Chromium at phone and desktop widths, with no
 * network: every request that is not to 127.0.0.1 (the site, and the demo's picture host) is blocked
 * and recorded, and none may be made. Leaflet and the page's script come from the site itself; the
 * clusters, the area searches and the drawn shape are checked against the API's own answers for the
 * same filters and area. Screenshots go to test-e2e/artifacts/ (git-ignored).
 */
const FILTERS = 'bedrooms=1,2';
const PAGE_FILTERS = 'bedrooms=1&bedrooms=2';

interface ProjectsAnswer {
  total: number;
  items: { id: number; name: string; price_from: number | null }[];
}

describe.skipIf(!HAS_CHROMIUM)(`agency site map page in headless Chromium (needs ${CHROMIUM})`, () => {
  const running = useDemoInChromium();
  let context: BrowserContext | undefined;
  /** Requests the page tried to make off this machine (blocked). */
  let offsite: string[];
  /** Console errors, page errors and failed requests (a CSP refusal shows as a console error). */
  let problems: string[];

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  async function open(width: number, path: string, javaScriptEnabled = true): Promise<Page> {
    offsite = [];
    problems = [];
    context = await running.browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, javaScriptEnabled });
    // No network: only this machine answers.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).hostname === '127.0.0.1') return route.continue();
      offsite.push(url);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto(`${running.demo.site.url}${path}`);
    return page;
  }

  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${running.demo.api.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-API-Key': running.demo.apiKey, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, path).toBe(200);
    return ((await response.json()) as { data: T }).data;
  };
  const shot = (page: Page, name: string, width: number) => page.screenshot({ path: join(ARTIFACTS, `map-${name}-${width}.png`) });

  /** Waits for the next answer put in place by the page's script (`data-loads` counts them). */
  async function nextLoad(page: Page, selector: string, after: number): Promise<void> {
    await page.waitForFunction(
      ([target, count]) => {
        const element = document.querySelector<HTMLElement>(target as string);
        return element?.dataset.state === 'ready' && Number(element.dataset.loads ?? 0) > (count as number);
      },
      [selector, after] as const,
    );
  }
  const loads = async (page: Page, selector: string) => Number((await page.locator(selector).getAttribute('data-loads')) ?? 0);
  const mapState = async (page: Page) => {
    const map = page.locator('#map');
    return { bbox: (await map.getAttribute('data-bbox'))!, zoom: Number(await map.getAttribute('data-zoom')), total: Number(await map.getAttribute('data-total')) };
  };
  /** Every marker's count, largest first (a project's marker counts 1). */
  const counts = async (page: Page) =>
    (await page.locator('.marker [data-count]').evaluateAll((markers) => markers.map((marker) => Number((marker as HTMLElement).dataset.count)))).sort((a, b) => b - a);
  const listIds = (page: Page) => page.locator('.map-items li').evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.projectId)));
  const listTotal = async (page: Page) => Number(await page.locator('.map-list').getAttribute('data-total'));

  /** Clicks the largest cluster and waits for the clusters of the new view. */
  async function zoomIntoLargest(page: Page): Promise<void> {
    const before = await loads(page, '#map');
    const largest = (await counts(page))[0];
    await page.locator(`.marker button.cluster[data-count="${largest}"]`).first().click();
    await nextLoad(page, '#map', before);
  }

  for (const width of WIDTHS) {
    it(`at ${width} px: clusters for the filters, zoom on click, "Search this area", a drawn triangle, no network`, async () => {
      const page = await open(width, `/map?${PAGE_FILTERS}`);
      await nextLoad(page, '#map', 0);
      // The background: the land around the catalogue, from the site itself.
      await page.waitForSelector('#map[data-land=ready]');
      expect(await page.locator('.leaflet-land-pane path').count()).toBeGreaterThan(0);

      // The clusters cover every match with coordinates: their counts add up to the API's total for the
      // same filters in the map's viewport, which holds them all.
      const first = await mapState(page);
      const markerCounts = await counts(page);
      expect(markerCounts.length).toBeGreaterThan(1);
      const inView = await api<ProjectsAnswer>(`/projects?${FILTERS}&bbox=${first.bbox}&limit=1`);
      const everywhere = await api<ProjectsAnswer>(`/projects?${FILTERS}&bbox=-180,-90,180,90&limit=1`);
      expect(markerCounts.reduce((sum, count) => sum + count, 0)).toBe(inView.total);
      expect(first.total).toBe(inView.total);
      expect(inView.total).toBe(everywhere.total);
      // The list: every match of the filters (no area yet), in the API's order.
      const all = await api<ProjectsAnswer>(`/projects?${FILTERS}&limit=100`);
      expect(await listTotal(page)).toBe(all.total);
      expect(await listIds(page)).toEqual(all.items.map((project) => project.id));
      expect(all.total).toBeLessThan((await api<ProjectsAnswer>('/projects?limit=1')).total);
      await shot(page, '1-start', width);

      // A click on a cluster zooms in; the new clusters again add up to the API's total for the new viewport.
      await expect(page.locator('#search-area').isHidden()).resolves.toBe(true);
      await zoomIntoLargest(page);
      const zoomed = await mapState(page);
      expect(zoomed.zoom).toBeGreaterThan(first.zoom);
      const zoomedTotal = (await api<ProjectsAnswer>(`/projects?${FILTERS}&bbox=${zoomed.bbox}&limit=1`)).total;
      expect((await counts(page)).reduce((sum, count) => sum + count, 0)).toBe(zoomedTotal);
      expect(zoomedTotal).toBeGreaterThan(0);
      await shot(page, '2-zoomed', width);

      // Pan a third of the map to the right (dragging it), then "Search this area": the list is the API's
      // for exactly the viewport the map shows.
      const box = (await page.locator('#map').boundingBox())!;
      const before = await loads(page, '#map');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 - box.width / 3, box.y + box.height / 2 + 20, { steps: 12 });
      await page.mouse.up();
      await nextLoad(page, '#map', before);
      const panned = await mapState(page);
      expect(panned.bbox).not.toBe(zoomed.bbox);
      const listed = await loads(page, '#map-results');
      await page.getByRole('button', { name: 'Search this area' }).click();
      await nextLoad(page, '#map-results', listed);
      await expect(page.locator('.map-list').getAttribute('data-area-value')).resolves.toBe(panned.bbox);
      const area = await api<ProjectsAnswer>(`/projects?${FILTERS}&bbox=${panned.bbox}&limit=100`);
      expect(await listTotal(page)).toBe(area.total);
      expect(await listIds(page)).toEqual(area.items.map((project) => project.id));
      expect(area.total).toBeGreaterThan(0);
      expect(area.total).toBeLessThan(all.total);
      expect(new URL(page.url()).searchParams.get('bbox')).toBe(panned.bbox);
      await expect(page.locator('#search-area').isHidden()).resolves.toBe(true);
      await shot(page, '3-search-this-area', width);

      // Draw a triangle around the marker nearest the map's middle: three clicks (markers let them through
      // while drawing), then "Finish shape". The list is the API's polygon search, GET and POST alike.
      await page.getByRole('button', { name: 'Draw an area' }).click();
      await expect(page.getByRole('button', { name: 'Finish shape' }).isDisabled()).resolves.toBe(true);
      const middle = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      const centres = await page.locator('.marker [data-count]').evaluateAll((markers) =>
        markers.map((marker) => marker.getBoundingClientRect()).map((rect) => ({ x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 })),
      );
      const centre = centres.sort((a, b) => Math.hypot(a.x - middle.x, a.y - middle.y) - Math.hypot(b.x - middle.x, b.y - middle.y))[0];
      // Corners kept inside the map, clear of its zoom buttons (top left).
      const inside = (x: number, y: number) => ({ x: Math.min(box.x + box.width - 20, Math.max(box.x + 70, x)), y: Math.min(box.y + box.height - 20, Math.max(box.y + 20, y)) });
      for (const [dx, dy] of [
        [-70, -50],
        [70, -50],
        [0, 80],
      ]) {
        const corner = inside(centre.x + dx, centre.y + dy);
        await page.mouse.click(corner.x, corner.y);
      }
      await expect(page.locator('#map-hint').textContent()).resolves.toContain('3 corners');
      const drawnLoads = await loads(page, '#map-results');
      const clusterLoads = await loads(page, '#map');
      await page.getByRole('button', { name: 'Finish shape' }).click();
      await nextLoad(page, '#map-results', drawnLoads);
      await nextLoad(page, '#map', clusterLoads);
      const polygon = (await page.locator('.map-list').getAttribute('data-area-value'))!;
      expect(polygon.split(',')).toHaveLength(6);
      const inShape = await api<ProjectsAnswer>(`/projects?${FILTERS}&polygon=${polygon}&limit=100`);
      const numbers = polygon.split(',').map(Number);
      const ring = Array.from({ length: numbers.length / 2 }, (_, i) => [numbers[2 * i], numbers[2 * i + 1]]);
      const posted = await api<ProjectsAnswer>('/projects/search', { bedrooms: '1,2', limit: 100, polygon: { type: 'Polygon', coordinates: [[...ring, ring[0]]] } });
      expect(posted).toEqual(inShape);
      expect(inShape.total).toBeGreaterThan(0);
      expect(await listTotal(page)).toBe(inShape.total);
      expect(await listIds(page)).toEqual(inShape.items.map((project) => project.id));
      expect(new URL(page.url()).searchParams.get('polygon')).toBe(polygon);
      // The clusters are limited to the shape too.
      const drawn = await mapState(page);
      const shapeInView = (await api<ProjectsAnswer>(`/projects?${FILTERS}&polygon=${polygon}&bbox=${drawn.bbox}&limit=1`)).total;
      expect((await counts(page)).reduce((sum, count) => sum + count, 0)).toBe(shapeInView);
      await shot(page, '4-drawn-triangle', width);

      // Clear: back to every match of the filters.
      const cleared = await loads(page, '#map-results');
      await page.getByRole('button', { name: 'Clear' }).click();
      await nextLoad(page, '#map-results', cleared);
      expect(await listTotal(page)).toBe(all.total);

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      expect(offsite).toEqual([]);
      expect(problems).toEqual([]);
    });
  }

  for (const width of WIDTHS) {
    it(`at ${width} px: with a bedrooms filter the list and the markers show the matching units\u2019 lowest price (the API\u2019s match), not the project\u2019s cheapest unit of any size`, async () => {
      const page = await open(width, '/map?bedrooms=2');
      await nextLoad(page, '#map', 0);
      type Match = { units: number; price_from: number | null };
      type Item = { id: number; name: string; price_from: number | null; match: Match };
      // The site shows every price in AED (its display currency), and asks `match: true` for a unit-level filter.
      const all = await api<{ total: number; items: Item[] }>('/projects?bedrooms=2&currency=AED&match=true&limit=100');
      const byId = new Map(all.items.map((item) => [item.id, item]));
      const aed = (amount: number) => new Intl.NumberFormat('en-AE', { style: 'currency', currency: 'AED', maximumFractionDigits: 0 }).format(amount);
      const units = (count: number) => `${count} unit${count === 1 ? '' : 's'}`;
      const words = (match: Match) => `${match.price_from === null ? '2-bed: price on request' : `2-bed from ${aed(match.price_from)}`} · ${units(match.units)}`;

      // The list: each project's matching units (the API's match.price_from), as the search page's cards say it.
      const listed = await page.locator('.map-items li').evaluateAll((items) =>
        items.map((item) => ({
          id: Number((item as HTMLElement).dataset.projectId),
          matchPriceFrom: (item as HTMLElement).dataset.matchPriceFrom,
          price: item.querySelector('.price')?.textContent,
          units: item.querySelector('.units')?.textContent,
        })),
      );
      expect(listed.map((item) => item.id)).toEqual(all.items.map((item) => item.id));
      let cheaperElsewhere = 0;
      for (const [i, item] of all.items.entries()) {
        expect(listed[i].price).toBe(item.match.price_from === null ? '2-bed: price on request' : `2-bed from ${aed(item.match.price_from)}`);
        expect(listed[i].matchPriceFrom).toBe(String(item.match.price_from ?? ''));
        expect(listed[i].units).toBe(units(item.match.units));
        // The project's cheapest unit of any size (a studio) is not what the list shows.
        if (item.price_from !== null && item.match.price_from !== null && aed(item.price_from) !== aed(item.match.price_from)) {
          cheaperElsewhere++;
          expect(listed[i].price).not.toContain(aed(item.price_from));
        }
      }
      expect(cheaperElsewhere).toBeGreaterThan(0);

      // The markers: together they hold every matching unit in the viewport, and the lowest price they
      // show is the lowest match.price_from there (the API's, for the same filters and viewport).
      const { bbox } = await mapState(page);
      const inView = await api<{ total: number; items: Item[] }>(`/projects?bedrooms=2&currency=AED&match=true&bbox=${bbox}&limit=100`);
      expect(inView.total).toBeLessThanOrEqual(100);
      const titles = async () => page.locator('.marker [data-count]').evaluateAll((markers) => markers.map((marker) => (marker as HTMLElement).title));
      const shown = await titles();
      const unitsOf = (title: string) => Number(/· (\d+) units?$/.exec(title)?.[1]);
      const amountOf = (title: string) => Number(/ from AED\s?([\d,]+) ·/.exec(title)?.[1]?.replaceAll(',', '') ?? Infinity);
      expect(shown.every((title) => / · \d+ units?$/.test(title))).toBe(true);
      expect(shown.reduce((sum, title) => sum + unitsOf(title), 0)).toBe(inView.items.reduce((sum, item) => sum + item.match.units, 0));
      expect(Math.min(...shown.map(amountOf))).toBe(Math.min(...inView.items.map((item) => item.match.price_from ?? Infinity)));
      await shot(page, '7-bedrooms', width);

      // Zoomed in to single projects: each one's marker has its own match, in the list's words.
      for (let i = 0; i < 8 && (await page.locator('.marker a.pin').count()) < 3 && (await counts(page))[0] > 1; i++) await zoomIntoLargest(page);
      const pins = await page.locator('.marker a.pin').evaluateAll((links) => links.map((link) => ({ id: Number((link as HTMLElement).dataset.projectId), title: (link as HTMLElement).title, name: link.textContent ?? '' })));
      expect(pins.length).toBeGreaterThan(0);
      for (const pin of pins) {
        const item = byId.get(pin.id)!;
        expect(pin.title).toBe(`${item.name}, ${words(item.match)}`);
        // Its name (what a screen reader says) starts with the project and says the price it shows.
        expect(pin.name).toContain(`${item.name}, 2-bed`);
      }
      await shot(page, '8-bedrooms-zoomed', width);
      expect(offsite).toEqual([]);
      expect(problems).toEqual([]);
    });
  }

  it('a cluster of one is a link to its project, with its name and lowest price', async () => {
    const page = await open(1366, '/map');
    await nextLoad(page, '#map', 0);
    for (let i = 0; i < 8 && (await page.locator('.marker a.pin').count()) < 3; i++) await zoomIntoLargest(page);
    const pin = page.locator('.marker a.pin').first();
    const id = Number(await pin.getAttribute('data-project-id'));
    const project = await api<{ name: string; price_from: number | null }>(`/projects/${id}`);
    await expect(pin.getAttribute('href')).resolves.toBe(`/projects/${id}`);
    await expect(pin.textContent()).resolves.toContain(project.name);
    await shot(page, '5-single-projects', 1366);
    await pin.click();
    await page.waitForURL(`**/projects/${id}`);
    await expect(page.locator('h1').textContent()).resolves.toBe(project.name);
    expect(offsite).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('without JavaScript: the page says the map needs it, and the list and the filters still work', async () => {
    const page = await open(390, `/map?${PAGE_FILTERS}`, false);
    await expect(page.locator('noscript').count()).resolves.toBe(1);
    // (Playwright's text locators skip <noscript>.)
    await expect(page.locator('noscript .notice').isVisible()).resolves.toBe(true);
    await expect(page.locator('noscript .notice').textContent()).resolves.toContain('The map needs JavaScript');
    await expect(page.locator('.map-pane').isHidden()).resolves.toBe(true);
    const all = await api<ProjectsAnswer>(`/projects?${FILTERS}&limit=100`);
    expect(await listTotal(page)).toBe(all.total);
    // The filters are a plain form sent to /map; a searched area rides along in it.
    await page.goto(`${running.demo.site.url}/map?bbox=55.1,25.0,55.2,25.1`);
    await page.getByText('Filters').click();
    await page.getByLabel('2', { exact: true }).check();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const boxed = await api<ProjectsAnswer>('/projects?bedrooms=2&bbox=55.1,25.0,55.2,25.1&limit=100');
    expect(new URL(page.url()).searchParams.get('bbox')).toBe('55.1,25.0,55.2,25.1');
    expect(await listIds(page)).toEqual(boxed.items.map((project) => project.id));
    await shot(page, '6-no-javascript', 390);
    // The other pages still carry no script at all, and their CSP allows none.
    const search = await fetch(`${running.demo.site.url}/`);
    expect(search.headers.get('content-security-policy')).not.toContain('script-src');
    expect(await search.text()).not.toContain('<script');
    expect(offsite).toEqual([]);
  });

  it('shows the API\'s message for a shape it refuses (a self-crossing bow tie)', async () => {
    const page = await open(1366, '/map?polygon=55.1,25.0,55.2,25.1,55.2,25.0,55.1,25.1');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/polygon/i);
    await nextLoad(page, '#map', 0);
    await expect(page.locator('#map-hint').textContent()).resolves.toMatch(/polygon/i);
    expect(offsite).toEqual([]);
  });
});
