import { fileURLToPath } from 'node:url';
import { CatalogueClient } from '@catalogue-api/sdk';
import { startSite, type RunningSite } from '../examples/agency-site/src/site.js';
import { loadConfig } from '../src/config/config.js';
import { ALL_AREAS } from '../src/demo/areas.js';
import { DEMO_PROJECT_SPREAD_M } from '../src/demo/projects.js';
import { createDemoKey, seedDemo } from '../src/demo/seed-demo.js';
import { startStaticHost, type StaticHost } from '../src/demo/static-host.js';
import { startServer, type RunningServer } from '../src/service/server.js';

/*
 * `npm run example`: the Catalogue API on a fresh in-memory embedded database loaded with the demo
 * catalogue, a demo key, the demo's picture host (STATIC_BASE_URL, so every file link works), and the
 * example agency site using that key, in one process. The end-to-end tests start exactly this, on
 * free ports. A port that is taken (e.g. `npm start` still serving 8080) is replaced by a free one,
 * with one line saying so.
 */
export interface Demo {
  api: RunningServer;
  site: RunningSite;
  pictures: StaticHost;
  apiKey: string;
  stop(): Promise<void>;
}

function isPortTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

/** `start(port)`, or `start(0)` (a free port) when `port` is taken, saying so in one line. */
async function onFreePort<T>(what: string, port: number, start: (port: number) => Promise<T>): Promise<T> {
  try {
    return await start(port);
  } catch (error) {
    if (!isPortTaken(error) || port === 0) throw error;
    console.warn(`${what}: port ${port} is taken (another \`npm start\` or \`npm run example\`?), using a free port instead.`);
    return start(0);
  }
}

/** The Catalogue API alone, in memory, loaded with the demo catalogue, a demo key and the picture host. */
export async function startDemoApi(
  options: { apiPort?: number; picturesPort?: number; logLevel?: string; privateApplications?: boolean } = {},
): Promise<{ api: RunningServer; apiKey: string; pictures: StaticHost }> {
  // The picture host: a free port unless one is asked for (PICTURES_PORT).
  const pictures = await onFreePort('Picture host', options.picturesPort ?? 0, (port) => startStaticHost({ port }));
  try {
    const start = async (port: number) => {
      const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: options.logLevel ?? 'warn', STATIC_BASE_URL: pictures.url });
      let apiKey = '';
      const api = await startServer(config, {
        beforeListen: async ({ db }) => {
          await seedDemo(db, { facilityLinkRadiusM: config.facilityLinkRadiusM });
          apiKey = await createDemoKey(db, { privateApplications: options.privateApplications ?? false });
        },
      });
      return { api, apiKey, pictures };
    };
    return await onFreePort('Catalogue API', options.apiPort ?? 8080, start);
  } catch (error) {
    await pictures.close();
    throw error;
  }
}

export async function startDemo(options: { apiPort?: number; sitePort?: number; picturesPort?: number; logLevel?: string } = {}): Promise<Demo> {
  // The site answers its visitors: its key never sends a stored client back (private applications).
  const { api, apiKey, pictures } = await startDemoApi({ ...options, privateApplications: true });
  try {
    const client = new CatalogueClient({ baseUrl: api.url, apiKey });
    // The map page draws the demo's communities (those of GET /areas; its projects lie around their centres) as its
    // background: no tiles, no internet.
    const names = new Set((await client.listAreas()).map((area) => area.name));
    const places = ALL_AREAS.filter((area) => names.has(area.name)).map(({ name, city, lat, lng }) => ({ name, city, lat, lng, radiusM: DEMO_PROJECT_SPREAD_M }));
    const site = await onFreePort('Agency site', options.sitePort ?? 3000, (port) => startSite({ client, port, imageOrigins: [pictures.url], map: { places } }));
    return { api, site, pictures, apiKey, stop: async () => void (await Promise.all([site.close(), api.stop(), pictures.close()])) };
  } catch (error) {
    await Promise.all([api.stop(), pictures.close()]);
    throw error;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const demo = await startDemo({
    apiPort: Number(process.env.API_PORT ?? 8080),
    sitePort: Number(process.env.PORT ?? 3000),
    // Unset: a free port (the picture host's address is printed below and given to the API).
    picturesPort: Number(process.env.PICTURES_PORT ?? 0),
  });
  console.log(`Catalogue API (demo catalogue, in memory): ${demo.api.url}   key: ${demo.apiKey}`);
  console.log(`Pictures (STATIC_BASE_URL): ${demo.pictures.url}`);
  console.log(`Agency site: ${demo.site.url}`);
  const stop = () => demo.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
