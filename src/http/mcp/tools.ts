import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { ApplicationRequest } from '../../domain/application-merge.js';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_HOURS } from '../../domain/idempotency.js';
import { badRequest } from '../errors.js';
import { ApplicationBody } from '../../contract/schemas/applications.js';
import { IdParams } from '../../contract/schemas/params.js';
import { parseProjectsQuery } from '../../contract/projects-query.js';
import { ProjectDetailQuery, ProjectsQuery } from '../../contract/schemas/projects.js';
import { UnitQuery } from '../../contract/schemas/units.js';
import { compileValidator, type RequestPart } from '../validation.js';
import type { Catalogue, ProjectsPage } from './catalogue.js';
import { REFERENCE_LIST_NAMES, REFERENCE_LISTS, type ReferenceListName } from './reference-lists.js';
import { applicationText, contactsText, projectText, referenceText, searchText, unitText } from './text.js';

/*
 * The MCP tools. Input schemas are the API contract's TypeBox schemas (a TypeBox schema is a JSON
 * Schema), and arguments are checked by the routes' own validator, as the matching part of the REST
 * request, so a bad filter gets the very message GET /projects would send. Each tool answers with a
 * compact text for the model and, as structured content, the `data` of the REST answer.
 */

export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: TObject;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
  run(catalogue: Catalogue, args: Record<string, unknown>): Promise<ToolAnswer>;
}

/** An id argument, worded as the REST path's `id` is, under the tool's own name for it. */
const id = (description: string) => Type.Integer({ ...IdParams.properties.id, 'x-error-message': 'must be a positive integer', description });
const ProjectId = id('Project id (from search_projects).');
const UnitId = id('Unit id (from get_project\u2019s units).');
const ProjectIdArgs = Type.Object({ project_id: ProjectId }, { additionalProperties: false });
/** The id and the query parameters of GET /projects/{id} the tool takes, checked as the route checks them. */
const ProjectArgs = Type.Object({ project_id: ProjectId, currency: ProjectDetailQuery.properties.currency }, { additionalProperties: false });
const UnitArgs = Type.Object({ unit_id: UnitId, currency: UnitQuery.properties.currency }, { additionalProperties: false });
const ReferenceArgs = Type.Object(
  {
    list: Type.Union(
      REFERENCE_LIST_NAMES.map((name) => Type.Literal(name)),
      {
        description: REFERENCE_LIST_NAMES.map((name) => `\`${name}\`: ${REFERENCE_LISTS[name].description} For ${REFERENCE_LISTS[name].usedBy}.`).join(' '),
        'x-error-message': `must be one of: ${REFERENCE_LIST_NAMES.join(', ')}`,
      },
    ),
  },
  { additionalProperties: false },
);
const ApplicationTarget = Type.Object(
  {
    unit_id: id('The unit the client applies for (from get_project\u2019s units or get_unit).'),
    idempotency_key: Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      'x-error-message': 'must be 1 to 255 visible ASCII characters (no spaces)',
      description:
        'Required. A fresh random id (e.g. a UUID) made once per application the user confirmed, and sent again unchanged on every retry of it: ' +
        `a repeat with the same key and arguments within ${IDEMPOTENCY_TTL_HOURS} hours returns the first answer and writes nothing, so a retry never files the client twice.`,
    }),
  },
  { additionalProperties: false },
);
const ApplicationArgs = Type.Object({ ...ApplicationTarget.properties, ...ApplicationBody.properties }, { additionalProperties: false });

type SearchArgs = Static<typeof ProjectsQuery>;

/** Checks `args` as the given part of the REST request; a failure is the route's 400 with its message. */
function checker<T>(schema: object, part: RequestPart): (args: unknown) => T {
  const validate = compileValidator(schema, part);
  return (args) => {
    const message = validate(args);
    if (message !== undefined) throw badRequest(message);
    return args as T;
  };
}

/** Models often send a list where the query takes comma-separated text: both are accepted. */
function listsAsText(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const property = ProjectsQuery.properties[name as keyof typeof ProjectsQuery.properties] as { type?: string } | undefined;
    out[name] = Array.isArray(value) && property?.type === 'string' ? value.join(',') : value;
  }
  return out;
}

const checkSearch = checker<SearchArgs>(ProjectsQuery, 'querystring');
// The id and the query parameters of a detail route are one object of arguments, checked as a query
// string is (numbers given as text are taken), so an error names the argument the tool declares.
const checkProjectId = checker<Static<typeof ProjectIdArgs>>(ProjectIdArgs, 'querystring');
const checkProject = checker<Static<typeof ProjectArgs>>(ProjectArgs, 'querystring');
const checkUnit = checker<Static<typeof UnitArgs>>(UnitArgs, 'querystring');
const checkReference = checker<{ list: ReferenceListName }>(ReferenceArgs, 'body');
const checkTarget = checker<Static<typeof ApplicationTarget>>(ApplicationTarget, 'body');
const checkApplication = checker<ApplicationRequest>(ApplicationBody, 'body');

const searchTexts = new WeakMap<ProjectsPage, string>();

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

export const TOOLS: ToolDefinition[] = [
  {
    name: 'search_projects',
    title: 'Search projects',
    description:
      'Search the agency\u2019s catalogue of UAE off-plan and ready projects with the filters of GET /projects (all combine with AND). ' +
      'Prices are in this agency\u2019s own prices (the same figures the agency shows its clients), in each project\u2019s currency, or with `currency` (e.g. "USD") ' +
      'all in that currency, price bounds (price_*) included. Unit-level filters (bedrooms, statuses, ' +
      'price_*, size_*, parking_min, unit_preference_ids) must all hold for one and the same unit. List filters take comma-separated ids ' +
      '(e.g. bedrooms "2,3"); get ids of areas, developers, features, amenities, unit tags and project types from list_reference first, never guess them. ' +
      'Use `facets` to see how many projects each value would give (e.g. "bedrooms,area") before narrowing. With unit-level filters, set `match: true`: each project then ' +
      'also says how many of its units match them and their lowest price and size (e.g. its cheapest 2-bedroom), where `price_from` is the lowest price of all its units. ' +
      'Results are paged: `limit` (default 20, at most 100) and `offset`; ' +
      'the answer says the total. Then call get_project for the details and units of a project.',
    inputSchema: ProjectsQuery,
    annotations: readOnly,
    async run(catalogue, args) {
      const query = checkSearch(listsAsText(args));
      const page = await catalogue.searchProjects(query);
      // A page kept by the catalogue (a repeated search) comes with its text; the text depends on the
      // page and on the offset and sort, which the page's cache key holds.
      let text = searchTexts.get(page);
      // With `match: true`, the text gives what matched when the search has unit-level filters.
      const unitLevel = query.match === true && parseProjectsQuery(query).filters.units !== undefined;
      if (text === undefined) searchTexts.set(page, (text = searchText(page, query, unitLevel)));
      return { text, structured: page };
    },
  },
  {
    name: 'get_project',
    title: 'Project details',
    description:
      'One project in full: description, location, developer, handover, payment plan, media links, its units (id, number, bedrooms, status, ' +
      'price in the agency\u2019s prices, area in m²), features and amenities, and nearby facilities. With `currency` (e.g. "USD", as search_projects takes it), ' +
      'every price is in that currency. Answers "project not found" for a project this key cannot see.',
    inputSchema: ProjectArgs,
    annotations: readOnly,
    async run(catalogue, args) {
      const { project_id: projectId, ...query } = checkProject(args);
      const project = await catalogue.getProject(projectId, query);
      return { text: projectText(project), structured: project };
    },
  },
  {
    name: 'get_unit',
    title: 'Unit details',
    description:
      'One unit: number, bedrooms (0 = studio), status, furnishing, floor, parking, price in the agency\u2019s prices, area in m², plan, tags, and its project. ' +
      'With `currency` (e.g. "USD"), the price is in that currency. Answers "unit not found" for a unit this key cannot see.',
    inputSchema: UnitArgs,
    annotations: readOnly,
    async run(catalogue, args) {
      const { unit_id: unitId, ...query } = checkUnit(args);
      const unit = await catalogue.getUnit(unitId, query);
      return { text: unitText(unit.data, unit.currency), structured: unit.data };
    },
  },
  {
    name: 'get_project_contacts',
    title: 'Project contacts',
    description: 'The developer of a project and its sales staff (name, role, e-mail, phone, languages) to contact about it.',
    inputSchema: ProjectIdArgs,
    annotations: readOnly,
    async run(catalogue, args) {
      const { project_id: projectId } = checkProjectId(args);
      const contacts = await catalogue.getProjectContacts(projectId);
      return { text: contactsText(contacts), structured: contacts };
    },
  },
  {
    name: 'list_reference',
    title: 'Reference values',
    description:
      'The values a filter or an application field accepts, with their names: call it to turn a client\u2019s words ("Dubai Marina", "sea view", "Emaar") ' +
      'into the ids search_projects and submit_application take. The same lists are resources (catalogue://reference/<list>).',
    inputSchema: ReferenceArgs,
    annotations: readOnly,
    async run(catalogue, args) {
      const { list } = checkReference(args);
      const items = await catalogue.listReference(list);
      return { text: referenceText(list, items), structured: { list, used_by: REFERENCE_LISTS[list].usedBy, items } };
    },
  },
  {
    name: 'submit_application',
    title: 'Submit a client application',
    description:
      'Files an end client\u2019s application for one unit into the agency\u2019s CRM (client, opportunity and a draft offer at the unit\u2019s price). ' +
      'It writes real records: BEFORE calling it, show the user the unit and every client detail you will send and get their explicit confirmation; ' +
      'never call it on your own initiative or with invented contact details. client.first_name and an e-mail or mobile number are required. ' +
      'Make one idempotency_key (a UUID) per confirmed application and reuse it unchanged if you retry, so the client is never filed twice.',
    inputSchema: ApplicationArgs,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(catalogue, args) {
      const { unit_id: unitId, idempotency_key: idempotencyKey, ...body } = args;
      const target = checkTarget({ unit_id: unitId, idempotency_key: idempotencyKey });
      const outcome = await catalogue.submitApplication(target.unit_id, checkApplication(body), target.idempotency_key);
      return { text: applicationText(outcome), structured: { ...outcome.data, replayed: outcome.replayed } };
    },
  },
];

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
