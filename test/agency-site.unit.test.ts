import { describe, expect, it } from 'vitest';
import { html, htmlText } from '../examples/agency-site/src/html.js';
import { searchPage } from '../examples/agency-site/src/pages/search.js';
import { projectsQuery, readSearchForm, searchHref, SORT_LABELS } from '../examples/agency-site/src/search-form.js';
import type { Area, Developer, ProjectsPage } from '../sdk/src/index.js';

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
      sort: '-price_from',
      currency: 'AED',
    });
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

  it('keeps a filter set from the Refine panel when the form is sent again', () => {
    const text = htmlText(searchPage({ form: readSearchForm(new URLSearchParams('development_status=2&unit_type=1')), developers: [], areas: [] }));
    expect(text).toContain('<input type="hidden" name="development_status" value="2"><input type="hidden" name="unit_type" value="1">');
  });
});
