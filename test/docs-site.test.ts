import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_BUTTON_LABELS, DOCS_TITLE } from '../src/http/docs-site.js';
import { createTestApp, type TestApp } from './helpers/app.js';

/*
 * The docs site as served: what scripts/docs-screenshot.ts checks in a real browser, asserted here on
 * the HTML and the configuration Scalar starts with (Chromium is not needed for these).
 */
describe('docs site', () => {
  let t: TestApp;
  let html: string;
  let configuration: Record<string, any>;

  beforeAll(async () => {
    t = await createTestApp('pglite');
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    html = res.body;
    const start = html.indexOf("Scalar.createApiReference('#app', ");
    expect(start).toBeGreaterThan(0);
    const json = html.slice(start + "Scalar.createApiReference('#app', ".length, html.indexOf('\n    </script>', start)).trim().replace(/\)$/, '');
    configuration = JSON.parse(json);
  });
  afterAll(() => t?.close());

  it('has its own title, not Scalar\u2019s default', () => {
    expect(html).toContain(`<title>${DOCS_TITLE}</title>`);
    expect(html).not.toContain('<title>Scalar API Reference');
  });

  it('serves its favicon, a PNG icon, and names it in the page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    const body = res.rawPayload;
    expect(body.readUInt16LE(2)).toBe(1); // ICO type: icon
    expect(body.readUInt16LE(4)).toBe(1); // one image
    const offset = body.readUInt32LE(18);
    expect(body.subarray(offset, offset + 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(body.readUInt32LE(14)).toBe(body.length - offset);
    expect(configuration.favicon).toBe('/favicon.ico');
  });

  it('turns off the controls that cannot work here', () => {
    // Ask AI (Scalar's cloud agent) and the developer toolbar (Configure, Share, Deploy).
    expect(configuration.agent).toEqual({ disabled: true });
    expect(configuration.showDeveloperTools).toBe('never');
    expect(DEAD_BUTTON_LABELS).toEqual(expect.arrayContaining(['Ask AI', 'Generate MCP', 'Deploy']));
  });

  it('shows no key-like placeholder in the auth field', () => {
    // The Bearer field's placeholder is the word "Token"; the API key field's hard-coded random-looking
    // one is made transparent.
    expect(configuration.authentication).toEqual({ preferredSecurityScheme: 'BearerAuth' });
    expect(html).toMatch(/input\[type="password"\]::placeholder \{ color: transparent; \}/);
  });

  it('loads nothing from another origin and keeps its security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(configuration.withDefaultFonts).toBe(false);
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    const script = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
  });
});
