import { sql, type ExpressionBuilder, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { preparedQuery } from '../db/prepared-query.js';
import type { DB } from '../db/schema.js';
import { aedPerUnitSql, shownCurrencySql, shownPriceSql, type ReadScope } from '../domain/currency.js';
import type { KeyScope } from '../domain/key-scope.js';
import { featuresJson, firstImagePathSql, paymentPlansJson, unitSummary } from './project-fragments.js';
import type { NearbyForm } from '../contract/nearby-facilities.js';
import { summaryFacilityJsonSql } from './project-nearby.js';
import { projectIsVisible } from './visibility.js';

/*
 * GET /projects/{id} in two round trips: the project row with every block as a JSON sub-select, then,
 * for a visible project only, its nearby facilities as JSON text made of each facility's stored text.
 * That block is most of the response (about 1,000 facilities of 30 to 50 fields within 2 km of a
 * central project): building it as JSON in the query and parsing it again cost 5x more.
 * Timestamps inside JSON are formatted like the drivers format top-level ones (RFC 3339, UTC, ms), so a
 * client sees one notation whatever the nesting.
 */

/** A timestamptz column as the RFC 3339 UTC text the drivers produce for top-level columns. */
export function isoTimestampSql(column: Expression<unknown> | RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

type AnyEb = ExpressionBuilder<DB, keyof DB>;

/** `{...file}` or null for the file whose id is the given column (e.g. `p.brochure_file_id`). */
export function fileJson(eb: AnyEb, fileIdColumn: string) {
  return jsonObjectFrom(
    eb
      .selectFrom('files as fj')
      .where('fj.id', '=', sql.ref<number>(fileIdColumn))
      .select([
        'fj.id',
        'fj.original_name',
        'fj.storage_name',
        'fj.mime_type',
        'fj.path',
        'fj.size',
        isoTimestampSql(sql.ref('fj.created_at')).as('created_at'),
        isoTimestampSql(sql.ref('fj.updated_at')).as('updated_at'),
      ]),
  );
}

/** A file row as stored (as fileJson reads it); the route adds `url` (links depend on configuration, not on data). */
export type FileRow = NonNullable<ReturnType<typeof fileJson>['expressionType']>;

/** Which nearby facilities the detail carries: those closer than the radius (AMENITIEST_RADIUS; every one when undefined). */
export interface NearbyOptions {
  amenitiesRadiusM: number | undefined;
  /** The nearest N per category (nearby_limit); every one when undefined. */
  limit?: number | undefined;
  /** `summary`: each facility reduced to SUMMARY_FACILITY_FIELDS (src/contract/nearby-facilities.ts). */
  form?: NearbyForm | undefined;
}

/** The visible project with every block, or undefined (unknown, draft, deleted, not contracted: all alike). */
export async function findProjectDetail(
  db: Kysely<DB>,
  scope: ReadScope,
  projectId: number,
  nearbyOptions: NearbyOptions | undefined,
) {
  const args = { projectId, price_vector: scope.price_vector, contracted_developer_ids: scope.contracted_developer_ids };
  const [row] = scope.display
    ? await projectDetailInCurrencyQuery(db, { ...args, display_currency: scope.display.currency, display_digits: scope.display.digits })
    : await projectDetailQuery(db, args);
  if (!row) return undefined;
  // No nearby options: the block is not asked for (a field selection without it), and not looked up.
  const nearby = nearbyOptions
    ? await nearbyFacilitiesQuery(db, {
        projectId,
        amenitiesRadiusM: nearbyOptions.amenitiesRadiusM ?? null,
        limit: nearbyOptions.limit ?? null,
        summary: nearbyOptions.form === 'summary',
      })
    : [];
  return { ...row, nearby };
}

/** GET /projects/{id}'s row as Kysely infers it from the two queries (their SQL is its one definition). */
export type ProjectDetailRow = NonNullable<Awaited<ReturnType<typeof findProjectDetail>>>;

/*
 * The project's linked facilities closer than the radius (every one when null), one row per category
 * with its entries already as JSON text. PostgreSQL joins the ~1,000 stored texts in C; the service
 * only passes them through (per-row strings in the service cost more CPU than the whole query).
 * distance_m::text is the shortest text that reads back as the same double (float output of
 * PostgreSQL 12+ at the default extra_float_digits), a valid JSON number.
 */
interface NearbyQueryParams {
  projectId: number;
  amenitiesRadiusM: number | null;
  limit: number | null;
  summary: boolean;
}

/*
 * The nearest `limit` of each category: ranked in the order of the full block (distance, then facility
 * id), so the limited block is a prefix of the full one. The summary text keeps the record's own order
 * and value texts (json_each of the compact stored text), so it is the full record with fields removed.
 */
const nearbyFacilitiesQuery = preparedQuery(
  (db: Kysely<DB>, { projectId, amenitiesRadiusM, limit, summary }: NearbyQueryParams) =>
    db
      .selectFrom((sub) =>
        sub
          .selectFrom('project_facilities as pfa')
          .innerJoin('facilities as f', 'f.id', 'pfa.facility_id')
          .where('pfa.project_id', '=', projectId)
          .where(sql<SqlBool>`pfa.distance_m < coalesce(${amenitiesRadiusM}::double precision, 'Infinity')`)
          .select([
            'pfa.category',
            'pfa.distance_m',
            'f.id',
            'f.facility_json',
            sql<number>`row_number() OVER (PARTITION BY pfa.category ORDER BY pfa.distance_m, f.id)`.as('rank'),
          ])
          .as('n'),
      )
      .where(sql<SqlBool>`n.rank <= coalesce(${limit}::bigint, 9223372036854775807)`)
      .groupBy('n.category')
      .select([
        'n.category',
        sql<string>`string_agg(concat('{"distance":', n.distance_m, ',"facility":', CASE WHEN ${summary}::boolean THEN ${summaryFacilityJsonSql(sql<string>`n.facility_json`)} ELSE n.facility_json END, '}'), ',' ORDER BY n.distance_m, n.id)`.as('entries_json'),
      ]),
  ['projectId', 'amenitiesRadiusM', 'limit', 'summary'],
);

type DetailArgs = KeyScope & { projectId: number; price_vector: number; display_currency?: string; display_digits?: number };

/** The detail in the key's prices or, `inCurrency`, converted to the asked currency (as unitQueryBuilder in units.ts). */
const detailBuilder =
  (inCurrency: boolean) =>
  (db: Kysely<DB>, { projectId, display_currency, display_digits, ...scope }: DetailArgs) => {
    const display = inCurrency ? { currency: display_currency!, digits: display_digits! } : undefined;
    return db
    .selectFrom('projects as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .leftJoin('files as cf', 'cf.id', 'c.logo_file_id')
    .leftJoin('areas as a', 'a.id', 'p.area_id')
    .leftJoinLateral(unitSummary(db, scope.price_vector, display).as('us'), (join) => join.onTrue())
    .where('p.id', '=', projectId)
    .where(projectIsVisible(scope))
    .select((eb) => [
      'p.id',
      'p.name',
      'p.description',
      'p.type',
      'p.status',
      'p.development_status',
      'p.is_branded',
      'p.is_resale',
      sql<boolean>`btrim(p.escrow_account) <> ''`.as('is_escrow'),
      'p.handover_date',
      'p.launch_date',
      'p.launch_time',
      'p.readiness_progress',
      'p.total_floors',
      'p.developer_registration_id',
      'p.trakheesi_project_id',
      'p.escrow_account',
      'p.oqood_registration',
      'p.resale_conditions',
      'p.floors_formula',
      shownCurrencySql(display).as('currency'),
      'p.commission_type',
      // A fee, not a sales price: converted with `currency=` (factor 1), never marked up.
      (display ? sql<number | null>`(CASE WHEN ${aedPerUnitSql(sql.ref('p.currency'))} IS NULL THEN p.service_charge ELSE ${shownPriceSql(sql.ref('p.service_charge'), 0, display)} END)` : sql<number | null>`p.service_charge`).as('service_charge'),
      'p.area_id',
      'a.name as area_name',
      'a.city as area_city',
      'p.address',
      'p.latitude',
      'p.longitude',
      'p.tours',
      'p.presentations',
      'p.created_at',
      'p.updated_at',
      'us.price_from',
      'us.size_from',
      firstImagePathSql().as('logo_path'),
      'c.id as company_id',
      'c.company_name',
      'cf.path as company_logo_path',
      paymentPlansJson(db).as('payment_plans'),
      jsonArrayFrom(
        eb
          .selectFrom('project_images as pi')
          .whereRef('pi.project_id', '=', 'p.id')
          // Not null: pi.file_id is a foreign key (NOT NULL).
          .select((inner) => ['pi.position', fileJson(inner as unknown as AnyEb, 'pi.file_id').$notNull().as('file')])
          .orderBy('pi.position'),
      ).as('images'),
      fileJson(eb as unknown as AnyEb, 'p.floor_plan_file_id').as('floor_plan_file'),
      fileJson(eb as unknown as AnyEb, 'p.brochure_file_id').as('brochure_file'),
      fileJson(eb as unknown as AnyEb, 'p.general_plan_file_id').as('general_plan_file'),
      jsonArrayFrom(
        eb
          .selectFrom('units as u')
          .whereRef('u.project_id', '=', 'p.id')
          .where('u.deleted_at', 'is', null)
          .select([
            'u.id',
            'u.unit_number',
            'u.bedrooms',
            'u.status',
            'u.furnishing',
            shownPriceSql(sql.ref('u.price'), scope.price_vector, display).as('price'),
            'u.unit_area',
          ])
          .orderBy('u.unit_number')
          .orderBy('u.id'),
      ).as('units'),
      featuresJson(db).as('features'),
    ]);
  };

const projectDetailQuery = preparedQuery(detailBuilder(false), ['projectId', 'price_vector', 'contracted_developer_ids']);
const projectDetailInCurrencyQuery = preparedQuery(detailBuilder(true), ['projectId', 'price_vector', 'contracted_developer_ids', 'display_currency', 'display_digits']);
