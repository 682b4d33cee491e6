import createClient, { type Client } from 'openapi-fetch';
import { CatalogueApiError } from './errors.js';
import type { paths } from './generated/schema.js';
import { nextCursor, nextOffset, pages } from './paging.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type {
  ApplicationBody,
  AsAsked,
  ApplicationResult,
  Area,
  AreasQuery,
  ChangesPage,
  ChangesQuery,
  Developer,
  DevelopmentStatus,
  FlatProject,
  Project,
  ProjectContacts,
  ProjectFeatures,
  ProjectFeaturesQuery,
  ProjectListItem,
  ProjectListItemSelection,
  ProjectsPage,
  ProjectsSelectionPage,
  CurrencyRate,
  ClustersQuery,
  ProjectClusters,
  ProjectsSearchBody,
  ProjectsQuery,
  ProjectType,
  Unit,
  UnitTag,
  WhoAmI,
} from './types.js';

export interface CatalogueClientOptions {
  /** Where the API is served, e.g. `https://catalogue.example.com` (no trailing path needed). */
  baseUrl: string;
  /** The agency API key (`ck_…`). Keep it on a server: it is sent with every request. */
  apiKey: string;
  /** Retries of reads (and of applications sent with an Idempotency-Key) on 500, 503 and network errors. */
  retry?: RetryOptions;
  /** A fetch of your own (a proxy agent, instrumentation); default the global fetch. */
  fetch?: typeof fetch;
  /**
   * Ask for every problem of an invalid request (`Prefer: errors=all`), exposed as
   * `CatalogueApiError.errors`; default true. False: the specified envelope alone (`message`).
   */
  everyError?: boolean;
}

export interface ApplicationOptions {
  /**
   * Recommended. 1 to 255 visible ASCII characters, one per attempt (a UUID): the service answers a
   * repeat with the first response instead of creating a second offer, so the SDK may retry the call
   * on 500, 503 or a lost connection. Without it the POST is sent exactly once.
   */
  idempotencyKey?: string;
}

/** Result of an openapi-fetch call, as far as unwrapping needs it. */
interface FetchResult<Body> {
  data?: Body;
  error?: unknown;
  response: Response;
}

/** The envelope's `data` on success; a CatalogueApiError with the service's message otherwise. */
async function unwrap<Data>(call: Promise<FetchResult<{ status: 'success'; data: Data }>>): Promise<Data> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw CatalogueApiError.fromResponse(response, error);
  return data.data;
}

/**
 * The Catalogue API, one method per operation. Every method returns the `data` of the success
 * envelope and throws CatalogueApiError otherwise. `raw` is the underlying openapi-fetch client for
 * what the methods do not cover (headers such as If-None-Match, the full response).
 */
export class CatalogueClient {
  readonly raw: Client<paths>;

  constructor(options: CatalogueClientOptions) {
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl,
      headers: { 'X-API-Key': options.apiKey, ...(options.everyError !== false && { Prefer: 'errors=all' }) },
      fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
    });
  }

  /** GET /whoIAm: the key's agency, author and price factor. */
  whoAmI(): Promise<WhoAmI> {
    return unwrap(this.raw.GET('/whoIAm'));
  }

  /** GET /companies: the developers whose projects the key can see. */
  async listDevelopers(): Promise<Developer[]> {
    return (await unwrap(this.raw.GET('/companies'))).items;
  }

  /** GET /areas, optionally of one city. */
  listAreas(query: AreasQuery = {}): Promise<Area[]> {
    return unwrap(this.raw.GET('/areas', { params: { query } }));
  }

  /** GET /preferences: unit tags. */
  listUnitTags(): Promise<UnitTag[]> {
    return unwrap(this.raw.GET('/preferences'));
  }

  /** GET /project-preferences: project features (type 1) and amenities (type 2). */
  listProjectFeatures(query: ProjectFeaturesQuery = {}): Promise<ProjectFeatures> {
    return unwrap(this.raw.GET('/project-preferences', { params: { query } }));
  }

  /** GET /project-types: the names of project types (a project's `type`, the `unit_types` filter). */
  listProjectTypes(): Promise<ProjectType[]> {
    return unwrap(this.raw.GET('/project-types'));
  }

  /** GET /development-statuses: the names of development statuses 0 to 3 (the filter takes 1 to 3). */
  listDevelopmentStatuses(): Promise<DevelopmentStatus[]> {
    return unwrap(this.raw.GET('/development-statuses'));
  }

  /** GET /currencies: AED and every currency with a rate (what `currency=` accepts), with AED per unit and `as_of`. */
  async listCurrencies(): Promise<CurrencyRate[]> {
    return (await unwrap(this.raw.GET('/currencies'))).items;
  }

  /**
   * GET /projects: one page of the search, with the total number of matches. With `fields` in the query,
   * each item has only the properties named (typed ProjectListItemSelection).
   */
  listProjects<Q extends ProjectsQuery = ProjectsQuery>(query: Q = {} as Q): Promise<AsAsked<Q, ProjectsPage, ProjectsSelectionPage>> {
    return unwrap(this.raw.GET('/projects', { params: { query } })) as Promise<AsAsked<Q, ProjectsPage, ProjectsSelectionPage>>;
  }

  /** POST /projects/search: the same search with its parameters in a JSON body, for drawn shapes too long for a URL. */
  searchProjects<B extends ProjectsSearchBody>(body: B): Promise<AsAsked<B, ProjectsPage, ProjectsSelectionPage>> {
    return unwrap(this.raw.POST('/projects/search', { body })) as Promise<AsAsked<B, ProjectsPage, ProjectsSelectionPage>>;
  }

  /** GET /projects/clusters: the matching projects in the viewport `bbox`, grouped by map tile at `zoom`. */
  listProjectClusters(query: ClustersQuery): Promise<ProjectClusters> {
    return unwrap(this.raw.GET('/projects/clusters', { params: { query } }));
  }

  /** Every page of GET /projects for `query`, from `query.offset` (default 0) to the end. */
  projectPages<Q extends ProjectsQuery = ProjectsQuery>(query: Q = {} as Q): AsyncGenerator<AsAsked<Q, ProjectsPage, ProjectsSelectionPage>, void, undefined> {
    return pages(query.offset ?? 0, (offset) => this.listProjects({ ...query, offset }) as Promise<AsAsked<Q, ProjectsPage, ProjectsSelectionPage>>, nextOffset);
  }

  /** Every project matching `query`, page after page (`query.limit` is the page size; default 100, the largest). */
  async *projects<Q extends ProjectsQuery = ProjectsQuery>(query: Q = {} as Q): AsyncGenerator<AsAsked<Q, ProjectListItem, ProjectListItemSelection>, void, undefined> {
    for await (const page of this.projectPages({ limit: 100, ...query })) yield* page.items as AsAsked<Q, ProjectListItem, ProjectListItemSelection>[];
  }

  /** GET /projects/list: every published project visible to the key, flat. */
  async listAllProjects(): Promise<FlatProject[]> {
    return (await unwrap(this.raw.GET('/projects/list'))).items;
  }

  /** GET /projects/{id}: the project with gallery, units, payment plan and nearby facilities. */
  getProject(id: number): Promise<Project> {
    // Without `fields` the answer is the whole project.
    return unwrap(this.raw.GET('/projects/{id}', { params: { path: { id } } })) as Promise<Project>;
  }

  /** GET /projects/{id}/contacts: the developer and its staff. */
  getProjectContacts(id: number): Promise<ProjectContacts> {
    return unwrap(this.raw.GET('/projects/{id}/contacts', { params: { path: { id } } }));
  }

  /** GET /units/{id}: the unit with its project, developer, area, floor plan and tags. */
  getUnit(id: number): Promise<Unit> {
    // Without `fields` the answer is the whole unit.
    return unwrap(this.raw.GET('/units/{id}', { params: { path: { id } } })) as Promise<Unit>;
  }

  /** GET /changes: one page of what changed for the key since `query.cursor` (none: everything visible now). */
  listChanges(query: ChangesQuery = {}): Promise<ChangesPage> {
    return unwrap(this.raw.GET('/changes', { params: { query } }));
  }

  /**
   * Every page of GET /changes from `query.cursor` until the feed is exhausted for now (`has_more`
   * false). Apply each page, then store its `next_cursor`: the last one is where to resume later. A
   * CatalogueApiError with status 410 means start over: drop the mirror and call again without a cursor.
   */
  changes(query: ChangesQuery = {}): AsyncGenerator<ChangesPage, void, undefined> {
    return pages<ChangesPage, { cursor?: string }>({ cursor: query.cursor }, ({ cursor }) => this.listChanges({ ...query, cursor }), nextCursor);
  }

  /** POST /units/{id}/applications: records client + opportunity + draft offer in the agency CRM. */
  submitApplication(unitId: number, body: ApplicationBody, options: ApplicationOptions = {}): Promise<ApplicationResult> {
    const header = options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };
    return unwrap(this.raw.POST('/units/{id}/applications', { params: { path: { id: unitId }, header }, body }));
  }
}
