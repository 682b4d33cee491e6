import { CatalogueClient } from '@catalogue-api/sdk';

/** Step 2: who am I? Checks the key and shows whose prices every answer is in. */
export async function firstCall(baseUrl: string, apiKey: string) {
  const catalogue = new CatalogueClient({ baseUrl, apiKey });
  const me = await catalogue.whoAmI();
  console.log(`${me.company.name}: prices x ${me.api_key.price_factor}`);
  return me;
}
