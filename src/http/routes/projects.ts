import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { messages } from '../../domain/error-catalogue.js';
import { polygonLine } from '../../domain/project-filters.js';
import { derivedOnce } from '../../search/result-cache.js';
import { flatListJson } from '../../search/visibility.js';
import { projectDetailBody, projectDetailRead, searchProjects as readProjects } from '../catalogue-reads.js';
import type { AppDeps } from '../deps.js';
import { notFound } from '../errors.js';
import type { HashSlot } from '../../bodies/http-cache.js';
import { JSON_TYPE, sendSerializedWithRawItems, sendWithRawItems, serializeEnvelope, serializeText } from '../../bodies/raw-json.js';
import { selectionKey, selectJsonFields } from '../../contract/field-selection.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { IdParams } from '../../contract/schemas/params.js';
import {
  FlatProjectList,
  ListProjectsQuery,
  ProjectDetailQuery,
  ProjectListItem,
  ProjectContacts,
  ProjectDetail,
  ProjectDetailSchemas,
  ProjectsPageResponse,
  SearchProjectsBody,
} from '../../contract/schemas/projects.js';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { KeyScope } from '../../domain/key-scope.js';

const NoQuery = Type.Object({}, { additionalProperties: false });

const notFoundDescription = { 404: '`project not found`: unknown id, draft or deleted project, or a developer without an approved contract (all alike).' };

export const projectRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const { search, contacts, details } = deps;
  /**
   * GET /projects and its POST form: parse, search the latest snapshot, send the kept envelope with the
   * items. `etag`: the answer gets an ETag (GET and HEAD; a POST answer has none), whose hash is kept.
   */
  async function searchProjects(auth: KeyScope, query: Static<typeof ListProjectsQuery>, reply: FastifyReply, etag: boolean) {
    const { page, fields, found } = await readProjects(deps, auth, query);
    // The items are JSON prepared with the snapshot, passed through as text, into the envelope (total
    // and facets) serialized once per search and kept with its result.
    found.kept.rendered ??= serializeEnvelope(reply, ok({ total: found.total, ...(found.facets && { facets: found.facets }), items: [] }));
    // The body is the same for every request asking this page of the result again (the result's key holds
    // the scope, prices, currency and filters; the page, `match` and the selection are named here).
    const hashSlot = etag ? derivedOnce(found.kept, `${page.offset} ${page.limit} ${page.match} ${fields ? selectionKey(fields) : ''}`, (): HashSlot => ({}), 'body hashes') : undefined;
    return sendSerializedWithRawItems(reply, found.kept.rendered, fields ? selectJsonFields(found.items, fields) : found.items, hashSlot);
  }

  app.get(
    '/projects',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'listProjects',
        summary: 'Search projects',
        description:
          'Published projects of contracted developers, filtered (all filters combine with AND) and paginated. Items are in the order of ' +
          '`sort` (default: name, then id), so paging with the same filters and sort never repeats or skips a project; stop when `offset` + ' +
          'number of items >= `total`. Unit-level filters (`bedrooms`, `statuses`, `price_*`, `price_per_ft2_*`, `price_per_m2_*`, `size_*`, ' +
          '`parking_min`, `unit_preference_ids`) must all be satisfied by one and the same unit of the project. Price bounds are in the ' +
          'key\u2019s prices (with `currency`, in that currency). With `facets`, the response also counts the matching projects per value of each facet asked for. With ' +
          '`fields` (an addition), each item keeps only the properties named, e.g. `fields=id,name,logo,price_from` for a search card. With ' +
          '`match=true` (an addition), each item also has `match`: how many of its units satisfy the unit-level filters, their lowest price and ' +
          'smallest area ("2-bed from AED 1,103,560 \u00b7 4 units").',
        querystring: ListProjectsQuery,
        response: responses({ 200: Success(ProjectsPageResponse, 'One page of matching projects and their total.') }),
      },
    },
    async (request, reply) => searchProjects(request.auth, request.query, reply, true),
  );

  app.post(
    '/projects/search',
    {
      // The service's body limit, 64 KiB: a 1,000-vertex MultiPolygon with 15-digit coordinates takes about 40 KiB.
      schema: {
        tags: ['Catalogue'],
        operationId: 'searchProjects',
        summary: 'Search projects (POST form, for large shapes)',
        description:
          'The same search as GET /projects, its parameters as a JSON object (up to 64 KiB), where `polygon` may also be a GeoJSON ' +
          'Polygon or MultiPolygon. Same answers, same limits, same errors as the GET form; use it when a drawn shape does not fit in the ' +
          'request line. Nothing is written: the request can be repeated.',
        body: SearchProjectsBody,
        response: responses({ 200: Success(ProjectsPageResponse, 'One page of matching projects and their total.') })
      },
    },
    async (request, reply) => {
      const { polygon, ...query } = request.body;
      const line = polygon === undefined || typeof polygon === 'string' ? polygon : polygonLine(polygon);
      return searchProjects(request.auth, { ...query, ...(line !== undefined && { polygon: line }) }, reply, false);
    },
  );

  app.get(
    '/projects/list',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'listAllProjects',
        summary: 'All published projects (flat)',
        description: 'Every published project of a contracted developer as `{id, name, logo}`, sorted by name, then id. No parameters, no pagination.',
        querystring: NoQuery,
        response: responses({ 200: Success(FlatProjectList, 'Every published project visible to the key.') }),
      },
    },
    async (request, reply) => {
      const items = flatListJson(await search.latest(), request.auth.contracted_developer_ids);
      return sendWithRawItems(reply, ok({ items: [] }), items);
    },
  );

  app.get(
    '/projects/:id',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'getProject',
        summary: 'Project detail',
        description:
          'The project with its location, cost, payment plan, media, units (prices in the key\u2019s prices; with `currency`, in that currency), features and amenities, and ' +
          'nearby facilities (filtered by the server\u2019s AMENITIEST_RADIUS when set). With `fields` (an addition), only the properties ' +
          'and blocks named are returned, e.g. `fields=name,media,units` for a page without the nearby facilities (which are then not ' +
          'even looked up).',
        params: IdParams,
        querystring: ProjectDetailQuery,
        response: responses({ 200: Success(ProjectDetailSchemas.payload, 'The project with every block (with `fields`, only the properties and blocks named).') }, [404], notFoundDescription),
      },
    },
    async (request, reply) => {
      // Everything the body depends on is in the read's key (the key's visibility is checked before anything kept is sent).
      const read = await projectDetailRead(deps, request.auth, request.params.id, request.query);
      const kept = details.bodies.sendKept(request, reply, search, read.snapshot, 'projects', read.key);
      if (kept) return kept;
      const body = await projectDetailBody(deps, read);
      return details.bodies.sendMade(request, reply, read.snapshot, 'projects', read.key, body.parts, body.ofSnapshot);
    },
  );

  app.get(
    '/projects/:id/contacts',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'getProjectContacts',
        summary: 'Project contacts',
        description: 'The developer that owns the project and its staff (members with the role `ceo` and deleted users are left out).',
        params: IdParams,
        querystring: NoQuery,
        response: responses({ 200: Success(ProjectContacts, 'The developer and its staff.') }, [404], notFoundDescription),
      },
    },
    async (request, reply) => {
      const snapshot = await search.latest();
      const found = await contacts.ofProject(snapshot, request.auth, request.params.id);
      if (!found) throw notFound(messages.projectNotFound);
      found.json ??= serializeText(reply, ok(found.data));
      return reply.type(JSON_TYPE).send(found.json);
    },
  );
};


