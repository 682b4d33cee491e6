import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startDemo, type Demo } from '../scripts/agency-site-demo.js';

/*
 * What every end-to-end file shares: the demo (`npm run example`: the API on the embedded database
 * with the demo catalogue, the picture host and the site, on free ports) and headless Chromium
 * (Debian's package, driven by playwright-core, which downloads no browser). Screenshots go to
 * test-e2e/artifacts/ (git-ignored).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
export const WIDTHS = [390, 1366] as const;

/** A port free a moment ago (the system's pick for port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the demo and the browser before the file's tests and stops them after; read them inside the
 * tests. The picture host is given its port (`picturesPort`, PICTURES_PORT of `npm run example`):
 * `picturesPort` is the one asked for.
 */
export function useDemoInChromium(): { readonly demo: Demo; readonly browser: Browser; readonly picturesPort: number } {
  const running: { demo?: Demo; browser?: Browser; picturesPort?: number } = {};
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    running.picturesPort = await freePort();
    running.demo = await startDemo({ apiPort: 0, sitePort: 0, picturesPort: running.picturesPort, logLevel: 'silent' });
    running.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await running.browser?.close();
    await running.demo?.stop();
  });
  return {
    get demo() {
      return running.demo!;
    },
    get browser() {
      return running.browser!;
    },
    get picturesPort() {
      return running.picturesPort!;
    },
  };
}
