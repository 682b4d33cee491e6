// An agency's TypeScript, type-checked against the SDK's published declarations (NodeNext and bundler
// resolution), then compiled and run.
import { CatalogueApiError, CatalogueClient, type ApplicationBody, type ProjectsPage, type ProjectsQuery } from '@catalogue-api/sdk';

// Checked without @types/node (the SDK needs none): only the environment is read from Node.
declare const process: { env: Record<string, string | undefined> };

const catalogue = new CatalogueClient({ baseUrl: process.env.CATALOGUE_API_URL ?? '', apiKey: process.env.CATALOGUE_API_KEY ?? '' });

const query: ProjectsQuery = { bedrooms: '1,2', sort: 'price_from', facets: 'development_status', limit: 3 };
const page: ProjectsPage = await catalogue.listProjects(query);
const names: string[] = page.items.map((project) => project.name);

// The declarations are real types, not `any`: each of these lines must be a compile error.
// @ts-expect-error a project id is a number
await catalogue.getProject('1').catch(() => undefined);
// @ts-expect-error `sort` takes only the declared orders
const badSort: ProjectsQuery = { sort: 'cheapest' };

const body: ApplicationBody = { client: { first_name: 'Typed', email: 'typed@example.com' } };
try {
  await catalogue.submitApplication(page.items[0].id * 0, body);
} catch (error) {
  if (!(error instanceof CatalogueApiError)) throw error;
  const status: number = error.status;
  console.log(JSON.stringify({ names: names.length, status, badSort: badSort.sort ?? null }));
}
