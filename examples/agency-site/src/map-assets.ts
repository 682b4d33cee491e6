import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAND_REGION, landIn } from './map-land.js';

/*
 * The map page's script, Leaflet's stylesheet and the land of the map's background, served by the site
 * itself (no CDN, no tiles: the page works without the internet, and the CSP allows scripts from this
 * site only). Built in memory when the site starts: the script bundled with Leaflet from node_modules.
 */
const PATHS = ['/assets/map.js', '/assets/leaflet.css', '/assets/land.json'] as const;
export type MapAssets = Record<(typeof PATHS)[number], { type: string; body: string }>;

const ENTRY = fileURLToPath(new URL('./browser/map.ts', import.meta.url));

export async function buildMapAssets(): Promise<MapAssets> {
  const [bundle, leafletCss, land] = await Promise.all([
    // Leaflet's licence comment stays in the bundle (legalComments: 'inline').
    build({ entryPoints: [ENTRY], bundle: true, format: 'esm', target: 'es2020', minify: true, legalComments: 'inline', write: false, logLevel: 'silent' }),
    readFile(createRequire(import.meta.url).resolve('leaflet/dist/leaflet.css'), 'utf8'),
    landIn(LAND_REGION),
  ]);
  return {
    '/assets/map.js': { type: 'text/javascript; charset=utf-8', body: bundle.outputFiles[0].text },
    '/assets/leaflet.css': { type: 'text/css; charset=utf-8', body: leafletCss },
    '/assets/land.json': { type: 'application/json', body: JSON.stringify(land) },
  };
}

export function isMapAsset(path: string): path is keyof MapAssets {
  return PATHS.some((candidate) => candidate === path);
}
