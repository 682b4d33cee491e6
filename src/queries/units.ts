import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { preparedQuery } from '../db/prepared-query.js';
import type { DB } from '../db/schema.js';
import { shownCurrencySql, shownPriceSql } from '../domain/currency.js';
import { fileJson, isoTimestampSql, type FileRow } from './project-detail.js';
import type { ReadScope } from '../domain/currency.js';
import type { KeyScope } from '../domain/key-scope.js';
import { projectIsVisible } from './visibility.js';

/*
 * GET /units/{id} returns the data model as it is: the unit and its project in snake_case, except the
 * project's CreatedAt/UpdatedAt and its company and author, which keep the PascalCase of the platform's
 * model. The keys are spelled here, in the SQL aliases, and nowhere else.
 */

type AnyEb = ExpressionBuilder<DB, keyof DB>;
const iso = (column: string) => isoTimestampSql(sql.ref(column));

function companyModel(eb: AnyEb) {
  return jsonObjectFrom(
    eb
      .selectFrom('companies as mc')
      .whereRef('mc.id', '=', sql.ref('pr.company_id'))
      .select((inner) => [
        'mc.id as ID',
        'mc.company_type as CompanyType',
        'mc.company_name as CompanyName',
        'mc.legal_name as LegalName',
        'mc.trade_license_code as TradeLicenseCode',
        'mc.rera_license_code as ReraLicenseCode',
        'mc.preferred_contact_email as PreferredContactEmail',
        'mc.preferred_contact_phone as PreferredContactPhone',
        'mc.office_address as OfficeAddress',
        'mc.po_box_number as POBoxNumber',
        'mc.logo_file_id as LogoFileID',
        fileJson(inner as unknown as AnyEb, 'mc.logo_file_id').as('LogoFile'),
        'mc.organisation_description as OrganisationDescription',
        'mc.specialisation as Specialisation',
        'mc.project_portfolio_url as ProjectPortfolioURL',
        'mc.trade_license_document_verified as TradeLicenseDocumentVerified',
        'mc.rera_certificate_verified as ReraCertificateVerified',
        'mc.identification_document_verified as IdentificationDocumentVerified',
        'mc.status as Status',
        iso('mc.created_at').as('CreatedAt'),
        iso('mc.updated_at').as('UpdatedAt'),
      ]),
  );
}

function authorModel(eb: AnyEb) {
  return jsonObjectFrom(
    eb
      .selectFrom('users as mu')
      .whereRef('mu.id', '=', sql.ref('pr.author_id'))
      .select([
        'mu.id as ID',
        'mu.name as Name',
        'mu.email as Email',
        'mu.status as Status',
        'mu.type as Type',
        iso('mu.created_at').as('CreatedAt'),
        iso('mu.updated_at').as('UpdatedAt'),
        iso('mu.deleted_at').as('DeletedAt'),
      ]),
  );
}

/** The unit's `project` object, for the project whose id is the given column (`u.project_id`; the snapshot reads it per project). */
export function projectModel(eb: AnyEb, projectIdColumn: string) {
  return jsonObjectFrom(
    eb
      .selectFrom('projects as pr')
      .whereRef('pr.id', '=', sql.ref(projectIdColumn))
      .select((inner) => {
        const ieb = inner as unknown as AnyEb;
        return [
          'pr.id',
          'pr.company_id',
          'pr.author_id',
          'pr.area_id',
          // Not null: the project's company_id is a foreign key (NOT NULL).
          companyModel(ieb).$notNull().as('company'),
          authorModel(ieb).as('author'),
          jsonObjectFrom(
            ieb
              .selectFrom('areas as ma')
              .whereRef('ma.id', '=', sql.ref('pr.area_id'))
              .select(['ma.id', 'ma.name', 'ma.city', iso('ma.created_at').as('created_at'), iso('ma.updated_at').as('updated_at')]),
          ).as('area'),
          'pr.name',
          'pr.description',
          'pr.developer_registration_id',
          'pr.trakheesi_project_id',
          'pr.escrow_account',
          'pr.oqood_registration',
          'pr.type',
          'pr.status',
          'pr.development_status',
          'pr.readiness_progress',
          'pr.total_floors',
          iso('pr.launch_date').as('launch_date'),
          'pr.launch_time',
          'pr.resale_conditions',
          'pr.floors_formula',
          'pr.is_draft',
          'pr.is_branded',
          'pr.service_charge',
          'pr.floor_plan_file_id',
          'pr.brochure_file_id',
          'pr.general_plan_file_id',
          fileJson(ieb, 'pr.floor_plan_file_id').as('floor_plan_file'),
          fileJson(ieb, 'pr.brochure_file_id').as('brochure_file'),
          fileJson(ieb, 'pr.general_plan_file_id').as('general_plan_file'),
          iso('pr.created_at').as('CreatedAt'),
          iso('pr.updated_at').as('UpdatedAt'),
        ];
      }),
  );
}

/** A unit tag (unit_tags aliased pt) as the unit's `preferences[].preference` shows it. */
export const unitTagColumns = ['pt.id', 'pt.name', iso('pt.created_at').as('created_at'), iso('pt.updated_at').as('updated_at')] as const;

/** A link's timestamps (unit_tag_links aliased l) as `preferences[]` shows them. */
export const linkCreatedAtSql = () => iso('l.created_at');
export const linkUpdatedAtSql = () => iso('l.updated_at');

/**
 * The live unit of a visible project, or undefined (any reason, alike). GET /units/{id} is answered
 * from the search snapshot (src/search/find-unit.ts); this query stays as its reference (the
 * differential test, test/unit-detail-differential.test.ts) and serves the MCP tool get_unit.
 */
export async function findUnit(db: Kysely<DB>, scope: ReadScope, unitId: number) {
  const args = { unitId, price_vector: scope.price_vector, contracted_developer_ids: scope.contracted_developer_ids };
  const rows = scope.display
    ? await unitInCurrencyQuery(db, { ...args, display_currency: scope.display.currency, display_digits: scope.display.digits })
    : await unitQuery(db, args);
  return rows.at(0);
}

/** GET /units/{id}'s row as Kysely infers it from the unit query (the one spelling of its keys). */
export type UnitModelRow = NonNullable<Awaited<ReturnType<typeof findUnit>>>;

type UnitQueryArgs = KeyScope & { unitId: number; price_vector: number; display_currency?: string; display_digits?: number };

/**
 * The unit query, in the key's prices (the specified answer) or, `inCurrency`, converted to the asked
 * currency with a `currency` field saying which (two prepared statements: the builder never branches
 * on a value, only on which of the two it builds).
 */
const unitQueryBuilder =
  (inCurrency: boolean) =>
  (db: Kysely<DB>, { unitId, display_currency, display_digits, ...scope }: UnitQueryArgs) => {
    const display = inCurrency ? { currency: display_currency!, digits: display_digits! } : undefined;
    return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .where('u.id', '=', unitId)
    .where('u.deleted_at', 'is', null)
    .where(projectIsVisible(scope))
    .select((eb) => {
      const anyEb = eb as unknown as AnyEb;
      return [
        'u.id',
        'u.project_id',
        'u.unit_number',
        'u.bedrooms',
        'u.status',
        'u.furnishing',
        'u.parking',
        'u.floor',
        shownPriceSql(sql.ref('u.price'), scope.price_vector, display).as('price'),
        ...(display ? [shownCurrencySql(display).as('currency')] : []),
        'u.unit_area',
        'u.plan_file_id',
        fileJson(anyEb, 'u.plan_file_id').as('plan_file'),
        jsonArrayFrom(
          anyEb
            .selectFrom('unit_tag_links as l')
            .whereRef('l.unit_id', '=', sql.ref('u.id'))
            .select((inner) => [
              'l.id',
              'l.unit_id',
              'l.tag_id as preference_id',
              jsonObjectFrom(
                (inner as unknown as AnyEb)
                  .selectFrom('unit_tags as pt')
                  .whereRef('pt.id', '=', sql.ref('l.tag_id'))
                  .select(unitTagColumns),
              )
                // Not null: tag_id is a foreign key (NOT NULL).
                .$notNull()
                .as('preference'),
              linkCreatedAtSql().as('created_at'),
              linkUpdatedAtSql().as('updated_at'),
            ])
            .orderBy('l.id'),
        ).as('preferences'),
        // Not null: the unit's project is the inner-joined `p`.
        projectModel(anyEb, 'u.project_id').$notNull().as('project'),
        'u.created_at',
        'u.updated_at',
      ];
    });
  };

const unitQuery = preparedQuery(unitQueryBuilder(false), ['unitId', 'price_vector', 'contracted_developer_ids']);
const unitInCurrencyQuery = preparedQuery(unitQueryBuilder(true), ['unitId', 'price_vector', 'contracted_developer_ids', 'display_currency', 'display_digits']);
