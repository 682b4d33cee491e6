import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { jsonArrayFrom, jsonBuildObject } from 'kysely/helpers/postgres';
import type { DB } from '../db/schema.js';
import { shownPriceSql, type DisplayCurrency } from '../domain/currency.js';

/*
 * SQL pieces of a project's listing columns, shared by the reads that serve answers (the search
 * snapshot's read, search-catalogue.ts; the project detail, project-detail.ts; the unit, units.ts) and
 * by the SQL reference of GET /projects (projects-sql-reference.ts). Every piece is written against the
 * project aliased `p`.
 */

/** An int[] parameter. */
export const intArray = (values: number[]) => sql`${sql.val(values)}::int[]`;

/** Total of the payment-plan percents of the given types over the plans `pp` aggregated; NULL (never matches) when there are none. */
const paymentShareAggregate = (types: number[]) =>
  sql<number | null>`CASE WHEN count(*) = 0 THEN NULL ELSE coalesce(sum(pp.percent) FILTER (WHERE pp.type = ANY(${intArray(types)})), 0) END`;

/** Total of the payment-plan percents of the given types; NULL (never matches) when the project has no plan. */
export function paymentShareSql(types: number[]): RawBuilder<number | null> {
  return sql<number | null>`(SELECT ${paymentShareAggregate(types)} FROM project_payment_plans pp WHERE pp.project_id = p.id)`;
}

/**
 * For a read of every project at once (the search snapshot's): each project's payment plans in one
 * grouped pass over the table, to be joined on project_id (a project without plans has no row). The
 * same values as paymentShareSql, the post-handover EXISTS and paymentPlansJson per project, which run
 * one index scan each per project: at 20,000 projects the snapshot's read spent ~1 s in them.
 */
export function paymentsByProject(db: Kysely<DB>, preTypes: number[], afterTypes: number[]) {
  return db
    .selectFrom('project_payment_plans as pp')
    .groupBy('pp.project_id')
    .select((eb) => [
      'pp.project_id',
      sql<string | null>`(${paymentShareAggregate(preTypes)})::text`.as('pre_handover_share'),
      sql<string | null>`(${paymentShareAggregate(afterTypes)})::text`.as('after_handover_share'),
      sql<boolean>`coalesce(bool_or(pp.type = 3 AND pp.percent > 0), false)`.as('post_handover'),
      eb.fn
        .jsonAgg(jsonBuildObject({ type: eb.ref('pp.type'), percent: eb.ref('pp.percent') }))
        .orderBy('pp.position')
        .as('payment_plans'),
    ]);
}

/** Likewise each project's features: their ids, and featuresJson's array (by name then id). */
export function featuresByProject(db: Kysely<DB>) {
  return db
    .selectFrom('project_feature_links as fl')
    .innerJoin('project_features as pf', 'pf.id', 'fl.feature_id')
    .groupBy('fl.project_id')
    .select((eb) => [
      'fl.project_id',
      sql<number[]>`array_agg(fl.feature_id ORDER BY fl.feature_id)`.as('feature_ids'),
      eb.fn
        .jsonAgg(jsonBuildObject({ id: eb.ref('pf.id'), name: eb.ref('pf.name'), type: eb.ref('pf.type') }))
        .orderBy('pf.name')
        .orderBy('pf.id')
        .as('features'),
    ]);
}

/** price_from (in the key's prices) and size_from over the live units of the project aliased p. */
export function unitSummary(db: Kysely<DB>, priceVector: number, display?: DisplayCurrency) {
  return unitSummaryWith(db, shownPriceSql(sql`min(u.price)`, priceVector, display));
}

/** The same, with price_from given as an expression over min(u.price) (the SQL reference's page passes it as a fragment). */
export function unitSummaryWith(db: Kysely<DB>, priceFrom: RawBuilder<number | null>) {
  return db
    .selectFrom('units as u')
    .where(sql<SqlBool>`u.project_id = p.id`)
    .where('u.deleted_at', 'is', null)
    .select([priceFrom.as('price_from'), sql<number | null>`min(u.unit_area)`.as('size_from')]);
}

/** The payment plan of the project aliased p, in plan order, as a JSON array. */
export function paymentPlansJson(db: Kysely<DB>) {
  return jsonArrayFrom(db.selectFrom('project_payment_plans as pp').where(sql<SqlBool>`pp.project_id = p.id`).select(['pp.type', 'pp.percent']).orderBy('pp.position'));
}

/** The features and amenities of the project aliased p, by name then id, as a JSON array. */
export function featuresJson(db: Kysely<DB>) {
  return jsonArrayFrom(
    db
      .selectFrom('project_feature_links as fl')
      .innerJoin('project_features as pf', 'pf.id', 'fl.feature_id')
      .where(sql<SqlBool>`fl.project_id = p.id`)
      .select(['pf.id', 'pf.name', 'pf.type'])
      .orderBy('pf.name')
      .orderBy('pf.id'),
  );
}

/** Path of the project's first image (its logo/cover), for alias p. */
export function firstImagePathSql(): RawBuilder<string | null> {
  return sql<string | null>`(SELECT f.path FROM project_images pi JOIN files f ON f.id = pi.file_id WHERE pi.project_id = p.id ORDER BY pi.position LIMIT 1)`;
}
