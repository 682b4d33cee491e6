import type { Static } from '@sinclair/typebox';
import { ApplicationRejected, type ApplicationRequest } from '../../domain/application-merge.js';
import type { AppDeps } from '../deps.js';
import type { ProjectContactsData } from '../../details/company-contacts.js';
export type { ProjectContactsData };
import { requireLiveAuthor, type AuthContext } from '../auth.js';
import { messages } from '../../domain/error-catalogue.js';
import { applicationRejected, notFound } from '../errors.js';
import { projectDetailBody, projectDetailRead, searchProjects, unitBody, unitRead, type ProjectDetailArgs, type UnitArgs } from '../catalogue-reads.js';
import { toProjectDetail } from '../../details/project-detail-presenter.js';
import { toUnitModel } from '../../details/units-presenter.js';
import type { ApplicationResponse } from '../../contract/schemas/applications.js';
import type { NearbyFacilities, ProjectListItem, ProjectsPageSchema, ProjectsQuery } from '../../contract/schemas/projects.js';
import type { Developer } from '../../contract/schemas/reference.js';
import { listDevelopmentStatuses, listProjectTypes } from '../../queries/code-names.js';
import { listAreas, listProjectFeatures, listUnitTags } from '../../queries/reference.js';
import { unitProjectCurrency } from '../../search/find-unit.js';
import { reuseNow } from '../../bodies/large-bodies.js';
import { jsonBody } from '../../bodies/raw-json.js';
import { derivedOnce } from '../../search/result-cache.js';
import { companiesJson } from '../../search/visibility.js';
import { withPreparedJson } from './prepared-json.js';
import type { ReferenceItem, ReferenceListName } from './reference-lists.js';

/*
 * What the MCP tools read and write, for one API key, inside the service: the very functions the REST
 * routes call (the search snapshot, the queries, the presenters), so a tool answers exactly what the
 * route answers for the same key: the same visibility, the same prices, the same messages. Failures are
 * thrown as the routes throw them (ApiError with the route's status and message, or a rule's own error
 * that errorAnswer of src/domain/error-catalogue.ts maps for both).
 */

export type ProjectsPage = Static<typeof ProjectsPageSchema>;
export type ProjectDetailData = Omit<ReturnType<typeof toProjectDetail>, 'nearby_facilities'> & { nearby_facilities: Static<typeof NearbyFacilities> };
export type UnitData = ReturnType<typeof toUnitModel>;
export interface UnitAnswer {
  /** The REST answer's data. */
  data: UnitData;
  /** The currency of its price: the one asked for, or the project's own (which the answer names only with `currency`). */
  currency: string;
}
export interface ApplicationOutcomeData {
  /** The REST 201's data: the full answer, or the private one for a key with private applications. */
  data: ApplicationResponse;
  /** True when an earlier request with the same idempotency key was answered again (nothing written). */
  replayed: boolean;
}

export interface Catalogue {
  searchProjects(query: ProjectsQuery): Promise<ProjectsPage>;
  getProject(id: number, query: ProjectDetailArgs): Promise<ProjectDetailData>;
  getUnit(id: number, query: UnitArgs): Promise<UnitAnswer>;
  getProjectContacts(id: number): Promise<ProjectContactsData>;
  listReference(list: ReferenceListName): Promise<ReferenceItem[]>;
  submitApplication(unitId: number, body: ApplicationRequest, idempotencyKey: string): Promise<ApplicationOutcomeData>;
}

export function inServiceCatalogue(deps: AppDeps, auth: AuthContext): Catalogue {
  const { database, config, search, applications, details } = deps;
  const { db } = database;

  /*
   * Project types and development statuses: every code GET /project-types or GET /development-statuses
   * names (the same query), with the number of projects this key sees with it (0: none yet, the filter
   * still takes it). A value the facet counts but the catalogue does not name is listed after them with
   * a null name, since the filter takes it too.
   */
  async function namedCodes(facet: 'unit_types' | 'development_status', named: { id: number; name: string }[]): Promise<ReferenceItem[]> {
    const { found } = await searchProjects(deps, auth, { facets: facet, limit: 1 });
    const counts = new Map(((found.facets?.[facet] ?? []) as { value: number; count: number }[]).map(({ value, count }) => [value, count]));
    const items: ReferenceItem[] = named.map(({ id, name }) => ({ id, name, projects: counts.get(id) ?? 0 }));
    const namedIds = new Set(named.map(({ id }) => id));
    for (const [id, count] of counts) if (!namedIds.has(id)) items.push({ id, name: null, projects: count });
    return items;
  }

  return {
    async searchProjects(query) {
      const { page, found } = await searchProjects(deps, auth, query);
      // Parsed once per page of a kept result (result-cache.ts; its key holds the scope, prices, currency
      // and filters): structured content is objects, which the answer writes as the prepared text they
      // were parsed from (prepared-json.ts).
      return derivedOnce(found.kept, `mcp page ${page.offset} ${page.limit} ${page.match}`, () => {
        const items = withPreparedJson(JSON.parse(found.items) as ProjectListItem[], found.items);
        return { total: found.total, ...(found.facets && { facets: found.facets }), items } satisfies ProjectsPage;
      });
    },

    // The details as GET /projects/{id} and GET /units/{id} make them (the same reads, the same bodies),
    // parsed back into objects.
    async getProject(id, query) {
      const body = await projectDetailBody(deps, await projectDetailRead(deps, auth, id, query));
      const bytes = jsonBody(body.parts);
      const { data } = JSON.parse(bytes.toString('utf8')) as { data: ProjectDetailData };
      reuseNow(bytes);
      return data;
    },

    async getUnit(id, query) {
      const read = await unitRead(deps, auth, id, query);
      const body = await unitBody(deps, read);
      const { data } = JSON.parse(body.parts.join('')) as { data: UnitData };
      // The answer names its price's currency only with `currency`; without, it is the project's own.
      return { data, currency: data.currency ?? unitProjectCurrency(read.snapshot, read.request.k) };
    },

    async getProjectContacts(id) {
      const snapshot = await search.latest();
      const found = await deps.contacts.ofProject(snapshot, auth, id);
      if (!found) throw notFound(messages.projectNotFound);
      return found.data;
    },

    async listReference(list) {
      switch (list) {
        case 'areas':
          return (await listAreas(db, undefined)).map(({ id, name, city }) => ({ id, name, city }));
        case 'unit_tags':
          return (await listUnitTags(db)).map(({ id, name }) => ({ id, name }));
        case 'features':
          return (await listProjectFeatures(db, 1)).map(({ id, name }) => ({ id, name }));
        case 'amenities':
          return (await listProjectFeatures(db, 2)).map(({ id, name }) => ({ id, name }));
        case 'developers':
          return (JSON.parse(companiesJson(await search.latest(), auth.contracted_developer_ids)) as Static<typeof Developer>[]).map(({ id, name }) => ({ id, name }));
        case 'project_types':
          return namedCodes('unit_types', await listProjectTypes(db));
        case 'development_statuses':
          return namedCodes('development_status', await listDevelopmentStatuses(db));
      }
    },

    async submitApplication(unitId, body, idempotencyKey) {
      requireLiveAuthor(auth);
      try {
        const outcome = await applications.submit({ unitId, body, key: auth, idempotencyKey });
        return { data: outcome.data, replayed: outcome.replayed };
      } catch (error) {
        if (error instanceof ApplicationRejected) throw applicationRejected(error.reason);
        throw error;
      }
    },
  };
}
