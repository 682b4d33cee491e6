import type { CatalogueClient, ProjectsQuery } from '@catalogue-api/sdk';

const PAGE_SIZE = 12;

/** Step 3: one page of results for a search form (page numbers from 1). */
export async function searchPage(catalogue: CatalogueClient, form: { bedrooms: number[]; priceMax?: number; nearMetro: boolean; page: number }) {
  const query: ProjectsQuery = {
    bedrooms: form.bedrooms.join(',') || undefined, // CSV: "1,2"; 0 = studio, 5 = five or more
    price_max: form.priceMax, // in the key's prices, exactly as displayed
    near_transport: form.nearMetro || undefined,
    limit: PAGE_SIZE,
    offset: (form.page - 1) * PAGE_SIZE,
  };
  const { total, items } = await catalogue.listProjects(query);
  return {
    total,
    pages: Math.ceil(total / PAGE_SIZE),
    cards: items.map((project) => ({ id: project.id, name: project.name, developer: project.company.name, priceFrom: project.price_from, currency: project.currency })),
  };
}

/** Every matching project, for a sitemap or a nightly export: the SDK walks the pages. */
export async function allProjectIds(catalogue: CatalogueClient, query: ProjectsQuery = {}) {
  const ids: number[] = [];
  for await (const project of catalogue.projects(query)) ids.push(project.id);
  return ids;
}
