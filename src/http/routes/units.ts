import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FileRow } from '../../queries/project-detail.js';
import { findUnit, type UnitModelRow } from '../../queries/units.js';
import type { AppDeps } from '../deps.js';
import { messages } from '../../domain/error-catalogue.js';
import { notFound } from '../errors.js';
import type { LinkBuilder } from '../../contract/links.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { IdParams } from '../../contract/schemas/params.js';
import { UnitModel } from '../../contract/schemas/units.js';
import { toOptionalFileObject } from '../../contract/presenters/files.js';

export const unitRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database: { db }, links }) => {
  app.get(
    '/units/:id',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'getUnit',
        summary: 'Unit detail',
        description:
          'The unit with its project, developer, area, plan and tags, as in the data model: snake_case, except the project\u2019s ' +
          '`CreatedAt`/`UpdatedAt` and its `company` and `author` objects (PascalCase). `price` is in the key\u2019s prices.',
        params: IdParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(UnitModel, 'The unit, with its project, developer, area, plan and tags.') }, [404], {
          404: '`unit not found`: unknown or deleted unit, draft or deleted project, or a developer without an approved contract (all alike).',
        }),
      },
    },
    async (request) => {
      const row = await findUnit(db, request.auth, request.params.id);
      if (!row) throw notFound(messages.unitNotFound);
      return ok(withLinks(row, links));
    },
  );
};

/** Every file object of the model gets its link. */
function withLinks(row: UnitModelRow, links: LinkBuilder) {
  const file = (value: FileRow | null) => toOptionalFileObject(value, links);
  const { project } = row;
  return {
    ...row,
    plan_file: file(row.plan_file),
    project: {
      ...project,
      company: { ...project.company, LogoFile: file(project.company.LogoFile) },
      floor_plan_file: file(project.floor_plan_file),
      brochure_file: file(project.brochure_file),
      general_plan_file: file(project.general_plan_file),
    },
  };
}
