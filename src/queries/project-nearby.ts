import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/schema.js';
import { SUMMARY_FACILITY_FIELDS, type NearbyForm } from '../contract/nearby-facilities.js';
import { projectPublishedSql } from './visibility.js';

/*
 * What the search snapshot reads to answer the nearby block of GET /projects/{id} from memory
 * (src/search/project-nearby.ts), with the very expressions of the detail's nearby query
 * (src/queries/project-detail.ts): the facility texts, full and summary, once per facility, and the
 * links of each published project with their distance as text, so every byte is the SQL path's.
 * Meant to run inside the snapshot's REPEATABLE READ transaction.
 */

/** A facility's summary form: its stored text with the fields other than SUMMARY_FACILITY_FIELDS removed (same order, same value texts). */
export function summaryFacilityJsonSql(facilityJson: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`(
    SELECT concat('{', string_agg(concat(to_json(e.key)::text, ':', e.value::text), ',' ORDER BY e.ordinality), '}')
    FROM json_each(${facilityJson}::json) WITH ORDINALITY AS e(key, value, ordinality)
    WHERE e.key = ANY(${sql.val([...SUMMARY_FACILITY_FIELDS])}::text[])
  )`;
}

/** Every facility linked to a published project, with its full and summary text, by id. */
export function readNearbyFacilityTexts(db: Kysely<DB>) {
  return db
    .selectFrom('facilities as f')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('project_facilities as pfa')
          .innerJoin('projects as p', 'p.id', 'pfa.project_id')
          .whereRef('pfa.facility_id', '=', 'f.id')
          .where(projectPublishedSql('p'))
          .select(sql`1`.as('one')),
      ),
    )
    .select(['f.id', 'f.facility_json', summaryFacilityJsonSql(sql.ref('f.facility_json')).as('summary_json')])
    .orderBy('f.id')
    .execute();
}

/*
 * The links of the given projects, one row per project and category: `facility_id,distance` joined by
 * `;`, in the block's order (distance, then facility id). The distance is its text as the nearby query
 * writes it (the shortest text that reads back as the same double), so the snapshot keeps the double.
 */
export function readNearbyLinks(db: Kysely<DB>, projectIds: readonly number[]) {
  return db
    .selectFrom('project_facilities as pfa')
    .where('pfa.project_id', '=', sql<number>`ANY(${sql.val(projectIds)}::int[])`)
    .groupBy(['pfa.project_id', 'pfa.category'])
    .select([
      'pfa.project_id',
      'pfa.category',
      sql<string>`string_agg(concat(pfa.facility_id, ',', pfa.distance_m), ';' ORDER BY pfa.distance_m, pfa.facility_id)`.as('links'),
    ])
    .execute();
}

/** The given facilities' texts in one form, as the snapshot reads them (GET /projects/{id}'s nearby block on demand). */
export function readFacilityTexts(db: Kysely<DB>, facilityIds: readonly number[], form: NearbyForm) {
  const text = form === 'summary' ? summaryFacilityJsonSql(sql.ref('f.facility_json')) : sql<string>`f.facility_json`;
  return db
    .selectFrom('facilities as f')
    .where('f.id', '=', sql<number>`ANY(${sql.val(facilityIds)}::int[])`)
    .select(['f.id', text.as('text')])
    .execute();
}

export type NearbyFacilityTextRow = Awaited<ReturnType<typeof readNearbyFacilityTexts>>[number];
export type NearbyLinkRow = Awaited<ReturnType<typeof readNearbyLinks>>[number];
