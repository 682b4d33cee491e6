// A plain Node script of an agency, using the SDK as installed from its tarball (no TypeScript, no build).
import { randomUUID } from 'node:crypto';
import { CatalogueApiError, CatalogueClient, openApiDocument } from '@catalogue-api/sdk';

const catalogue = new CatalogueClient({ baseUrl: process.env.CATALOGUE_API_URL, apiKey: process.env.CATALOGUE_API_KEY });

const me = await catalogue.whoAmI();
const page = await catalogue.listProjects({ sort: '-price_from', facets: 'bedrooms,developer', limit: 5 });
if (page.items.length !== 5 || !page.facets?.bedrooms) throw new Error('search with sort and facets gave no page');
let seen = 0;
for await (const project of catalogue.projects({ limit: 20 })) seen += project.id > 0 ? 1 : 0;
if (seen !== page.total) throw new Error(`paging saw ${seen} of ${page.total}`);
const feed = await catalogue.listChanges({ limit: 10 });
const project = await catalogue.getProject(page.items[0].id);
const unit = project.units.find((candidate) => candidate.status === 1) ?? project.units[0];
const idempotencyKey = randomUUID();
const body = { client: { first_name: 'Pack', last_name: 'Test', email: `pack-${idempotencyKey}@example.com` }, preferences: { based_on_unit: true } };
const first = await catalogue.submitApplication(unit.id, body, { idempotencyKey });
const again = await catalogue.submitApplication(unit.id, body, { idempotencyKey });
if (again.offer.id !== first.offer.id) throw new Error('the Idempotency-Key did not replay the first offer');
let invalid;
try {
  await catalogue.listProjects({ price_min: -1 });
} catch (error) {
  invalid = error;
}
if (!(invalid instanceof CatalogueApiError) || invalid.status !== 400) throw new Error('a bad query did not throw CatalogueApiError 400');
console.log(JSON.stringify({ company: me.company.name, total: page.total, feed: feed.items.length, offer: first.offer.id, apiVersion: openApiDocument.info.version, error: invalid.message }));
