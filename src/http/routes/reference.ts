import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listDevelopmentStatuses, listProjectTypes } from '../../queries/code-names.js';
import { listAreas, listProjectFeatures, listUnitTags } from '../../queries/reference.js';
import { companiesJson } from '../../search/visibility.js';
import type { AppDeps } from '../deps.js';
import { sendWithRawItems } from '../../bodies/raw-json.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { Area, Developer, DevelopmentStatusName, ProjectFeatureSections, ProjectTypeName, UnitTag } from '../../contract/schemas/reference.js';

export const referenceRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database: { db }, search }) => {
  app.get(
    '/companies',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'listDevelopers',
        summary: 'Developers with published projects',
        description: 'Developer companies (company_type 3) with an approved contract with the key\u2019s agency that own at least one published project, sorted by name. Intended for the `developer_ids` filter of GET /projects.',
        response: responses({ 200: Success(Type.Object({ items: Type.Array(Developer, { description: 'The developers, sorted by name.' }) }), 'The developers whose projects the key can see.') }),
      },
    },
    async (request, reply) => {
      // Served from the search snapshot, the same catalogue GET /projects filters by developer_ids.
      const items = companiesJson(await search.latest(), request.auth.contracted_developer_ids);
      return sendWithRawItems(reply, ok({ items: [] }), items);
    },
  );

  app.get(
    '/areas',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listAreas',
        summary: 'Areas',
        description: 'Every area, sorted by city and then name.',
        querystring: Type.Object(
          { city: Type.Optional(Type.String({ maxLength: 255, description: 'Exact city, case-insensitive (e.g. `dubai`).' })) },
          { additionalProperties: false },
        ),
        response: responses({ 200: Success(Type.Array(Area, { description: 'The areas, sorted by city, then name.' }), 'The areas (of one city when `city` is given).') }),
      },
    },
    async (request) => ok(await listAreas(db, request.query.city)),
  );

  app.get(
    '/preferences',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listUnitTags',
        summary: 'Unit tags',
        description: 'Every unit tag, sorted by name. Used by `unit_preference_ids` and by applications.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(Type.Array(UnitTag, { description: 'The unit tags, sorted by name.' }), 'Every unit tag.') }),
      },
    },
    async () => ok(await listUnitTags(db)),
  );

  app.get(
    '/project-types',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listProjectTypes',
        summary: 'Project types',
        description:
          'The name of every project type the catalogue names, sorted by id: a project\u2019s `type` and the `unit_types` filter are these ids. ' +
          'Addition to the specification (bundle section `project_types`); a type without a name is not listed.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(Type.Array(ProjectTypeName, { description: 'The project types, sorted by id.' }), 'Every named project type.') }),
      },
    },
    async () => ok(await listProjectTypes(db)),
  );

  app.get(
    '/development-statuses',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listDevelopmentStatuses',
        summary: 'Development statuses',
        description:
          'The name of every development status (0 to 3) the catalogue names, sorted by id: a project\u2019s `development_status` is one of ' +
          'these ids; the `development_status` filter takes 1 to 3 only. Addition to the specification (bundle section `development_statuses`).',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(Type.Array(DevelopmentStatusName, { description: 'The development statuses, sorted by id.' }), 'Every named development status.') }),
      },
    },
    async () => ok(await listDevelopmentStatuses(db)),
  );

  app.get(
    '/project-preferences',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listProjectFeatures',
        summary: 'Project features and amenities',
        description: 'Every project feature and amenity, each section sorted by name. With `type`, the other section is an empty array.',
        querystring: Type.Object(
          { type: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], { description: '1 features only, 2 amenities only', 'x-error-message': 'must be 1 (features) or 2 (amenities)' })) },
          { additionalProperties: false },
        ),
        response: responses({ 200: Success(ProjectFeatureSections, 'Project features and amenities, in two sections.') }),
      },
    },
    async (request) => {
      const rows = await listProjectFeatures(db, request.query.type);
      return ok({
        features: rows.filter((row) => row.type === 1).map(toFeature),
        amenities: rows.filter((row) => row.type === 2).map(toFeature),
      });
    },
  );
};

function toFeature(row: { id: number; name: string; type: number }) {
  return { id: row.id, name: row.name, type: row.type as 1 | 2 };
}
