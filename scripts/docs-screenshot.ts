import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config/config.js';
import { DEAD_BUTTON_LABELS, DOCS_TITLE } from '../src/http/docs-site.js';
import { startServer } from '../src/service/server.js';

/*
 * Renders the docs site (/docs) in headless Chromium and checks what a visitor sees: the page title,
 * the favicon, no button that cannot work here, no key-like placeholder in the auth field, no
 * request that fails and nothing loaded from another origin. Writes a screenshot.
 *
 * Usage: npx tsx scripts/docs-screenshot.ts [screenshot.png]   (default docs-screenshot.png)
 * CHROMIUM_PATH overrides /usr/bin/chromium. Exits 1 when a check fails.
 */
const output = process.argv[2] ?? 'docs-screenshot.png';
const dataDir = await mkdtemp(join(tmpdir(), 'docs-screenshot-'));
const server = await startServer(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir }));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking'],
});
const failures: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const origin = new URL(server.url).origin;
  const failed: string[] = [];
  const foreign: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => failed.push(`failed ${request.url()} (${request.failure()?.errorText})`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.origin !== origin) foreign.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failed.push(`console: ${message.text()}`);
  });

  await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
  // The reference is rendered client-side: wait for an operation of the document to appear.
  await page.getByText('Verify the key').first().waitFor({ timeout: 20_000 });
  // Chromium asks for /favicon.ico itself unless the page names an icon; either way it must load.
  const icon = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.href ?? `${location.origin}/favicon.ico`);
  const iconStatus = (await page.request.get(icon)).status();
  await page.screenshot({ path: output, fullPage: false });

  const title = await page.title();
  const controls = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, a, [role="button"], [role="menuitem"]')].map((element) => element.innerText.trim()).filter(Boolean),
  );
  // Placeholders a visitor can see (a transparent one is hidden by the site's CSS).
  const placeholders = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input, textarea')]
      .filter((input) => input.placeholder && !/rgba\(\d+, \d+, \d+, 0\)|transparent/.test(getComputedStyle(input, '::placeholder').color))
      .map((input) => input.placeholder),
  );

  console.log(`title: ${title}`);
  console.log(`favicon: ${icon} -> ${iconStatus}`);
  console.log(`input placeholders: ${JSON.stringify(placeholders)}`);
  console.log(`screenshot: ${output}`);

  if (title !== DOCS_TITLE) failures.push(`title is "${title}", expected "${DOCS_TITLE}"`);
  if (iconStatus !== 200) failures.push(`favicon ${icon} answered ${iconStatus}`);
  for (const label of DEAD_BUTTON_LABELS) {
    const shown = controls.filter((control) => control.toLowerCase() === label.toLowerCase());
    if (shown.length > 0) failures.push(`a control shows "${label}": ${JSON.stringify(shown)}`);
  }
  // Key-like: a key's own prefix, or a long run of letters and digits such as Scalar's base64 default.
  for (const placeholder of placeholders) if (/ck_|[A-Za-z0-9+/=_-]{16,}/.test(placeholder)) failures.push(`key-like placeholder "${placeholder}"`);
  for (const entry of failed) failures.push(entry);
  for (const url of foreign) failures.push(`loaded from another origin: ${url}`);
} finally {
  await browser.close();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\n${failures.length} problem(s):\n${failures.map((line) => `- ${line}`).join('\n')}`);
  process.exit(1);
}
console.log('docs site OK');
