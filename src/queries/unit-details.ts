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

/** The project's live units of that id, as a subquery. */
const liveUnitIds = (eb: AnyEb, projectId: number) =>
  eb.selectFrom('units as lu').where('lu.project_id', '=', projectId).where('lu.deleted_at', 'is', null).select('lu.id');

/**
 * The project's live units' own columns in id order (the snapshot's order within a project):
 * `id,furnishing,floor,plan_file_id,created_at,updated_at` per unit, `;` between units, timestamps in
 * their text form, read with the drivers' own parser (src/db/type-parsers.mjs); plan_file_id 0: none
 * (ids are positive). unit_number (any text) as a JSON array of strings, in the same order.
 */
export function readUnitPageUnits(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('units as u')
    .where('u.project_id', '=', projectId)
    .where('u.deleted_at', 'is', null)
    .select([
      sql<string>`coalesce(string_agg(concat_ws(',', u.id, u.furnishing, u.floor, coalesce(u.plan_file_id, 0), u.created_at::text, u.updated_at::text), ';' ORDER BY u.id), '')`.as('details'),
      sql<string>`coalesce(json_agg(u.unit_number ORDER BY u.id)::text, '[]')`.as('numbers'),
    ])
    .executeTakeFirstOrThrow();
}

/** The published project's `project` object of the unit answer (undefined: not published). */
export function readUnitPageProject(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('projects as p')
    .where('p.id', '=', projectId)
    .where(projectPublishedSql('p'))
    .select((eb) => projectModel(eb as unknown as AnyEb, 'p.id').$notNull().as('project'))
    .executeTakeFirst();
}

/** The plan files of the project's live units, as `plan_file` shows them (before the link). */
export function readUnitPagePlanFiles(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('files as f')
    .where('f.id', 'in', (eb) =>
      eb
        .selectFrom('units as u')
        .where('u.project_id', '=', projectId)
        .where('u.deleted_at', 'is', null)
        .where('u.plan_file_id', 'is not', null)
        .select('u.plan_file_id'),
    )
    .select((eb) => ['f.id', fileJson(eb as unknown as AnyEb, 'f.id').$notNull().as('file')])
    .execute();
}

/** The unit tags linked to the project's live units, as a link's `preference` shows them. */
export function readUnitPageTags(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('unit_tags as pt')
    .where('pt.id', 'in', (eb) => eb.selectFrom('unit_tag_links as l').where('l.unit_id', 'in', liveUnitIds(eb as unknown as AnyEb, projectId)).select('l.tag_id'))
    .select(unitTagColumns)
    .execute();
}

/*
 * The tag links of the project's live units as text, `unit_id,id,tag_id` joined by `;`, one row per
 * distinct pair of timestamps (an import writes them at one instant), so that the timestamps are
 * formatted once per pair, not once per link. In no particular order.
 */
export function readUnitPageLinks(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('unit_tag_links as l')
    .where('l.unit_id', 'in', (eb) => liveUnitIds(eb as unknown as AnyEb, projectId))
    .groupBy(['l.created_at', 'l.updated_at'])
    .select([
      linkCreatedAtSql().as('created_at'),
      linkUpdatedAtSql().as('updated_at'),
      sql<string>`string_agg(l.unit_id || ',' || l.id || ',' || l.tag_id, ';')`.as('links'),
    ])
    .execute();
}

/** The reads above for one project, one after the other (a transaction has one connection). */
export async function readUnitPageRows(db: Kysely<DB>, projectId: number) {
  const units = await readUnitPageUnits(db, projectId);
  const project = (await readUnitPageProject(db, projectId))?.project;
  const planFiles = await readUnitPagePlanFiles(db, projectId);
  const tags = await readUnitPageTags(db, projectId);
  const links = await readUnitPageLinks(db, projectId);
  return { units, project, planFiles, tags, links };
}

export type UnitPageRows = Awaited<ReturnType<typeof readUnitPageRows>>;
