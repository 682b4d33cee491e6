import type { Static } from '@sinclair/typebox';
import { parseFields, selectableFields, selectionKey, type FieldSelection } from '../contract/field-selection.js';
import { parseProjectsQuery } from '../contract/projects-query.js';
import { ListProjectsQuery, ProjectDetail, ProjectDetailQuery, ProjectListItem } from '../contract/schemas/projects.js';
import { UnitModel, UnitQuery } from '../contract/schemas/units.js';
import type { ReadScope } from '../domain/currency.js';
import { messages } from '../domain/error-catalogue.js';
import type { KeyScope } from '../domain/key-scope.js';
import type { ProjectsPage } from '../domain/project-filters.js';
import { findProjects, type FoundProjects } from '../search/find-projects.js';
import { visibleUnitIndex } from '../search/find-unit.js';
import type { Snapshot } from '../search/snapshot.js';
import { isVisibleProject } from '../search/visibility.js';
import type { AppDeps } from './deps.js';
import { displayCurrencyOf } from './display-currency.js';
import { notFound } from './errors.js';
import type { DetailBody, ProjectDetailRequest } from '../details/project-detail-body.js';
import type { UnitBody, UnitRequest } from '../details/unit-detail-body.js';

/*
 * The catalogue's reads as every door makes them (the REST routes, the MCP tools): each takes the key
 * and what was asked, in the contract's query shape, and takes every step in one order: the query's
 * rules, the field selection, one snapshot, the display currency, the key's visibility and price
 * vector. A door only writes out what comes back (REST as the bytes, MCP as objects and a digest), so
 * no door can answer a read with a step left out.
 */

type Reads = Pick<AppDeps, 'search' | 'config' | 'details'>;

export type ListProjectsArgs = Static<typeof ListProjectsQuery>;
export type ProjectDetailArgs = Static<typeof ProjectDetailQuery>;
export type UnitArgs = Static<typeof UnitQuery>;

/** The key with the display currency asked for (checked against the snapshot's rates: 400 naming an unrated code). */
function readScope(auth: KeyScope, currency: string | undefined, snapshot: Snapshot): { scope: ReadScope; currency: string } {
  const display = displayCurrencyOf(currency, snapshot.rates);
  return { scope: display ? { ...auth, display } : auth, currency: display?.currency ?? '' };
}

export interface ProjectSearch {
  page: ProjectsPage;
  fields: FieldSelection | undefined;
  found: FoundProjects;
}

/** GET /projects, POST /projects/search, MCP search_projects. */
export async function searchProjects({ search, config }: Reads, auth: KeyScope, query: ListProjectsArgs): Promise<ProjectSearch> {
  // A filter it cannot understand throws FilterError: 400 naming the parameter (src/domain/error-catalogue.ts).
  const page = parseProjectsQuery(query);
  const fields = parseFields(query.fields, selectableFields(ProjectListItem));
  // One snapshot for the whole request, even if a refresh swaps in another meanwhile.
  const snapshot = await search.latest();
  const { scope } = readScope(auth, query.currency, snapshot);
  return { page, fields, found: findProjects(snapshot, scope, page, { amenitiesRadiusM: config.amenitiesRadiusM }) };
}

/** A detail read, checked and placed: its snapshot, what to make, and the key of everything its body depends on. */
export interface DetailRead<Request> {
  snapshot: Snapshot;
  request: Request;
  key: string;
}

/** GET /projects/{id} and MCP get_project, up to the body: 404 for a project the key cannot see. */
export async function projectDetailRead({ search, config }: Reads, auth: KeyScope, projectId: number, query: ProjectDetailArgs): Promise<DetailRead<ProjectDetailRequest>> {
  const fields = parseFields(query.fields, selectableFields(ProjectDetail));
  const { nearby_limit: limit, nearby: form } = query;
  const snapshot = await search.latest();
  const { scope, currency } = readScope(auth, query.currency, snapshot);
  const request = { projectId, scope, fields, nearby: { amenitiesRadiusM: config.amenitiesRadiusM, limit, form } };
  if (!isVisibleProject(snapshot, scope, projectId)) throw notFound(messages.projectNotFound);
  const key = `/projects/${projectId} ${scope.price_vector} ${currency} ${fields ? selectionKey(fields) : ''} ${config.amenitiesRadiusM ?? ''} ${limit ?? ''} ${form ?? ''}`;
  return { snapshot, request, key };
}

export async function projectDetailBody({ details }: Reads, { snapshot, request }: DetailRead<ProjectDetailRequest>): Promise<DetailBody> {
  const body = await details.projects.parts(snapshot, request);
  if (!body) throw notFound(messages.projectNotFound);
  return body;
}

/** GET /units/{id} and MCP get_unit, up to the body: 404 for a unit the key cannot see. */
export async function unitRead({ search }: Reads, auth: KeyScope, unitId: number, query: UnitArgs): Promise<DetailRead<UnitRequest>> {
  const fields = parseFields(query.fields, selectableFields(UnitModel));
  const snapshot = await search.latest();
  const { scope, currency } = readScope(auth, query.currency, snapshot);
  const k = visibleUnitIndex(snapshot, scope, unitId);
  if (k < 0) throw notFound(messages.unitNotFound);
  const key = `/units/${unitId} ${scope.price_vector} ${currency} ${fields ? selectionKey(fields) : ''}`;
  return { snapshot, request: { unitId, k, scope, fields }, key };
}

export async function unitBody({ details }: Reads, { snapshot, request }: DetailRead<UnitRequest>): Promise<UnitBody> {
  const body = await details.units.body(snapshot, request);
  if (!body) throw notFound(messages.unitNotFound);
  return body;
}
