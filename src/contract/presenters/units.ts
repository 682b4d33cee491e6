import type { LinkBuilder } from '../links.js';
import { toOptionalFileObject } from './files.js';

/*
 * GET /units/{id}'s data (UnitModel) as the API shows it: every file object of the model gets its
 * link. Generic over the rows (the unit query's, src/queries/units.ts, whose types Kysely infers), so
 * that the route, the MCP tool and the search snapshot, which prepares each project's part once
 * (src/search/unit-details.ts), share it from below the queries.
 */

/** The file references of the unit's project, as the unit query reads them. */
interface UnitProjectFiles<F extends { path: string }> {
  company: { LogoFile: F | null };
  floor_plan_file: F | null;
  brochure_file: F | null;
  general_plan_file: F | null;
}

/** The unit's project with its file links (UnitProjectModel). */
export function toUnitProjectModel<F extends { path: string }, P extends UnitProjectFiles<F>>(project: P & UnitProjectFiles<F>, links: LinkBuilder) {
  const file = (value: F | null) => toOptionalFileObject(value, links);
  return {
    ...project,
    company: { ...project.company, LogoFile: file(project.company.LogoFile) },
    floor_plan_file: file(project.floor_plan_file),
    brochure_file: file(project.brochure_file),
    general_plan_file: file(project.general_plan_file),
  };
}

/** The unit with its plan's link and its project's (UnitModel). */
export function toUnitModel<F extends { path: string }, P extends UnitProjectFiles<F>, R extends { plan_file: F | null; project: P }>(
  row: R & { plan_file: F | null; project: P & UnitProjectFiles<F> },
  links: LinkBuilder,
) {
  return { ...row, plan_file: toOptionalFileObject(row.plan_file, links), project: toUnitProjectModel(row.project, links) };
}
