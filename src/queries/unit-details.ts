import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { fileJson } from './project-detail.js';
import { linkCreatedAtSql, linkUpdatedAtSql, projectModel, unitTagColumns } from './units.js';
import { projectPublishedSql } from './visibility.js';

/*
 * What GET /units/{id} needs beyond the search snapshot's unit columns, for the live units of one
 * project (src/search/unit-details.ts keeps it per snapshot and project, as it is asked), with the very
 * expressions of the unit query (src/queries/units.ts), so that every value is the one the SQL path
 * gives. Meant to run inside a REPEATABLE READ transaction that also reads the catalogue version.
 */

type AnyEb = ExpressionBuilder<DB, keyof DB>;

/** The live units of these projects, as a subquery of their ids. */
const liveUnitIds = (eb: AnyEb, projectIds: number[]) =>
  eb.selectFrom('units as lu').where('lu.project_id', '=', sql<number>`ANY(${projectIds})`).where('lu.deleted_at', 'is', null).select('lu.id');

/**
 * Per project, its live units' own columns in id order (the snapshot's order within a project):
 * `id,furnishing,floor,plan_file_id,created_at,updated_at` per unit, `;` between units, timestamps in
 * their text form, read with the drivers' own parser (src/db/type-parsers.mjs); plan_file_id 0: none
 * (ids are positive). unit_number (any text) as a JSON array of strings, in the same order.
 */
export function readUnitPageUnits(db: Kysely<DB>, projectIds: number[]) {
  return db
    .selectFrom('units as u')
    .where('u.project_id', '=', sql<number>`ANY(${projectIds})`)
    .where('u.deleted_at', 'is', null)
    .groupBy('u.project_id')
    .select([
      'u.project_id',
      sql<string>`string_agg(concat_ws(',', u.id, u.furnishing, u.floor, coalesce(u.plan_file_id, 0), u.created_at::text, u.updated_at::text), ';' ORDER BY u.id)`.as('details'),
      sql<string>`json_agg(u.unit_number ORDER BY u.id)::text`.as('numbers'),
    ])
    .execute();
}

/** The published projects' `project` object of the unit answer (a project not published: no row). */
export function readUnitPageProjects(db: Kysely<DB>, projectIds: number[]) {
  return db
    .selectFrom('projects as p')
    .where('p.id', '=', sql<number>`ANY(${projectIds})`)
    .where(projectPublishedSql('p'))
    .select((eb) => ['p.id', projectModel(eb as unknown as AnyEb, 'p.id').$notNull().as('project')])
    .execute();
}

/** The plan files of the projects' live units, as `plan_file` shows them (before the link), by project. */
export function readUnitPagePlanFiles(db: Kysely<DB>, projectIds: number[]) {
  return db
    .selectFrom('units as u')
    .innerJoin('files as f', 'f.id', 'u.plan_file_id')
    .where('u.project_id', '=', sql<number>`ANY(${projectIds})`)
    .where('u.deleted_at', 'is', null)
    .select((eb) => ['u.project_id', 'f.id', fileJson(eb as unknown as AnyEb, 'f.id').$notNull().as('file')])
    .distinctOn(['u.project_id', 'f.id'])
    .orderBy('u.project_id')
    .orderBy('f.id')
    .execute();
}

/** The unit tags linked to the projects' live units, as a link's `preference` shows them. */
export function readUnitPageTags(db: Kysely<DB>, projectIds: number[]) {
  return db
    .selectFrom('unit_tags as pt')
    .where('pt.id', 'in', (eb) => eb.selectFrom('unit_tag_links as l').where('l.unit_id', 'in', liveUnitIds(eb as unknown as AnyEb, projectIds)).select('l.tag_id'))
    .select(unitTagColumns)
    .execute();
}

/*
 * The tag links of the projects' live units as text, `unit_id,id,tag_id` joined by `;`, one row per
 * project and distinct pair of timestamps (an import writes them at one instant), so that the
 * timestamps are formatted once per pair, not once per link. In no particular order.
 */
export function readUnitPageLinks(db: Kysely<DB>, projectIds: number[]) {
  return db
    .selectFrom('unit_tag_links as l')
    .innerJoin('units as u', 'u.id', 'l.unit_id')
    .where('u.project_id', '=', sql<number>`ANY(${projectIds})`)
    .where('u.deleted_at', 'is', null)
    .groupBy(['u.project_id', 'l.created_at', 'l.updated_at'])
    .select([
      'u.project_id',
      linkCreatedAtSql().as('created_at'),
      linkUpdatedAtSql().as('updated_at'),
      sql<string>`string_agg(l.unit_id || ',' || l.id || ',' || l.tag_id, ';')`.as('links'),
    ])
    .execute();
}

/** A row of one of the reads above, as Kysely infers it. */
type RowOf<Read extends (db: Kysely<DB>, projectIds: number[]) => Promise<unknown[]>> = Awaited<ReturnType<Read>>[number];

/** One project's rows of the reads above (the project id, which groups them, left out). */
export interface UnitPageRows {
  units: Omit<RowOf<typeof readUnitPageUnits>, 'project_id'>;
  /** undefined: the project is not published. */
  project: RowOf<typeof readUnitPageProjects>['project'] | undefined;
  planFiles: Omit<RowOf<typeof readUnitPagePlanFiles>, 'project_id'>[];
  tags: RowOf<typeof readUnitPageTags>[];
  links: Omit<RowOf<typeof readUnitPageLinks>, 'project_id'>[];
}

/** The reads above for these projects, one after the other (a transaction has one connection), by project id. */
export async function readUnitPageRows(db: Kysely<DB>, projectIds: number[]): Promise<Map<number, UnitPageRows>> {
  const units = await readUnitPageUnits(db, projectIds);
  const projects = await readUnitPageProjects(db, projectIds);
  const planFiles = await readUnitPagePlanFiles(db, projectIds);
  const tags = await readUnitPageTags(db, projectIds);
  const links = await readUnitPageLinks(db, projectIds);
  const pages = new Map<number, UnitPageRows>();
  for (const id of projectIds) pages.set(id, { units: { details: '', numbers: '[]' }, project: undefined, planFiles: [], tags, links: [] });
  for (const row of units) pages.get(row.project_id)!.units = { details: row.details, numbers: row.numbers };
  for (const row of projects) pages.get(row.id)!.project = row.project;
  for (const row of planFiles) pages.get(row.project_id)!.planFiles.push({ id: row.id, file: row.file });
  for (const row of links) pages.get(row.project_id)!.links.push({ created_at: row.created_at, updated_at: row.updated_at, links: row.links });
  return pages;
}
