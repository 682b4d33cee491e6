import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { html, htmlText } from '../examples/agency-site/src/html.js';
import { boxAround, parseBox, parsePolygon } from '../examples/agency-site/src/map-geometry.js';
import { clipRing } from '../examples/agency-site/src/map-land.js';
import { mapClusters, mapResults, mergeCloseClusters, readMapArea } from '../examples/agency-site/src/map-search.js';
import { UNIT_STATUS } from '../examples/agency-site/src/format.js';
import { mapList } from '../examples/agency-site/src/pages/map.js';
import { projectPage } from '../examples/agency-site/src/pages/project.js';
import { searchPage } from '../examples/agency-site/src/pages/search.js';
import { lastPage, projectsQuery, readSearchForm, searchHref, searchProblems, SORT_LABELS } from '../examples/agency-site/src/search-form.js';
import type { Area, CatalogueClient, Developer, Project, ProjectClusters, ProjectsPage } from '../sdk/src/index.js';

/* The example site's pure parts: what it asks the API for, what it escapes, how it shows facets. */

describe('the search form', () => {
  const form = readSearchForm(new URLSearchParams('bedrooms=0&bedrooms=2&bedrooms=9&price_min=&price_max=3000000&developer=4&development_status=2&near_metro=on&sort=-price_from&page=3'));

  it('becomes the GET /projects query, always with the facets of the Refine panel', () => {
    expect(form).toMatchObject({ bedrooms: ['0', '2'], priceMin: '', priceMax: '3000000', developmentStatus: '2', unitType: '', sort: '-price_from', page: 3 });
    expect(projectsQuery(form)).toEqual({
      limit: 12,
      offset: 24,
      facets: 'bedrooms,developer,area,development_status,unit_types',
      bedrooms: '0,2',
      price_max: 3_000_000,
      developer_ids: '4',
      development_status: '2',
      near_transport: true,
      // Bedrooms and a price bound are unit-level filters: the cards show what matched (the cheapest 2-bed, not a studio).
      match: true,
      sort: '-price_from',
      currency: 'AED',
    });
  });

  it('asks what matched only with a unit-level filter (bedrooms, a price bound)', () => {
    const query = (text: string) => projectsQuery(readSearchForm(new URLSearchParams(text)));
    expect(query('')).not.toHaveProperty('match');
    expect(query('developer=4&near_metro=on&sort=price_from')).not.toHaveProperty('match');
    expect(query('bedrooms=2').match).toBe(true);
    expect(query('price_min=500000').match).toBe(true);
    expect(query('price_max=3000000').match).toBe(true);
  });

  it('asks a valid offset for any page, and knows the last page', () => {
    expect(projectsQuery(readSearchForm(new URLSearchParams('page=999'))).offset).toBe(998 * 12);
    // Far past anything: still an offset the API takes (at most 2^53 - 1), which the site answers with a redirect to the last page.
    expect(projectsQuery(readSearchForm(new URLSearchParams('page=99999999999999999999'))).offset).toBe(Number.MAX_SAFE_INTEGER);
    expect([0, 1, 12, 13, 42].map(lastPage)).toEqual([1, 1, 1, 2, 4]);
  });

  it('names the API\u2019s refusals by the form\u2019s labels, in plain words, never by the API\u2019s parameters', () => {
    const usd = readSearchForm(new URLSearchParams('currency=USD'));
    const error = (...errors: { field: string | null; code: string; message: string }[]) => ({ message: errors[0].message, errors });
    expect(searchProblems(error({ field: 'price_min', code: 'minimum', message: 'price_min must be at least 0' }), usd)).toEqual([
      { field: 'price_min', text: 'Price from (USD) cannot be below 0: enter 0 or more, or leave it empty.' },
    ]);
    expect(searchProblems(error({ field: 'price_min', code: 'type', message: 'price_min must be a number' }), usd)).toEqual([
      { field: 'price_min', text: 'Price from (USD) must be an amount in figures, such as 1500000, or empty.' },
    ]);
    const both = searchProblems(
      error({ field: 'price_max', code: 'unstorable', message: 'price_max must be a finite number' }, { field: 'developer_ids', code: 'invalid', message: 'developer_ids must be a comma-separated list of positive integers (developer company ids)' }),
      usd,
    );
    expect(both.map((problem) => problem.field)).toEqual(['price_max', 'developer']);
    for (const { text } of both) expect(text).not.toMatch(/price_m|developer_ids|_/);
    // About no field of the form (a drawn shape the API refuses): the API's own message.
    expect(searchProblems({ message: 'polygon ring 1 crosses itself' }, usd)).toEqual([{ text: 'polygon ring 1 crosses itself' }]);
  });

  it('takes only the orders the page offers (SORT_LABELS is typed from the SDK: every declared order but distance, which needs a search centre)', () => {
    expect(SORT_LABELS.price_from).toBe('Price: low to high');
    expect(readSearchForm(new URLSearchParams('sort=price_from')).sort).toBe('price_from');
    expect(readSearchForm(new URLSearchParams('sort=distance')).sort).toBe('');
    expect(readSearchForm(new URLSearchParams('sort=constructor')).sort).toBe('');
  });

  it('links to other pages with the same filters', () => {
    expect(searchHref(form, 2)).toBe('/?bedrooms=0&bedrooms=2&price_max=3000000&developer=4&development_status=2&near_metro=on&sort=-price_from&page=2');
    expect(searchHref(readSearchForm(new URLSearchParams()), 1)).toBe('/');
    // The display currency: AED by default (left out of links), another one kept; an unknown one is AED.
    expect(readSearchForm(new URLSearchParams('currency=EUR')).currency).toBe('EUR');
    expect(readSearchForm(new URLSearchParams('currency=XYZ')).currency).toBe('AED');
    expect(projectsQuery(readSearchForm(new URLSearchParams('currency=USD&price_max=800000')))).toMatchObject({ currency: 'USD', price_max: 800_000 });
    expect(searchHref(readSearchForm(new URLSearchParams('currency=USD')), 1)).toBe('/?currency=USD');
  });
});

describe('rendering', () => {
  it('escapes every value from the catalogue', () => {
    const name = '<script>alert("x")</script> & \'Co\'';
    expect(htmlText(html`<h1 title="${name}">${name}</h1>${[html`<b>${'<i>'}</b>`]}`)).toBe(
      '<h1 title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;</h1><b>&lt;i&gt;</b>',
    );
  });

  it('shows facets by the API\u2019s labels, each filterable value a link to its filter with the other filters kept', () => {
    const developers = [{ id: 3, name: 'Emaar & Sons' }, { id: 4, name: 'Nakheel' }] as Developer[];
    const areas = [{ id: 1, name: 'Dubai Marina', city: 'Dubai' }] as Area[];
    const v = (value: number, label: string | null, count: number, filterable = true) => ({ value, label, filterable, count });
    const page = {
      total: 8,
      items: [],
      facets: {
        bedrooms: [v(0, 'Studio', 2), v(2, '2 bedrooms', 8), v(5, '5+ bedrooms', 1)],
        developer: [v(3, 'Emaar & Sons', 2), v(4, 'Nakheel', 8), v(9, null, 1)],
        area: [v(1, 'Dubai Marina', 4, false)],
        development_status: [v(0, 'Announced', 3, false), v(1, 'Early construction', 5)],
        unit_types: [v(2, 'Villas', 6)],
      },
    } satisfies ProjectsPage;
    const form = readSearchForm(new URLSearchParams('bedrooms=2&price_max=3000000&developer=4&near_metro=on'));
    const text = htmlText(searchPage({ form, developers, areas, page }));
    const panel = text.slice(text.indexOf('<aside'), text.indexOf('</aside>'));
    const section = (name: string) => panel.slice(panel.indexOf(`data-facet="${name}"`), panel.indexOf('</section>', panel.indexOf(`data-facet="${name}"`)));

    expect(section('bedrooms')).toContain('<a href="/?bedrooms=0&amp;price_max=3000000&amp;developer=4&amp;near_metro=on">Studio <span class="count">(2)</span></a>');
    expect(section('bedrooms')).toContain('<li data-value="2" data-count="8" aria-current="true">2 bedrooms <span class="count">(8)</span></li>');
    expect(section('bedrooms')).toContain('>5+ bedrooms <span class="count">(1)</span></a>');
    expect(section('developer')).toContain('<a href="/?bedrooms=2&amp;price_max=3000000&amp;developer=3&amp;near_metro=on">Emaar &amp; Sons <span class="count">(2)</span></a>');
    expect(section('developer')).toContain('aria-current="true">Nakheel <span class="count">(8)</span>');
    // No label from the API: the site's fallback.
    expect(section('developer')).toContain('>Developer 9 <span class="count">(1)</span>');
    expect(section('developer')).toContain('<a class="clear" href="/?bedrooms=2&amp;price_max=3000000&amp;near_metro=on">Any developer</a>');
    // Not filterable (no area filter; development status 0): names and counts, no links.
    expect(section('area')).toContain('<li data-value="1" data-count="4">Dubai Marina <span class="count">(4)</span></li>');
    expect(section('development_status')).toContain('<li data-value="0" data-count="3">Announced <span class="count">(3)</span></li>');
    expect(section('development_status')).toContain('href="/?bedrooms=2&amp;price_max=3000000&amp;developer=4&amp;development_status=1&amp;near_metro=on">Early construction');
    expect(section('unit_types')).toContain('href="/?bedrooms=2&amp;price_max=3000000&amp;developer=4&amp;unit_type=2&amp;near_metro=on">Villas');
  });

  it('labels the price inputs in the display currency and offers the currencies', () => {
    const text = htmlText(searchPage({ form: readSearchForm(new URLSearchParams('currency=USD')), developers: [], areas: [] }));
    expect(text).toContain('<span>Price from (USD)</span>');
    expect(text).toContain('<span>Price to (USD)</span>');
    expect(text).toContain('<option value="USD" selected>USD</option>');
    expect(text).toContain('<option value="CNY">CNY</option>');
  });

  const item = (fields: Partial<ProjectsPage['items'][number]>) =>
    ({ id: 7, name: 'Marina Walk', logo: null, handover_date: null, price_from: 350_000, size_from: 35.2, currency: 'AED', company: { id: 1, name: 'Emaar' }, ...fields }) as unknown as ProjectsPage['items'][number];
  const cardOf = (form: string, ...items: ProjectsPage['items']) => {
    const text = htmlText(searchPage({ form: readSearchForm(new URLSearchParams(form)), developers: [], areas: [], page: { total: items.length, items } }));
    return text.slice(text.indexOf('<ul class="cards">'), text.indexOf('</ul>', text.indexOf('<ul class="cards">')));
  };

  it('shows the matching units\u2019 figures on a card when the visitor filtered by unit (bedrooms), the project\u2019s own beside them', () => {
    const card = cardOf('bedrooms=2&sort=price_from', item({ match: { units: 4, price_from: 1_103_560, size_from: 74.5 } }));
    expect(card).toContain('<div class="price">2-bed from AED\u00a01,103,560</div>');
    expect(card).toContain('4 units · from 75 m²');
    expect(card).toContain('All units from AED\u00a0350,000');
    expect(card).toContain('data-match-price-from="1103560" data-match-units="4"');
    expect(card).not.toContain('From AED');
    expect(cardOf('bedrooms=0&bedrooms=1', item({ match: { units: 1, price_from: null, size_from: 40 } }))).toContain('Studio or 1-bed: price on request');
    // The API orders by the project's own lowest price: the page says so.
    const page = htmlText(searchPage({ form: readSearchForm(new URLSearchParams('bedrooms=2&sort=price_from')), developers: [], areas: [], page: { total: 1, items: [item({ match: { units: 4, price_from: 1_103_560, size_from: 74.5 } })] } }));
    expect(page).toContain('Ordered by each project’s lowest price over all its units');
  });

  it('says "From" only before a price: "Price on request" alone, and no "From —" for a project without units', () => {
    expect(cardOf('', item({}))).toContain('<div class="price">From AED\u00a0350,000</div>');
    const card = cardOf('', item({ price_from: null, size_from: null }));
    expect(card).toContain('<div class="price">Price on request</div>');
    expect(card).not.toContain('From');
    expect(htmlText(mapList({ form: readSearchForm(new URLSearchParams()), area: null, page: { total: 1, items: [item({ price_from: null })] } }))).toContain('<span class="price">Price on request</span>');
  });

  it('shows a refused search in the form\u2019s words, the control marked and pointing to its problem', () => {
    const form = readSearchForm(new URLSearchParams('price_min=-5'));
    const text = htmlText(searchPage({ form, developers: [], areas: [], error: { message: 'price_min must be at least 0', errors: [{ field: 'price_min', code: 'minimum', message: 'price_min must be at least 0' }] } }));
    expect(text).toContain('<strong id="search-error-price_min">Price from (AED) cannot be below 0');
    expect(text).toContain('name="price_min" min="0" step="1" value="-5" aria-invalid="true" aria-describedby="search-error-price_min"');
    expect(text).not.toContain('price_min must');
  });

  it('keeps a filter set from the Refine panel when the form is sent again', () => {
    const text = htmlText(searchPage({ form: readSearchForm(new URLSearchParams('development_status=2&unit_type=1')), developers: [], areas: [] }));
    expect(text).toContain('<input type="hidden" name="development_status" value="2"><input type="hidden" name="unit_type" value="1">');
  });
});

describe('the project page', () => {
  it('names unit statuses in plain words (no "EOI")', () => {
    expect(UNIT_STATUS).toEqual({ 1: 'Announced', 2: 'Expression of interest', 3: 'Start of sales', 4: 'On sale', 5: 'Out of stock' });
  });

  it('shows the payment plan as a bar of shares with the stages in words under it, instalments of a stage added up', () => {
    const plans = [10, 10, 10, 10, 20].map((percent, i) => ({ type: i === 0 ? 1 : 2, percent })).concat({ type: 3, percent: 40 });
    const project = {
      name: 'Marina Walk',
      company: { name: 'Emaar' },
      location: { area_name: 'Dubai Marina', area_city: 'Dubai' },
      media: { images: [] },
      cost: { currency: 'AED' },
      units: [],
      nearby_facilities: {},
      payment_plans: plans,
      price_from: null,
      size_from: null,
      handover_date: null,
      readiness_progress: 10,
      description: null,
    } as unknown as Project;
    const text = htmlText(projectPage(project));
    const bar = text.slice(text.indexOf('<div class="plan"'), text.indexOf('</div>\n<ul class="plan-stages"'));
    expect([...bar.matchAll(/<div class="s(\d) w\d+">([^<]*)<\/div>/g)].map((part) => `${part[1]}:${part[2]}`)).toEqual(['1:10%', '2:10%', '2:10%', '2:10%', '2:20%', '3:40%']);
    const stages = text.slice(text.indexOf('<ul class="plan-stages"'), text.indexOf('</ul>', text.indexOf('<ul class="plan-stages"')));
    expect([...stages.matchAll(/<li[^>]*>(.*?)<\/li>/g)].map((stage) => stage[1].replace(/<[^>]+>/g, ''))).toEqual(['10% Down payment', '50% During construction, in 4 payments (10% + 10% + 10% + 20%)', '40% On completion']);
  });
});

describe('the map page', () => {
  it('reads the searched area: a drawn shape wins over a viewport, blanks are no area', () => {
    expect(readMapArea(new URLSearchParams('bbox=55.1,25.0,55.2,25.1'))).toEqual({ bbox: '55.1,25.0,55.2,25.1' });
    expect(readMapArea(new URLSearchParams('bbox=55.1,25.0,55.2,25.1&polygon=55.1,25,55.2,25,55.15,25.1'))).toEqual({ polygon: '55.1,25,55.2,25,55.15,25.1' });
    expect(readMapArea(new URLSearchParams('bbox=&polygon=%20'))).toBeNull();
  });

  it('reads the API\u2019s area forms back for the first view', () => {
    expect(parseBox('55.1,25,55.2,25.1')).toEqual([55.1, 25, 55.2, 25.1]);
    expect(parseBox('55.1,25,55.2')).toBeNull();
    expect(parseBox('a,b,c,d')).toBeNull();
    const rings = parsePolygon('55,25,56,25,55.5,26;55.4,25.2,55.6,25.2,55.5,25.4|54,24,54.5,24,54.2,24.5');
    expect(rings.map((polygon) => polygon.map((ring) => ring.length))).toEqual([[3, 3], [3]]);
    expect(boxAround(rings.flat(2))).toEqual([54, 24, 56, 26]);
    expect(boxAround([])).toBeNull();
  });

  it('lists the projects of the area with the total, saying which area and when only the first ones are shown', () => {
    const item = { id: 7, name: 'Marina <Walk>', price_from: 1_250_000, currency: 'AED', company: { id: 1, name: 'Emaar' } } as unknown as ProjectsPage['items'][number];
    const text = htmlText(mapList({ form: readSearchForm(new URLSearchParams()), area: { bbox: '55.1,25,55.2,25.1' }, page: { total: 140, items: Array.from({ length: 100 }, () => item) } as ProjectsPage }));
    expect(text).toContain('140 projects in the searched area, the first 100 shown');
    expect(text).toContain('data-area="bbox" data-area-value="55.1,25,55.2,25.1"');
    expect(text).toContain('<a href="/projects/7">Marina &lt;Walk&gt;</a>');
    expect(text).toContain('From AED');
    expect(htmlText(mapList({ form: readSearchForm(new URLSearchParams()), area: { polygon: '55,25,56,25,55.5,26' }, page: { total: 0, items: [] } as unknown as ProjectsPage }))).toContain('No project matches these filters in the drawn area.');
  });

  it('with a unit-level filter lists the matching units\u2019 lowest price and count, in the search page\u2019s words (not the project\u2019s cheapest unit of any size)', () => {
    const item = (match: ProjectsPage['items'][number]['match']) =>
      ({ id: 7, name: 'Marina Walk', price_from: 350_000, currency: 'AED', company: { id: 1, name: 'Emaar' }, match }) as unknown as ProjectsPage['items'][number];
    const list = (query: string, ...items: ProjectsPage['items']) => htmlText(mapList({ form: readSearchForm(new URLSearchParams(query)), area: null, page: { total: items.length, items } as ProjectsPage }));
    const text = list('bedrooms=2', item({ units: 4, price_from: 1_103_560, size_from: 74.5 }));
    expect(text).toContain('<span class="price">2-bed from AED\u00a01,103,560</span><span class="units">4 units</span>');
    expect(text).toContain('class="matched" data-project-id="7" data-price-from="350000" data-match-price-from="1103560" data-match-units="4"');
    expect(text).not.toContain('350,000');
    expect(list('price_max=2000000', item({ units: 1, price_from: 1_103_560, size_from: 74.5 }))).toContain('Matching units from AED\u00a01,103,560</span><span class="units">1 unit</span>');
    // All the matching units price on request: said so, as on the search page.
    expect(list('bedrooms=0&bedrooms=1', item({ units: 2, price_from: null, size_from: 40 }))).toContain('<span class="price">Studio or 1-bed: price on request</span><span class="units">2 units</span>');
    // Without a unit-level filter the project's own price, whatever the answer carries.
    const own = list('developer=1', item({ units: 9, price_from: 350_000, size_from: 30 }));
    expect(own).toContain('<span class="price">From AED\u00a0350,000</span></li>');
    expect(own).not.toContain('units');
    // Sorted by price with a unit-level filter, the list says whose price orders it (the API orders by the project's own).
    expect(list('bedrooms=2&sort=price_from', item({ units: 4, price_from: 1_103_560, size_from: 74.5 }))).toContain('Ordered by each project’s lowest price over all its units');
    expect(list('bedrooms=2', item({ units: 4, price_from: 1_103_560, size_from: 74.5 }))).not.toContain('order-note');
  });

  it('asks the API what matched (match: true) for the list and the markers only with a unit-level filter', async () => {
    const asked: Record<string, unknown>[] = [];
    const page = { total: 0, items: [] } as unknown as ProjectsPage;
    const client = {
      listProjects: async (query: Record<string, unknown>) => (asked.push({ via: 'listProjects', ...query }), page),
      searchProjects: async (query: Record<string, unknown>) => (asked.push({ via: 'searchProjects', ...query }), page),
      listProjectClusters: async (query: Record<string, unknown>) => (asked.push({ via: 'listProjectClusters', ...query }), { total: 0, zoom: 12, grid_zoom: 12, clusters: [] }),
    } as unknown as CatalogueClient;
    const form = (query: string) => readSearchForm(new URLSearchParams(query));
    const triangle = { polygon: '55,25,56,25,55.5,26' };
    for (const query of ['bedrooms=2', 'price_min=500000', 'price_max=3000000']) {
      asked.length = 0;
      await mapResults(client, form(query), null);
      await mapResults(client, form(query), triangle);
      await mapClusters(client, form(query), triangle, '55,25,56,26', 12);
      expect(asked.map(({ via, match }) => [via, match])).toEqual([['listProjects', true], ['searchProjects', true], ['listProjectClusters', true]]);
    }
    asked.length = 0;
    await mapResults(client, form('developer=4&near_metro=on&sort=price_from'), { bbox: '55,25,56,26' });
    await mapClusters(client, form('developer=4'), null, '55,25,56,26', 12);
    expect(asked).toHaveLength(2);
    for (const query of asked) expect(query).not.toHaveProperty('match');
  });

  it('cuts the background\u2019s land to the region (Sutherland\u2013Hodgman): inside kept, outside dropped, crossings on the edge', () => {
    const region: [number, number, number, number] = [0, 0, 10, 10];
    expect(clipRing([[2, 2], [4, 2], [3, 4]], region)).toEqual([[2, 2], [4, 2], [3, 4]]);
    expect(clipRing([[20, 20], [24, 20], [23, 24]], region)).toEqual([]);
    // A square half out on the east: cut at longitude 10.
    expect(clipRing([[5, 2], [15, 2], [15, 8], [5, 8]], region)).toEqual([[5, 2], [10, 2], [10, 8], [5, 8]]);
    const point = fc.tuple(fc.double({ min: -20, max: 30, noNaN: true }), fc.double({ min: -20, max: 30, noNaN: true }));
    fc.assert(
      fc.property(fc.array(point, { minLength: 3, maxLength: 12 }), (ring) => {
        for (const [lng, lat] of clipRing(ring, region)) {
          expect(lng).toBeGreaterThanOrEqual(-1e-9);
          expect(lng).toBeLessThanOrEqual(10 + 1e-9);
          expect(lat).toBeGreaterThanOrEqual(-1e-9);
          expect(lat).toBeLessThanOrEqual(10 + 1e-9);
        }
      }),
    );
  });

  type Cluster = ProjectClusters['clusters'][number];
  type Match = NonNullable<Cluster['match']>;
  const cluster = (lat: number, lng: number, count: number, price: number | null, id = 0): Cluster => ({
    tile: `${lat}/${lng}`,
    count,
    centroid: { lat, lng },
    bounds: { west: lng - 0.001, south: lat - 0.001, east: lng + 0.001, north: lat + 0.001 },
    price_from: price,
    currency: price === null ? null : 'AED',
    project: count === 1 ? ({ id, name: `Project ${id}`, logo: null } as Cluster['project']) : null,
  });
  /** The cluster as `match: true` answers it. */
  const matched = (c: Cluster, match: Match): Cluster => ({ ...c, match });

  it('draws clusters that would overlap on screen as one marker: counts added, weighted centroid, bounds joined, lower price', () => {
    // At zoom 12 a degree of longitude is 2,913 px: 0.001 apart is 3 px, 0.03 apart 87 px.
    const [merged, apart] = mergeCloseClusters([cluster(25.1, 55.1, 3, 900_000), cluster(25.1, 55.101, 1, 700_000, 5), cluster(25.1, 55.13, 2, null)], 12);
    expect(merged).toMatchObject({ count: 4, price_from: 700_000, currency: 'AED', project: null });
    expect([merged.bounds.west, merged.bounds.east]).toEqual([55.1 - 0.001, 55.101 + 0.001]);
    expect(merged.centroid.lng).toBeCloseTo((55.1 * 3 + 55.101) / 4, 9);
    expect(apart).toMatchObject({ count: 2, price_from: null });
    // At zoom 17 (93 px apart) nothing changes.
    expect(mergeCloseClusters([cluster(25.1, 55.1, 3, 900_000), cluster(25.1, 55.101, 1, 700_000, 5)], 17)).toHaveLength(2);
  });

  it('merges the matching units of clusters drawn as one (match: true): units added, the lower match price, the smaller size', () => {
    // The cheaper project (its studio) is not the cheaper match (2-bed): the marker takes each on its own.
    const [merged] = mergeCloseClusters(
      [matched(cluster(25.1, 55.1, 3, 900_000), { units: 5, price_from: 1_300_000, currency: 'AED', size_from: 80 }), matched(cluster(25.1, 55.101, 1, 700_000, 5), { units: 2, price_from: 1_500_000, currency: 'AED', size_from: 70 })],
      12,
    );
    expect(merged).toMatchObject({ count: 4, price_from: 700_000, match: { units: 7, price_from: 1_300_000, currency: 'AED', size_from: 70 } });
    // A cluster whose matching units all price on request never hides a price; two of them merge to none.
    const [priced] = mergeCloseClusters([matched(cluster(25.1, 55.1, 3, 900_000), { units: 1, price_from: null, currency: null, size_from: null }), matched(cluster(25.1, 55.101, 1, 700_000, 5), { units: 2, price_from: 1_500_000, currency: 'AED', size_from: null })], 12);
    expect(priced.match).toEqual({ units: 3, price_from: 1_500_000, currency: 'AED', size_from: null });
    const [unpriced] = mergeCloseClusters([matched(cluster(25.1, 55.1, 3, 900_000), { units: 1, price_from: null, currency: null, size_from: 50 }), matched(cluster(25.1, 55.101, 1, null, 5), { units: 2, price_from: null, currency: null, size_from: 45 })], 12);
    expect(unpriced.match).toEqual({ units: 3, price_from: null, currency: null, size_from: 45 });
    // Without match: none made up.
    expect(mergeCloseClusters([cluster(25.1, 55.1, 3, 900_000), cluster(25.1, 55.101, 1, 700_000, 5)], 12)[0].match).toBeUndefined();
  });

  it('shows the matching units\u2019 lowest price on the markers with a unit-level filter, in the search page\u2019s words', async () => {
    const clusters = [
      matched(cluster(25.1, 55.1, 3, 900_000), { units: 37, price_from: 1_103_560, currency: 'AED', size_from: 61.2 }),
      matched(cluster(25.3, 55.4, 1, 400_000, 5), { units: 3, price_from: null, currency: null, size_from: 70 }),
    ];
    const client = { listProjectClusters: async () => ({ total: 4, zoom: 12, grid_zoom: 12, clusters }) } as unknown as CatalogueClient;
    const markers = async (query: string) => {
      const answer = await mapClusters(client, readSearchForm(new URLSearchParams(query)), null, '55,25,56,26', 12);
      if ('error' in answer) throw new Error(answer.error);
      return answer.markers.map(({ count, price, words }) => ({ count, price, words }));
    };
    expect(await markers('bedrooms=2')).toEqual([
      { count: 3, price: 'AED 1.1M', words: { short: '2-bed from AED 1.1M · 37 units', full: '2-bed from AED\u00a01,103,560 · 37 units' } },
      { count: 1, price: null, words: { short: '2-bed: price on request · 3 units', full: '2-bed: price on request · 3 units' } },
    ]);
    // Without a unit-level filter: the projects' own lowest price, as before.
    expect(await markers('')).toEqual([
      { count: 3, price: 'AED 900K', words: { short: 'from AED 900K', full: 'from AED\u00a0900,000' } },
      { count: 1, price: 'AED 400K', words: { short: 'from AED 400K', full: 'from AED\u00a0400,000' } },
    ]);
  });

  it('keeps every project of the API\u2019s clusters when merging (property: counts, lowest price, joined bounds, matching units)', () => {
    const price = fc.option(fc.integer({ min: 100_000, max: 9_000_000 }));
    const clusters = fc.array(
      fc.record({
        lat: fc.double({ min: 24.9, max: 25.3, noNaN: true }),
        lng: fc.double({ min: 55, max: 55.4, noNaN: true }),
        count: fc.integer({ min: 1, max: 50 }),
        price,
        match: fc.record({ units: fc.integer({ min: 0, max: 200 }), price }),
      }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(clusters, fc.integer({ min: 4, max: 18 }), fc.boolean(), (drawn, zoom, asked) => {
        const input = drawn.map(({ lat, lng, count, price, match }, i): Cluster => ({
          ...cluster(lat, lng, count, price, i),
          ...(asked && { match: { units: match.units, price_from: match.price, currency: match.price === null ? null : 'AED', size_from: null } }),
        }));
        const output = mergeCloseClusters(input, zoom);
        const sum = (list: Cluster[]) => list.reduce((total, { count }) => total + count, 0);
        const lowest = (list: Cluster[]) => Math.min(...list.map(({ price_from }) => price_from ?? Infinity));
        const edges = (list: Cluster[]) => [Math.min(...list.map((c) => c.bounds.west)), Math.min(...list.map((c) => c.bounds.south)), Math.max(...list.map((c) => c.bounds.east)), Math.max(...list.map((c) => c.bounds.north))];
        expect(sum(output)).toBe(sum(input));
        expect(output.length).toBeLessThanOrEqual(input.length);
        if (input.length === 0) return;
        expect(lowest(output)).toBe(lowest(input));
        expect(edges(output)).toEqual(edges(input));
        // A marker that stands for one project still names it; a merged one names none.
        for (const marker of output) expect(marker.project === null).toBe(marker.count > 1 || input.every((c) => c.tile !== marker.tile || c.project === null));
        // With match: every matching unit counted once, the lowest matching price kept; without, none made up.
        const units = (list: Cluster[]) => list.reduce((total, { match }) => total + (match?.units ?? 0), 0);
        const lowestMatch = (list: Cluster[]) => Math.min(...list.map(({ match }) => match?.price_from ?? Infinity));
        expect(units(output)).toBe(units(input));
        expect(lowestMatch(output)).toBe(lowestMatch(input));
        for (const marker of output) expect(marker.match === undefined).toBe(!asked);
      }),
    );
  });
});
