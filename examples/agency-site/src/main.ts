import { CatalogueClient } from '@catalogue-api/sdk';
import { startSite } from './site.js';

/*
 * `npm start` in this folder: the site against any Catalogue API.
 *   CATALOGUE_API_URL  where the API is (default http://localhost:8080, i.e. `npm start` at the root)
 *   CATALOGUE_API_KEY  the agency key (required; stays on this server)
 *   PORT, HOST         where the site listens (default 3000 on 127.0.0.1)
 *   MAP_TILES_URL      an https tile server for the map page's background, e.g. https://tiles.example.com/{z}/{x}/{y}.png
 *   MAP_TILES_ATTRIBUTION  the credit its provider asks for (default: none); without MAP_TILES_URL the
 *                      map draws the land of the region (Natural Earth), with no internet needed
 */
const apiKey = process.env.CATALOGUE_API_KEY;
if (!apiKey) {
  console.error('Set CATALOGUE_API_KEY to your agency API key (npm start at the repository root prints a demo key).');
  process.exit(1);
}
const site = await startSite({
  client: new CatalogueClient({ baseUrl: process.env.CATALOGUE_API_URL ?? 'http://localhost:8080', apiKey }),
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  map: process.env.MAP_TILES_URL ? { tiles: { url: process.env.MAP_TILES_URL, attribution: process.env.MAP_TILES_ATTRIBUTION ?? '' } } : {},
});
console.log(`Agency site on ${site.url}`);
