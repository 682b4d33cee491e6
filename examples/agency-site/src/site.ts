import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CatalogueApiError, type ApplicationBody, type CatalogueClient } from '@catalogue-api/sdk';
import { html, htmlText, type Html } from './html.js';
import { applicationPage, EMPTY_FIELDS, offerPage, type ApplicationFields } from './pages/application.js';
import { errorBox, FAVICON, layout, STYLE } from './pages/layout.js';
import { canApply } from './format.js';
import { projectPage } from './pages/project.js';
import { searchPage } from './pages/search.js';
import { buildMapAssets, isMapAsset } from './map-assets.js';
import { LAND_REGION } from './map-land.js';
import { firstView, mapClusters, mapResults, readMapArea } from './map-search.js';
import type { MapClusters, MapPlace, MapTiles } from './map-types.js';
import { mapList, mapPage } from './pages/map.js';
import { lastPage, projectsQuery, readSearchForm, searchHref, searchParams, searchProblems } from './search-form.js';

/*
 * The website is rendered on the server, which holds the API key: the browser only ever talks to
 * this server and never sees the key or the API. No JavaScript runs in the pages, but for the map
 * page's own script (served by this site, asking this site for clusters and lists).
 */
export interface SiteOptions {
  client: CatalogueClient;
  /** Origins the catalogue's pictures come from besides https: (the demo's picture host is plain http). */
  imageOrigins?: string[];
  /** The map page's background: labelled places (the demo's communities) and, for a site on the internet, an https tile server. */
  map?: { places?: MapPlace[]; tiles?: MapTiles };
}

const FORM_LIMIT = 16 * 1024;

/**
 * No inline style or script anywhere (the payment plan's proportions are classes): the CSP needs no hash.
 * Only the map page runs a script, this site's own, which fetches from this site only.
 */
function securityHeaders(imageOrigins: string[], script = false) {
  return {
    'content-security-policy':
      `default-src 'none'; style-src 'self'; img-src 'self' https: data: ${imageOrigins.join(' ')}`.trim() +
      (script ? "; script-src 'self'; connect-src 'self'" : '') +
      "; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}


async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += chunk;
    if (body.length > FORM_LIMIT) throw new HttpError(413, 'The form is too large.');
  }
  return new URLSearchParams(body);
}

/** The application body from the form: blank optional fields are left out rather than sent empty. */
export function applicationBody(fields: ApplicationFields): ApplicationBody {
  const optional = (value: string) => (value.trim() === '' ? undefined : value);
  return {
    client: { first_name: fields.first_name, last_name: optional(fields.last_name), email: optional(fields.email), mobile_number: optional(fields.mobile_number) },
    message: optional(fields.message),
    // The client's interests are taken from the unit they applied for.
    preferences: { based_on_unit: true },
  };
}

export function createSiteHandler({ client, imageOrigins = [], map = {} }: SiteOptions) {
  const origins = imageOrigins.map((origin) => new URL(origin).origin);
  const headers = securityHeaders(origins);
  const mapHeaders = securityHeaders(origins, true);
  function send(response: ServerResponse, status: number, page: Html, withScript = false): void {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...(withScript ? mapHeaders : headers) });
    response.end(htmlText(page));
  }
  /** 302 Found: a temporary answer (the last page moves as the catalogue changes), never cached. */
  function redirect(response: ServerResponse, location: string): void {
    response.writeHead(302, { location, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    response.end(htmlText(layout('Moved', html`<p><a href="${location}">Go to the last page of results</a></p>`)));
  }
  // Bundled once, when the site starts; a failure shows on the first request for them.
  const mapAssets = buildMapAssets();
  mapAssets.catch(() => undefined);

  /** The API's 400 for a hand-edited address is shown on the page; anything else is the error page's. */
  function badRequest(error: unknown): CatalogueApiError {
    if (error instanceof CatalogueApiError && error.status === 400) return error;
    throw error;
  }

  async function mapView(url: URL, response: ServerResponse): Promise<void> {
    const form = readSearchForm(url.searchParams);
    const area = readMapArea(url.searchParams);
    const places = map.places ?? [];
    const developers = await client.listDevelopers();
    const state = { filters: searchParams(form).toString(), area, places, tiles: map.tiles ?? null, region: LAND_REGION, view: null };
    try {
      const [page, view] = await Promise.all([mapResults(client, form, area), firstView(client, form, area, places)]);
      send(response, 200, mapPage({ form, developers, area, page, state: { ...state, view } }), true);
    } catch (error) {
      send(response, 400, mapPage({ form, developers, area, error: badRequest(error), state }), true);
    }
  }

  /** The list of GET /map/results, or the API's message in its place (200 either way: the page's script puts it in). */
  async function mapListPart(url: URL, response: ServerResponse): Promise<void> {
    const form = readSearchForm(url.searchParams);
    const area = readMapArea(url.searchParams);
    let list: Html;
    try {
      list = mapList({ form, area, page: await mapResults(client, form, area) });
    } catch (error) {
      list = mapList({ form, area, error: badRequest(error) });
    }
    send(response, 200, list);
  }

  async function mapMarkers(url: URL, response: ServerResponse): Promise<void> {
    const params = url.searchParams;
    const form = readSearchForm(params);
    let answer: MapClusters;
    try {
      answer = await mapClusters(client, form, readMapArea(params), params.get('bbox') ?? '', Number(params.get('zoom')) || 0);
    } catch (error) {
      answer = { error: searchProblems(badRequest(error), form).map((problem) => problem.text).join(' ') };
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    response.end(JSON.stringify(answer));
  }

  async function search(url: URL, response: ServerResponse): Promise<void> {
    const form = readSearchForm(url.searchParams);
    // Developer and area names for the developer select and the Refine panel (the facets count by id).
    const [developers, areas] = await Promise.all([client.listDevelopers(), client.listAreas()]);
    try {
      const page = await client.listProjects(projectsQuery(form));
      // A page past the end (a hand-edited address, or fewer matches since the link was made): the last page, same filters.
      if (form.page > lastPage(page.total)) return redirect(response, searchHref(form, lastPage(page.total)));
      send(response, 200, searchPage({ form, developers, areas, page }));
    } catch (error) {
      send(response, 400, searchPage({ form, developers, areas, error: badRequest(error) }));
    }
  }

  async function apply(unitId: number, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const unit = await client.getUnit(unitId);
    const { cost } = await client.getProject(unit.project_id);
    if (!canApply(unit)) throw new HttpError(404, 'This unit is sold out: see the other units of the project.');
    if (request.method !== 'POST') {
      send(response, 200, applicationPage(unit, cost.currency, EMPTY_FIELDS, randomUUID()));
      return;
    }
    const form = await readForm(request);
    const fields = Object.fromEntries(Object.keys(EMPTY_FIELDS).map((name) => [name, form.get(name) ?? ''])) as unknown as ApplicationFields;
    // One key per rendered form: a double click or a refresh of the result sends the same key, and the
    // service answers with the first offer instead of creating another one.
    const idempotencyKey = form.get('idempotency_key') || randomUUID();
    try {
      const result = await client.submitApplication(unit.id, applicationBody(fields), { idempotencyKey });
      send(response, 201, offerPage(fields, result));
    } catch (error) {
      if (!(error instanceof CatalogueApiError) || (error.status !== 400 && error.status !== 409)) throw error;
      // 409: this key was used with other values (the visitor edited the form after a success); a new key makes it a new application.
      // The page itself is fine (200): it is the form again, with the problems beside their fields. A 4xx
      // document would make the browser log an error for what is an ordinary correction by the visitor.
      send(response, 200, applicationPage(unit, cost.currency, fields, error.status === 409 ? randomUUID() : idempotencyKey, error));
    }
  }

  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://site.invalid');
    try {
      if (url.pathname === '/style.css') {
        response.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300', 'x-content-type-options': 'nosniff' });
        response.end(STYLE);
        return;
      }
      if (url.pathname === '/favicon.svg' || url.pathname === '/favicon.ico') {
        response.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=86400', 'x-content-type-options': 'nosniff' });
        response.end(FAVICON);
        return;
      }
      if (isMapAsset(url.pathname)) {
        const asset = (await mapAssets)[url.pathname];
        response.writeHead(200, { 'content-type': asset.type, 'cache-control': 'max-age=300', 'x-content-type-options': 'nosniff' });
        response.end(asset.body);
        return;
      }
      const project = /^\/projects\/(\d{1,9})$/.exec(url.pathname);
      const unit = /^\/units\/(\d{1,9})\/apply$/.exec(url.pathname);
      if (request.method === 'GET' && url.pathname === '/') return await search(url, response);
      if (request.method === 'GET' && url.pathname === '/map') return await mapView(url, response);
      if (request.method === 'GET' && url.pathname === '/map/clusters') return await mapMarkers(url, response);
      if (request.method === 'GET' && url.pathname === '/map/results') return await mapListPart(url, response);
      if (request.method === 'GET' && project) return send(response, 200, projectPage(await client.getProject(Number(project[1]))));
      if ((request.method === 'GET' || request.method === 'POST') && unit) return await apply(Number(unit[1]), request, response);
      throw new HttpError(404, 'Page not found.');
    } catch (error) {
      const status = error instanceof HttpError ? error.status : error instanceof CatalogueApiError && error.status === 404 ? 404 : 502;
      const message =
        error instanceof HttpError ? error.message : status === 404 ? 'This project or unit is no longer available.' : 'The catalogue is unavailable at the moment. Please try again shortly.';
      if (status === 502) console.error(error);
      send(response, status, layout('Sorry', html`<h1>Sorry</h1>${errorBox(message, error instanceof CatalogueApiError ? error.requestId : undefined)}<p><a href="/">Back to search</a></p>`));
    }
  };
}

export interface RunningSite {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startSite(options: SiteOptions & { port?: number; host?: string }): Promise<RunningSite> {
  const handle = createSiteHandler(options);
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
