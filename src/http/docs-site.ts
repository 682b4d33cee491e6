import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { docsSecurityHeaders } from './docs-security.js';
import { FAVICON_ICO } from './favicon.js';

/*
 * The published description site (/docs, Scalar) and the site icon.
 *
 * Scalar is pinned to 1.46.4, the last release whose whole dependency tree supports Node 20 (later
 * ones pull @scalar/* packages that require Node 22). Its configuration turns off what cannot work
 * for this API: the AI chat ("Ask AI", a Scalar cloud service, also blocked by the page's CSP) and the
 * developer toolbar (Configure, Share, Deploy: Scalar's own hosting). "Open API Client" (the
 * in-page request client) and "Download OpenAPI Document" work and stay.
 */
export const DOCS_TITLE = 'Catalogue API reference';

/** Labels of controls that must not appear on the page (checked by scripts/docs-screenshot.ts and the tests). */
export const DEAD_BUTTON_LABELS = ['Ask AI', 'Generate MCP', 'Developer Tools', 'Configure', 'Share', 'Deploy'] as const;

export const FAVICON_PATH = '/favicon.ico';

/*
 * Scalar hard-codes a random-looking base64 string as the placeholder of an API key field, which a
 * visitor can take for a working key. The Bearer scheme (placeholder "Token") is preselected, and
 * the placeholder of secret fields is made invisible for the X-API-Key scheme.
 */
const customCss = `.scalar-app input[type="password"]::placeholder { color: transparent; }`;

export const docsConfiguration = {
  url: '/openapi.json',
  pageTitle: DOCS_TITLE,
  favicon: FAVICON_PATH,
  // No fonts from Scalar's CDN: the page loads nothing from elsewhere (its CSP allows nothing else).
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  authentication: { preferredSecurityScheme: 'BearerAuth' },
  customCss,
} as const;

export async function docsSite(app: FastifyInstance): Promise<void> {
  app.get(FAVICON_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON_ICO);
  });
  await app.register(async (docs) => {
    docs.addHook('onSend', docsSecurityHeaders);
    await docs.register(scalar, { routePrefix: '/docs', configuration: docsConfiguration });
  });
}
