/* Presenters whose rows are the queries' types: above the queries (src/contract stays below them); shared by the routes and the MCP tools. */
import type { FileRow } from '../../queries/project-detail.js';
import type { UnitModelRow } from '../../queries/units.js';
import type { LinkBuilder } from '../../contract/links.js';
import { toOptionalFileObject } from '../../contract/presenters/files.js';

/** GET /units/{id}'s data (UnitModel): every file object of the model gets its link. Shared by the route and the MCP tool. */
export function toUnitModel(row: UnitModelRow, links: LinkBuilder) {
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
