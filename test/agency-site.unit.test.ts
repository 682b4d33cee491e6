import { describe, expect, it } from 'vitest';
import { searchCapabilities } from '../examples/agency-site/src/capabilities.js';
import { html, htmlText } from '../examples/agency-site/src/html.js';
import { facetEntries } from '../examples/agency-site/src/pages/search.js';
import { projectsQuery, readSearchForm, searchHref } from '../examples/agency-site/src/search-form.js';
import { openApiDocument } from '../sdk/src/index.js';

/* The example site's pure parts: what it asks the API for, what it escapes, what it turns on. */
const none = { sort: undefined, facets: undefined, areaParameter: undefined };

/** The document with these GET /projects parameters declared in place of any of the same name. */
function documentWith(parameters: Array<{ name: string; [field: string]: unknown }>) {
  const document = structuredClone(openApiDocument) as { paths: Record<string, any> };
  const get = document.paths['/projects'].get;
  get.parameters = [...get.parameters.filter((p: { name: string }) => !parameters.some((q) => q.name === p.name)), ...parameters];
  return document;
}

describe('search capabilities from the OpenAPI document', () => {
  it('match what the generated document declares for GET /projects', () => {
    const declared = (openApiDocument.paths['/projects'].get.parameters as Array<{ name: string }>).map((parameter) => parameter.name);
    const capabilities = searchCapabilities();
    expect(capabilities.sort !== undefined).toBe(declared.includes('sort'));
    expect(capabilities.facets !== undefined).toBe(declared.includes('facets'));
    expect(capabilities.areaParameter !== undefined).toBe(declared.includes('area_ids'));
  });

  it('turn on sort (enum values), facets (names quoted in the description) and the area filter when declared', () => {
    const capabilities = searchCapabilities(
      documentWith([
        { name: 'sort', in: 'query', schema: { type: 'string', enum: ['name', 'price_from', '-price_from'] } },
        { name: 'facets', in: 'query', description: 'Comma-separated names: `bedrooms`, `developer`, `area`.', schema: { type: 'string' } },
        { name: 'area_ids', in: 'query', schema: { type: 'string' } },
      ]),
    );
    expect(capabilities).toEqual({ sort: ['name', 'price_from', '-price_from'], facets: ['bedrooms', 'developer', 'area'], areaParameter: 'area_ids' });
  });
});

describe('the search form', () => {
  const form = readSearchForm(new URLSearchParams('bedrooms=0&bedrooms=2&bedrooms=9&price_min=&price_max=3000000&developer=4&area=7&near_metro=on&sort=-price_from&page=3'));

  it('becomes the GET /projects query, with only the declared optional parameters', () => {
    expect(form).toMatchObject({ bedrooms: ['0', '2'], priceMin: '', priceMax: '3000000', page: 3 });
    expect(projectsQuery(form, none)).toEqual({ limit: 12, offset: 24, bedrooms: '0,2', price_max: 3_000_000, developer_ids: '4', near_transport: true });
    const all = { sort: ['name', '-price_from'], facets: ['bedrooms', 'developer', 'handover_year'], areaParameter: 'area_ids' };
    expect(projectsQuery(form, all)).toMatchObject({ sort: '-price_from', facets: 'bedrooms,developer', area_ids: '7' });
  });

  it('links to other pages with the same filters', () => {
    expect(searchHref(form, 2)).toBe('/?bedrooms=0&bedrooms=2&price_max=3000000&developer=4&area=7&near_metro=on&sort=-price_from&page=2');
    expect(searchHref(readSearchForm(new URLSearchParams()), 1)).toBe('/');
  });
});

describe('rendering', () => {
  it('escapes every value from the catalogue', () => {
    const name = '<script>alert("x")</script> & \'Co\'';
    expect(htmlText(html`<h1 title="${name}">${name}</h1>${[html`<b>${'<i>'}</b>`]}`)).toBe(
      '<h1 title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;</h1><b>&lt;i&gt;</b>',
    );
  });

  it('reads facet counts as a list of {value, count} or as a map', () => {
    expect(facetEntries([{ value: 2, count: 14 }, { value: 3, count: 5 }])).toEqual([['2', 14], ['3', 5]]);
    expect(facetEntries({ 2: 14, 3: 5 })).toEqual([['2', 14], ['3', 5]]);
    expect(facetEntries(null)).toEqual([]);
  });
});
