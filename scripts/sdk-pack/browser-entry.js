// The entry of a browser bundle built by Vite from the installed tarball.
import { CatalogueClient } from '@catalogue-api/sdk';

export async function whoAmI(baseUrl, apiKey) {
  return new CatalogueClient({ baseUrl, apiKey }).whoAmI();
}
