import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/*
 * The map page's script and Leaflet's stylesheet, served by the site itself (no CDN: the page works
 * without the internet, and the CSP allows scripts from this site only). The script is bundled with
 * Leaflet from node_modules when the site starts, in memory.
 */
export interface MapAssets {
  '/assets/map.js': { type: string; body: string };
  '/assets/leaflet.css': { type: string; body: string };
}

const ENTRY = fileURLToPath(new URL('./browser/map.ts', import.meta.url));

export async function buildMapAssets(): Promise<MapAssets> {
  const [bundle, leafletCss] = await Promise.all([
    // Leaflet's licence comment stays in the bundle (legalComments: 'inline').
    build({ entryPoints: [ENTRY], bundle: true, format: 'esm', target: 'es2020', minify: true, legalComments: 'inline', write: false, logLevel: 'silent' }),
    readFile(createRequire(import.meta.url).resolve('leaflet/dist/leaflet.css'), 'utf8'),
  ]);
  return {
    '/assets/map.js': { type: 'text/javascript; charset=utf-8', body: bundle.outputFiles[0].text },
    '/assets/leaflet.css': { type: 'text/css; charset=utf-8', body: leafletCss },
  };
}

export function isMapAsset(path: string): path is keyof MapAssets {
  return path === '/assets/map.js' || path === '/assets/leaflet.css';
}
