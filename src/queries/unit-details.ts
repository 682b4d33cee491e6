import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { fileJson } from './project-detail.js';
import { linkCreatedAtSql, linkUpdatedAtSql, projectModel, unitTagColumns } from './units.js';
import { projectPublishedSql } from './visibility.js';

/*
 * What the search snapshot reads to answer GET /units/{id} from memory (src/search/unit-details.ts),
 * with the very expressions of the unit query (src/queries/units.ts), so that every value is the one
 * the SQL path gives. The units' own columns come with the search's unit read (readSearchUnits).
 * Meant to run inside the snapshot's REPEATABLE READ transaction.
 */

type AnyEb = ExpressionBuilder<DB, keyof DB>;

/** Every published project's `project` object of the unit answer, by ascending id. */
export function readUnitProjects(db: Kysely<DB>) {
  return db
    .selectFrom('projects as p')
    .where(projectPublishedSql('p'))
    .select((eb) => ['p.id', projectModel(eb as unknown as AnyEb, 'p.id').$notNull().as('project')])
    .orderBy('p.id')
    .execute();
}

/** The plan files of live units of published projects, as `plan_file` shows them (before the link). */
export function readUnitPlanFiles(db: Kysely<DB>) {
  return db
    .selectFrom('files as f')
    .where('f.id', 'in', (eb) =>
      eb
        .selectFrom('units as u')
        .innerJoin('projects as p', 'p.id', 'u.project_id')
        .where('u.deleted_at', 'is', null)
        .where(projectPublishedSql('p'))
        .where('u.plan_file_id', 'is not', null)
        .select('u.plan_file_id'),
    )
    .select((eb) => ['f.id', fileJson(eb as unknown as AnyEb, 'f.id').$notNull().as('file')])
    .execute();
}

/** Every unit tag, as a link's `preference` shows it. */
export function readUnitTags(db: Kysely<DB>) {
  return db.selectFrom('unit_tags as pt').select(unitTagColumns).execute();
}

/*
 * Every unit-tag link as text, `unit_id,id,tag_id` joined by `;`, one row per distinct pair of
 * timestamps (an import writes them all at one instant: on L, one row for ~400,000 links), so that
 * the timestamps are formatted once per pair, not once per link. In no particular order; links of
 * deleted units and unpublished projects are among them (the snapshot skips units it does not hold).
 */
export function readUnitTagLinks(db: Kysely<DB>) {
  return db
    .selectFrom('unit_tag_links as l')
    .groupBy(['l.created_at', 'l.updated_at'])
    .select([
      linkCreatedAtSql().as('created_at'),
      linkUpdatedAtSql().as('updated_at'),
      sql<string>`string_agg(l.unit_id || ',' || l.id || ',' || l.tag_id, ';')`.as('links'),
    ])
    .execute();
}

/** The four reads above, one after the other (a transaction has one connection). */
export async function readUnitDetailRows(db: Kysely<DB>) {
  const projects = await readUnitProjects(db);
  const planFiles = await readUnitPlanFiles(db);
  const tags = await readUnitTags(db);
  const links = await readUnitTagLinks(db);
  return { projects, planFiles, tags, links };
}

export type UnitDetailRows = Awaited<ReturnType<typeof readUnitDetailRows>>;
