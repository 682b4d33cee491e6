import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
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

/** Starts the demo and the browser before the file's tests and stops them after; read them inside the tests. */
export function useDemoInChromium(): { readonly demo: Demo; readonly browser: Browser } {
  const running: { demo?: Demo; browser?: Browser } = {};
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    running.demo = await startDemo({ apiPort: 0, sitePort: 0, logLevel: 'silent' });
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
  };
}
