import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { AFTER_HANDOVER_PLAN_TYPES, FACILITY_CATEGORIES, PRE_HANDOVER_PLAN_TYPES } from '../domain/catalogue-codes.js';
import { featuresByProject, firstImagePathSql, paymentsByProject } from './project-fragments.js';
import { developersWithProjects } from './reference.js';

/*
 * Everything the in-memory search (src/search) holds, read in one go: the live projects (published,
 * not deleted) with their listing columns, the live units of those projects, the developers of
 * GET /companies and the database's own lower-case mapping. Meant to run inside one REPEATABLE READ
 * transaction so that the reads agree with each other.
 *
 * Orders and case folding are taken from the database rather than redone in JavaScript, so that they
 * are exactly what SQL gives: name/handover/creation ranks (dense_rank in the database's collation)
 * and lower() of names.
 */

/** Code points scanned for the lower-case table: planes 0 and 1 hold every cased letter. */
const LAST_CASED_CODE_POINT = 0x1ffff;

export function readSearchProjects(db: Kysely<DB>) {
  const nearest = FACILITY_CATEGORIES.map((category) => sql.ref<number | null>(`p.nearest_${category}_m`).as(`nearest_${category}_m`));
  return db
    .selectFrom('projects as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .leftJoin('files as cf', 'cf.id', 'c.logo_file_id')
    .leftJoin(paymentsByProject(db, PRE_HANDOVER_PLAN_TYPES, AFTER_HANDOVER_PLAN_TYPES).as('pay'), 'pay.project_id', 'p.id')
    .leftJoin(featuresByProject(db).as('fe'), 'fe.project_id', 'p.id')
    .where('p.is_draft', '=', false)
    .where('p.deleted_at', 'is', null)
    .select((eb) => [
      'p.id',
      'p.name',
      sql<string>`lower(p.name)`.as('name_lower'),
      sql<number>`dense_rank() OVER (ORDER BY p.name)`.as('name_rank'),
      'p.status',
      'p.type',
      'p.development_status',
      'p.is_branded',
      'p.is_resale',
      sql<boolean>`btrim(p.escrow_account) <> ''`.as('is_escrow'),
      'p.handover_date',
      // Exact seconds since the epoch with the microseconds (numeric text), for the handover bounds.
      sql<string | null>`extract(epoch from p.handover_date)::text`.as('handover_epoch'),
      sql<number>`dense_rank() OVER (ORDER BY p.handover_date)`.as('handover_rank'),
      sql<number>`dense_rank() OVER (ORDER BY p.created_at)`.as('created_rank'),
      'p.currency',
      'p.area_id',
      'p.latitude',
      'p.longitude',
      ...nearest,
      firstImagePathSql().as('logo_path'),
      'c.id as company_id',
      'c.company_name',
      sql<string>`lower(c.company_name)`.as('company_name_lower'),
      'cf.path as company_logo_path',
      'pay.pre_handover_share',
      'pay.after_handover_share',
      sql<boolean>`coalesce(pay.post_handover, false)`.as('post_handover'),
      sql<number[]>`coalesce(fe.feature_ids, '{}')`.as('feature_ids'),
      // Projects without plans or features have no row in those joins: an empty list, as featuresJson gives.
      eb.fn.coalesce('pay.payment_plans', sql<[]>`'[]'::json`).as('payment_plans'),
      eb.fn.coalesce('fe.features', sql<[]>`'[]'::json`).as('features'),
    ])
    .orderBy('p.id')
    .execute();
}

export type SearchProjectRow = Awaited<ReturnType<typeof readSearchProjects>>[number];

/*
 * Live units of live projects, one text per project (ascending project id): units in id order, `;`
 * between units, each `id bedrooms status parking price area tag,tag`, price `-` when none. Read as
 * rows of columns, the pg driver spends seconds on L's units parsing every value and array; as text,
 * the database aggregates and JavaScript splits it in a fraction of that (docs/performance.md,
 * "Snapshot read"). The texts are exact: numeric(16, 2) is written with its two decimals, float8 as its
 * shortest exact form.
 * GET /units/{id}'s other columns are read per project when a unit of it is asked
 * (src/queries/unit-details.ts).
 */
export function readSearchUnits(db: Kysely<DB>) {
  return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .where('u.deleted_at', 'is', null)
    .where('p.is_draft', '=', false)
    .where('p.deleted_at', 'is', null)
    .groupBy('u.project_id')
    .select([
      'u.project_id',
      sql<string>`string_agg(concat_ws(' ', u.id, u.bedrooms, u.status, u.parking, coalesce(u.price::text, '-'), u.unit_area::text, array_to_string(u.tag_ids, ',')), ';' ORDER BY u.id)`.as('units'),
    ])
    .orderBy('u.project_id')
    .execute();
}

export type SearchUnitRow = Awaited<ReturnType<typeof readSearchUnits>>[number];

/** GET /companies before the key's contracts are applied, in its order. */
export function readSearchDevelopers(db: Kysely<DB>) {
  return developersWithProjects(db).execute();
}

/** Code point -> lower() of it, for every code point the database's lower() changes. */
export async function readLowerCaseTable(db: Kysely<DB>): Promise<Map<number, string>> {
  const { rows } = await sql<{ cp: number; lower: string }>`
    SELECT cp, lower(chr(cp)) AS lower FROM generate_series(1, ${sql.lit(LAST_CASED_CODE_POINT)}) AS cp
    WHERE (cp < 55296 OR cp > 57343) AND lower(chr(cp)) <> chr(cp)`.execute(db);
  return new Map(rows.map((row) => [row.cp, row.lower]));
}
