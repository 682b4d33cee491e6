import { sql, type Compilable, type Expression, type InferResult, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
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

/*
 * A project's payment plan (`{type, percent}` in plan order) and its features (`{id, name, type}` by
 * name then id), each written once, as an aggregate per project_id: the search snapshot's read joins
 * them for every project at once (one grouped pass over the table rather than a subquery per project),
 * the project detail and the SQL reference pick the row of the project aliased p (PostgreSQL pushes
 * `project_id = p.id` into the grouping: one index scan per project; docs/performance.md, "Snapshot
 * read").
 */
function planEntries(db: Kysely<DB>) {
  return db
    .selectFrom('project_payment_plans as pp')
    .groupBy('pp.project_id')
    .select((eb) => ['pp.project_id', eb.fn.jsonAgg(jsonBuildObject({ type: eb.ref('pp.type'), percent: eb.ref('pp.percent') })).orderBy('pp.position').as('payment_plans')]);
}

function featureEntries(db: Kysely<DB>) {
  return db
    .selectFrom('project_feature_links as fl')
    .innerJoin('project_features as pf', 'pf.id', 'fl.feature_id')
    .groupBy('fl.project_id')
    .select((eb) => [
      'fl.project_id',
      eb.fn
        .jsonAgg(jsonBuildObject({ id: eb.ref('pf.id'), name: eb.ref('pf.name'), type: eb.ref('pf.type') }))
        .orderBy('pf.name')
        .orderBy('pf.id')
        .as('features'),
    ]);
}

/**
 * For the search snapshot's read: each project's payment plans, with the shares and the post-handover
 * flag of the same pass (the values paymentShareSql and the post-handover EXISTS give per project), to
 * be joined on project_id (a project without plans has no row).
 */
export function paymentsByProject(db: Kysely<DB>, preTypes: number[], afterTypes: number[]) {
  return planEntries(db).select([
    sql<string | null>`(${paymentShareAggregate(preTypes)})::text`.as('pre_handover_share'),
    sql<string | null>`(${paymentShareAggregate(afterTypes)})::text`.as('after_handover_share'),
    sql<boolean>`coalesce(bool_or(pp.type = 3 AND pp.percent > 0), false)`.as('post_handover'),
  ]);
}

/** Likewise each project's features: their ids, and their entries. */
export function featuresByProject(db: Kysely<DB>) {
  return featureEntries(db).select(sql<number[]>`array_agg(fl.feature_id ORDER BY fl.feature_id)`.as('feature_ids'));
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

/** The payment plan of the project aliased p, as a JSON array ([] without plans). */
export function paymentPlansJson(db: Kysely<DB>): RawBuilder<PaymentPlanList> {
  return listOfProject(planEntries(db), 'payment_plans');
}

/** The features and amenities of the project aliased p, as a JSON array ([] without any). */
export function featuresJson(db: Kysely<DB>): RawBuilder<FeatureList> {
  return listOfProject(featureEntries(db), 'features');
}

/**
 * Column `list` of a grouped read, for the project aliased p (Kysely writes the embedded read in
 * parentheses). The coalesce is outside the subquery: a project without rows has no group, so the
 * subquery gives no row (NULL), not an empty list.
 */
function listOfProject<T>(entries: Compilable & Expression<unknown>, list: 'payment_plans' | 'features'): RawBuilder<T> {
  return sql<T>`coalesce((SELECT ${sql.ref(`e.${list}`)} FROM ${entries} AS e WHERE e.project_id = p.id), '[]'::json)`;
}

/** The lists as the grouped reads above select them (one definition: their types follow it). */
type PaymentPlanList = InferResult<ReturnType<typeof planEntries>>[number]['payment_plans'];
type FeatureList = InferResult<ReturnType<typeof featureEntries>>[number]['features'];

/** Path of the project's first image (its logo/cover), for alias p. */
export function firstImagePathSql(): RawBuilder<string | null> {
  return sql<string | null>`(SELECT f.path FROM project_images pi JOIN files f ON f.id = pi.file_id WHERE pi.project_id = p.id ORDER BY pi.position LIMIT 1)`;
}
