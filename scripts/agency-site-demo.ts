import { fileURLToPath } from 'node:url';
import { CatalogueClient } from '@catalogue-api/sdk';
import { startSite, type RunningSite } from '../examples/agency-site/src/site.js';
import { loadConfig } from '../src/config.js';
import { createDemoKey, seedDemo } from '../src/demo/seed-demo.js';
import { startServer, type RunningServer } from '../src/server.js';

/*
 * `npm run example`: the Catalogue API on a fresh in-memory embedded database loaded with the demo
 * catalogue, a demo key, and the example agency site using that key, in one process. The end-to-end
 * tests start exactly this, on free ports.
 */
export interface Demo {
  api: RunningServer;
  site: RunningSite;
  apiKey: string;
  stop(): Promise<void>;
}

export async function startDemo(options: { apiPort?: number; sitePort?: number; logLevel?: string } = {}): Promise<Demo> {
  const config = loadConfig({ PORT: String(options.apiPort ?? 8080), HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: options.logLevel ?? 'warn' });
  let apiKey = '';
  const api = await startServer(config, {
    beforeListen: async ({ db }) => {
      await seedDemo(db, { facilityLinkRadiusM: config.facilityLinkRadiusM });
      // The site answers its visitors: its key never sends a stored client back (private applications).
      apiKey = await createDemoKey(db, { privateApplications: true });
    },
  });
  try {
    const site = await startSite({ client: new CatalogueClient({ baseUrl: api.url, apiKey }), port: options.sitePort ?? 3000 });
    return { api, site, apiKey, stop: async () => void (await Promise.all([site.close(), api.stop()])) };
  } catch (error) {
    await api.stop();
    throw error;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const demo = await startDemo({ apiPort: Number(process.env.API_PORT ?? 8080), sitePort: Number(process.env.PORT ?? 3000) });
  console.log(`Catalogue API (demo catalogue, in memory): ${demo.api.url}   key: ${demo.apiKey}`);
  console.log(`Agency site: ${demo.site.url}`);
  const stop = () => demo.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
