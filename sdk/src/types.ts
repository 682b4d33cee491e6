import type { components, operations } from './generated/schema.js';

/*
 * Names for the generated types an integrator handles most, all derived from the generated
 * `operations` and `components` (never written by hand), so they follow the OpenAPI document when it is regenerated.
 */
type OperationId = keyof operations;
type Schemas = components['schemas'];
type JsonBody<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessBody<Op> = Op extends { responses: { 200: infer R } } ? JsonBody<R> : Op extends { responses: { 201: infer R } } ? JsonBody<R> : never;

/** The `data` of an operation's success envelope. */
export type ResponseData<K extends OperationId> = SuccessBody<operations[K]> extends { data: infer Data } ? Data : never;
/** The query parameters of an operation. */
export type QueryOf<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Query } ? NonNullable<Query> : never;

export type WhoAmI = ResponseData<'whoAmI'>;
export type Developer = ResponseData<'listDevelopers'>['items'][number];
export type Area = ResponseData<'listAreas'>[number];
export type AreasQuery = QueryOf<'listAreas'>;
export type UnitTag = ResponseData<'listUnitTags'>[number];
export type ProjectFeatures = ResponseData<'listProjectFeatures'>;
export type ProjectType = ResponseData<'listProjectTypes'>[number];
export type DevelopmentStatus = ResponseData<'listDevelopmentStatuses'>[number];
/** A currency with its rate: AED per one unit and when the rate was taken. */
export type CurrencyRate = ResponseData<'listCurrencies'>['items'][number];
export type ProjectFeaturesQuery = QueryOf<'listProjectFeatures'>;
export type ProjectsQuery = QueryOf<'listProjects'>;
/** A page of GET /projects or POST /projects/search as answered without `fields`: every item whole. */
export type ProjectsPage = Omit<ResponseData<'listProjects'>, 'items'> & { items: ProjectListItem[] };
/** A page as answered with `fields`: each item has only the properties named. */
export type ProjectsSelectionPage = Omit<ResponseData<'listProjects'>, 'items'> & { items: ProjectListItemSelection[] };
/** What an answer holds for a request: `Selection` when the request names `fields`, `Full` otherwise. */
export type AsAsked<Request, Full, Selection> = Request extends { fields: string } ? Selection : Full;
export type ClustersQuery = QueryOf<'listProjectClusters'>;
export type ProjectClusters = ResponseData<'listProjectClusters'>;
/** The body of POST /projects/search: the query of GET /projects, `polygon` also as a GeoJSON Polygon or MultiPolygon. */
export type ProjectsSearchBody = operations['searchProjects']['requestBody']['content']['application/json'];
/** A project of a search page, whole (no `fields`). */
export type ProjectListItem = Schemas['ProjectListItem'];
/** A project of a search page with `fields`: only the properties named. */
export type ProjectListItemSelection = Schemas['ProjectListItemSelection'];
/** With `match: true`: what matched inside a project (`units`, `price_from`, `size_from` of the units that satisfy the unit-level filters). */
export type ProjectMatch = NonNullable<ProjectListItem['match']>;
/** The facets of a page (only with `facets` in the query). */
export type ProjectFacets = NonNullable<ProjectsPage['facets']>;
/** One counted value of a facet: `value` (the id to filter by), `label`, `filterable`, `count`. */
export type FacetValue = NonNullable<ProjectFacets[keyof ProjectFacets]>[number];
export type FlatProject = ResponseData<'listAllProjects'>['items'][number];
/** GET /projects/{id} whole (no `fields`). */
export type Project = Schemas['ProjectDetail'];
/** GET /projects/{id} with `fields`: only the properties named. */
export type ProjectSelection = Schemas['ProjectDetailSelection'];
export type ProjectContacts = ResponseData<'getProjectContacts'>;
/** GET /units/{id} whole (no `fields`). */
export type Unit = Schemas['UnitDetail'];
/** GET /units/{id} with `fields`: only the properties named. */
export type UnitSelection = Schemas['UnitDetailSelection'];
export type ChangesQuery = QueryOf<'listChanges'>;
export type ChangesPage = ResponseData<'listChanges'>;
export type ChangeEntry = ChangesPage['items'][number];
export type ApplicationBody = operations['submitApplication']['requestBody']['content']['application/json'];
export type ApplicationResult = ResponseData<'submitApplication'>;
