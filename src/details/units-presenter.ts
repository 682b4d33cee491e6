/* Presenters whose rows are the queries' types: above the queries (src/contract stays below them); shared by the routes and the MCP tools. */
import type { FileRow } from '../queries/project-detail.js';
import type { UnitModelRow } from '../queries/units.js';
import type { LinkBuilder } from '../contract/links.js';
import { toUnitModel as present } from '../contract/presenters/units.js';

/** GET /units/{id}'s data (UnitModel) from the unit query's row (the SQL path: the reference of the snapshot's and the MCP tool's). */
export function toUnitModel(row: UnitModelRow, links: LinkBuilder) {
  return present<FileRow, UnitModelRow['project'], UnitModelRow>(row, links);
}
