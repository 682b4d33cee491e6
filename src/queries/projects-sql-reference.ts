import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { preparedQuery } from '../db/prepared-query.js';
import type { DB } from '../db/schema.js';
import { likeContains, type ProjectFilters, type ProjectSort, type ProjectsPage, type Range, type UnitFilters } from '../domain/project-filters.js';
import { AFTER_HANDOVER_PLAN_TYPES, PRE_HANDOVER_PLAN_TYPES } from '../domain/catalogue-codes.js';
import { haversineSql, inBoxSql, inShapeSql } from '../domain/geo.js';
import { aedValueSql, convertedOnlySql, shownCurrencySql, shownPriceSql, type DisplayCurrency, type ReadScope } from '../domain/currency.js';
import { baseLowerBoundSql, baseUpperBoundSql, FT2_PER_M2, keyPriceSql } from '../domain/pricing.js';
import type { ProjectListRow } from '../contract/presenters/projects.js';
import type { ProjectMatch } from '../contract/schemas/projects.js';
import { featuresJson, firstImagePathSql, intArray, paymentPlansJson, paymentShareSql, unitSummaryWith } from './project-fragments.js';
import type { KeyScope } from '../domain/key-scope.js';
import { projectIsVisible } from './visibility.js';

/*
 * THE REFERENCE OF THE DIFFERENTIAL TESTS, not the live route: GET /projects is served by the in-memory
 * search (src/search/find-projects.ts). This is the same search written in SQL, the path it replaced,
 * and test/search-differential.test.ts, test/unit-summary.test.ts and
 * test/project-conditions.unit.test.ts hold the search to it. Keep it in step with every filter, sort
 * and facet rule of the route. The fragments production reads share with it live in
 * project-fragments.ts.
 *
 * GET /projects in two steps inside one statement: first the page of matching ids (with the total as a
 * window count), then the nested JSON (payment plans, features, price_from...) for those ids only, so
 * the cost of building items does not grow with the number of matches.
 */

export interface ListContext {
  /** AMENITIEST_RADIUS, metres; undefined: every linked facility counts. */
  amenitiesRadiusM: number | undefined;
}

type Condition = RawBuilder<SqlBool>;

const and = (conditions: Condition[]): Condition => sql<SqlBool>`(${sql.join(conditions, sql` AND `)})`;
const numeric = (value: number) => sql`${String(value)}::numeric`;

/** `expression` within the inclusive range, with the bounds as exact numerics. */
function inRange(expression: RawBuilder<unknown>, range: Range | undefined): Condition[] {
  if (!range) return [];
  const conditions: Condition[] = [];
  if (range.min !== undefined) conditions.push(sql<SqlBool>`${expression} >= ${numeric(range.min)}`);
  if (range.max !== undefined) conditions.push(sql<SqlBool>`${expression} <= ${numeric(range.max)}`);
  return conditions;
}

/*
 * price / area within the range, tested as price against bound * area (area > 0 is checked apart):
 * numeric multiplication is exact, while the quotient would be rounded to some 16 digits, and a bound
 * equal to the rounded quotient but not to the true one would match.
 */
function perAreaInRange(price: RawBuilder<unknown>, area: RawBuilder<unknown>, range: Range | undefined): Condition[] {
  if (!range) return [];
  const conditions: Condition[] = [];
  if (range.min !== undefined) conditions.push(sql<SqlBool>`${price} >= ${numeric(range.min)} * ${area}`);
  if (range.max !== undefined) conditions.push(sql<SqlBool>`${price} <= ${numeric(range.max)} * ${area}`);
  return conditions;
}

/**
 * A base price whose price in the key's prices lies within the range (bounds in the key's prices). The
 * base-price bounds come first: they let an index narrow the candidates; the comparison on the shown
 * price decides, so the filter agrees exactly with the prices displayed.
 */
function keyPriceInRange(basePrice: RawBuilder<number | null>, range: Range | undefined, priceVector: number, display?: DisplayCurrency): Condition[] {
  if (!range) return [];
  // In an asked currency: the converted price, NULL (never in range) for a project without a rate.
  if (display) return inRange(convertedOnlySql(basePrice, priceVector, display), range);
  const conditions: Condition[] = [];
  if (range.min !== undefined) conditions.push(sql<SqlBool>`${basePrice} >= ${baseLowerBoundSql(range.min, priceVector)}`);
  if (range.max !== undefined) conditions.push(sql<SqlBool>`${basePrice} <= ${baseUpperBoundSql(range.max, priceVector)}`);
  return [...conditions, ...inRange(keyPriceSql(basePrice, priceVector), range)];
}

/*
 * Keeps a correlated EXISTS a per-project test (a SubPlan) instead of letting the planner turn it into
 * a join: `OFFSET 0` stops the pull-up. Every request reads all visible projects anyway (the total), so
 * the plan wanted is always the listing scan with the column tests first and the probes last. Left to
 * itself, with many filters ANDed the planner's row estimate collapses and it drives the plan from the
 * probed table instead, twice as slow (docs/performance.md, "SQL reference path").
 */
const SUBPLAN = sql.raw('OFFSET 0');

/*
 * Every unit-level predicate goes into ONE correlated EXISTS, so a project matches only when one and
 * the same unit satisfies all of them (a cheap 2-bed and an expensive 3-bed do not make a cheap 3-bed).
 */
function unitExists(filters: UnitFilters, priceVector: number, display: DisplayCurrency | undefined): Condition {
  const conditions = [sql<SqlBool>`u.project_id = p.id`, sql<SqlBool>`u.deleted_at IS NULL`, ...unitPredicates(filters, priceVector, display)];
  return sql<SqlBool>`EXISTS (SELECT 1 FROM units u WHERE ${and(conditions)} ${SUBPLAN})`;
}

/** The unit-level filters on the unit aliased u (of the project aliased p): what one unit must satisfy. */
function unitPredicates(filters: UnitFilters, priceVector: number, display: DisplayCurrency | undefined): Condition[] {
  const conditions: Condition[] = [];
  const keyPrice = display ? convertedOnlySql(sql.ref('u.price'), priceVector, display) : keyPriceSql(sql.ref('u.price'), priceVector);

  if (filters.bedrooms !== undefined || filters.bedroomsFiveOrMore) {
    const alternatives: Condition[] = [];
    if (filters.bedrooms?.length) alternatives.push(sql<SqlBool>`u.bedrooms = ANY(${intArray(filters.bedrooms)})`);
    if (filters.bedroomsFiveOrMore) alternatives.push(sql<SqlBool>`u.bedrooms >= 5`);
    conditions.push(sql<SqlBool>`(${sql.join(alternatives, sql` OR `)})`);
  }
  if (filters.statuses) conditions.push(sql<SqlBool>`u.status = ANY(${intArray(filters.statuses)})`);

  conditions.push(...keyPriceInRange(sql.ref('u.price'), filters.price, priceVector, display));

  if (filters.pricePerM2 || filters.pricePerFt2) conditions.push(sql<SqlBool>`u.unit_area > 0`);
  conditions.push(...perAreaInRange(keyPrice, sql`u.unit_area::numeric`, filters.pricePerM2));
  conditions.push(...perAreaInRange(keyPrice, sql`(u.unit_area::numeric * ${numeric(FT2_PER_M2)})`, filters.pricePerFt2));
  if (filters.size?.min !== undefined) conditions.push(sql<SqlBool>`u.unit_area >= ${filters.size.min}::float8`);
  if (filters.size?.max !== undefined) conditions.push(sql<SqlBool>`u.unit_area <= ${filters.size.max}::float8`);
  if (filters.parkingMin !== undefined) conditions.push(sql<SqlBool>`u.parking >= ${filters.parkingMin}`);

  // The unit's copy of its tag ids (migration 0004) is in the covering index: no lookup per unit.
  if (filters.tagIds) conditions.push(sql<SqlBool>`u.tag_ids @> ${intArray(filters.tagIds)}`);
  return conditions;
}

/** Bedroom buckets of the unit summary: 0 to 4, and 5 for five or more (the values of `bedrooms`). */
const BEDROOM_BUCKETS = [0, 1, 2, 3, 4, 5];

/** The buckets the unit filters ask for; every bucket when `bedrooms` is absent. */
function bedroomBuckets(filters: UnitFilters): number[] {
  if (filters.bedrooms === undefined && !filters.bedroomsFiveOrMore) return BEDROOM_BUCKETS;
  return [...(filters.bedrooms ?? []), ...(filters.bedroomsFiveOrMore ? [5] : [])];
}

/** Unit filters the summary answers exactly, when no other is given and at most one price bound. */
const SUMMARY_EXACT_FILTERS = new Set<keyof UnitFilters>(['bedrooms', 'bedroomsFiveOrMore', 'price']);

/*
 * Tests on the project's unit summary (migration 0006: per bedroom bucket, the lowest and highest base
 * price and whether a live unit exists), read from the listing index tuple. Each test is implied by the
 * unit EXISTS, so they always go in front of it as a cheap pre-test. They are equivalent to it, and the
 * EXISTS is left out, when the filters are bedrooms and at most one price bound: a unit of the asked
 * buckets with key price <= max exists exactly when the lowest base price of those buckets has a key
 * price <= max (the key price never decreases as the base price grows), and likewise for min.
 */
function unitSummaryConditions(filters: UnitFilters, priceVector: number, display: DisplayCurrency | undefined): { conditions: Condition[]; exact: boolean } {
  const buckets = bedroomBuckets(filters);
  const element = (column: string, bucket: number) => sql.raw<number | null>(`p.${column}[${bucket + 1}]`);
  const across = (fn: 'least' | 'greatest', column: string) =>
    buckets.length === 1 ? element(column, buckets[0]) : sql<number | null>`${sql.raw(fn)}(${sql.join(buckets.map((bucket) => element(column, bucket)))})`;

  const mask = buckets.reduce((bits, bucket) => bits | (1 << bucket), 0);
  const conditions: Condition[] = [sql<SqlBool>`(p.unit_bedroom_mask & ${mask}::smallint) <> 0`];
  const { min, max } = filters.price ?? {};
  if (max !== undefined) conditions.push(...keyPriceInRange(across('least', 'unit_min_prices'), { max }, priceVector, display));
  if (min !== undefined) conditions.push(...keyPriceInRange(across('greatest', 'unit_max_prices'), { min }, priceVector, display));
  const given = (Object.keys(filters) as (keyof UnitFilters)[]).filter((key) => filters[key] !== undefined && filters[key] !== false);
  const exact = given.every((key) => SUMMARY_EXACT_FILTERS.has(key)) && !(min !== undefined && max !== undefined);
  return { conditions, exact };
}

/** The unit-level filters: the summary tests, then the EXISTS over units unless the summary is exact. */
function unitConditions(filters: UnitFilters, priceVector: number, display: DisplayCurrency | undefined): Condition[] {
  const summary = unitSummaryConditions(filters, priceVector, display);
  return summary.exact ? summary.conditions : [...summary.conditions, unitExists(filters, priceVector, display)];
}

/** Great-circle distance in metres from the project (alias p) to a point (src/domain/geo.ts). */
function distanceFromProjectSql(lat: number, lng: number): RawBuilder<number> {
  return haversineSql(sql`${lat}::float8`, sql`${lng}::float8`, sql.ref('p.latitude'), sql.ref('p.longitude'));
}

/** The project-level (and unit EXISTS) predicates of GET /projects on alias p; visibility is separate. */
export function projectFilterConditions(filters: ProjectFilters, priceVector: number, context: ListContext, display?: DisplayCurrency): Condition[] {
  const conditions: Condition[] = [];
  if (filters.search !== undefined) {
    const pattern = likeContains(filters.search);
    conditions.push(
      sql<SqlBool>`(p.name ILIKE ${pattern} OR EXISTS (SELECT 1 FROM companies sc WHERE sc.id = p.company_id AND sc.company_name ILIKE ${pattern}))`,
    );
  }
  if (filters.developerIds) conditions.push(sql<SqlBool>`p.company_id = ANY(${intArray(filters.developerIds)})`);
  if (filters.unitTypes) conditions.push(sql<SqlBool>`p.type = ANY(${intArray(filters.unitTypes)})`);
  if (filters.developmentStatuses) conditions.push(sql<SqlBool>`p.development_status = ANY(${intArray(filters.developmentStatuses)})`);
  if (filters.isBranded !== undefined) conditions.push(sql<SqlBool>`p.is_branded = ${filters.isBranded}`);
  if (filters.isResale !== undefined) conditions.push(sql<SqlBool>`p.is_resale = ${filters.isResale}`);
  if (filters.isEscrow !== undefined) conditions.push(sql<SqlBool>`(btrim(p.escrow_account) <> '') = ${filters.isEscrow}`);
  if (filters.handoverFrom) conditions.push(sql<SqlBool>`p.handover_date >= ${filters.handoverFrom.at}::timestamptz`);
  if (filters.handoverTo) {
    conditions.push(
      filters.handoverTo.inclusive
        ? sql<SqlBool>`p.handover_date <= ${filters.handoverTo.at}::timestamptz`
        : sql<SqlBool>`p.handover_date < ${filters.handoverTo.at}::timestamptz`,
    );
  }
  if (filters.paymentMaxPreHandover !== undefined) conditions.push(sql<SqlBool>`${paymentShareSql(PRE_HANDOVER_PLAN_TYPES)} <= ${numeric(filters.paymentMaxPreHandover)}`);
  if (filters.paymentMinAfterHandover !== undefined) conditions.push(sql<SqlBool>`${paymentShareSql(AFTER_HANDOVER_PLAN_TYPES)} >= ${numeric(filters.paymentMinAfterHandover)}`);
  if (filters.paymentOnlyPostHandover) {
    conditions.push(sql<SqlBool>`EXISTS (SELECT 1 FROM project_payment_plans pp WHERE pp.project_id = p.id AND pp.type = 3 AND pp.percent > 0 ${SUBPLAN})`);
  }
  if (filters.geo) {
    const { box, lat, lng, radiusM } = filters.geo;
    conditions.push(sql<SqlBool>`p.latitude BETWEEN ${box.minLat}::float8 AND ${box.maxLat}::float8`);
    if (box.minLng !== undefined && box.maxLng !== undefined) {
      conditions.push(sql<SqlBool>`p.longitude BETWEEN ${box.minLng}::float8 AND ${box.maxLng}::float8`);
    }
    conditions.push(sql<SqlBool>`${distanceFromProjectSql(lat, lng)} <= ${radiusM}::float8`);
  }
  if (filters.bbox) conditions.push(inBoxSql(sql.ref('p.longitude'), sql.ref('p.latitude'), filters.bbox));
  if (filters.polygon) {
    conditions.push(inBoxSql(sql.ref('p.longitude'), sql.ref('p.latitude'), filters.polygon.box));
    conditions.push(inShapeSql(sql.ref('p.longitude'), sql.ref('p.latitude'), filters.polygon));
  }
  for (const category of filters.nearCategories) {
    // The importer keeps the distance to the nearest linked facility of each category on the project.
    const nearest = sql.ref(`p.nearest_${category}_m`);
    conditions.push(
      context.amenitiesRadiusM === undefined
        ? sql<SqlBool>`${nearest} IS NOT NULL`
        : sql<SqlBool>`${nearest} < ${context.amenitiesRadiusM}::float8`,
    );
  }
  if (filters.featureIds) {
    conditions.push(
      sql<SqlBool>`(SELECT count(*) FROM project_feature_links fl WHERE fl.project_id = p.id AND fl.feature_id = ANY(${intArray(filters.featureIds)})) = ${filters.featureIds.length}`,
    );
  }
  if (filters.units) conditions.push(...unitConditions(filters.units, priceVector, display));
  return conditions;
}

/*
 * ORDER BY of each sort (project-sort rules in src/domain/project-filters.ts): missing values last in
 * both directions, ties by id ascending. The in-memory search (src/search) serves GET /projects; this
 * is its reference in the differential tests.
 */
function orderSql(sort: ProjectSort, filters: ProjectFilters): RawBuilder<unknown> {
  const key = (() => {
    switch (sort.key) {
      case 'name':
        return sql`p.name`;
      case 'price_from':
        // By value in AED (src/domain/currency.ts): the same order in every currency, for every price vector.
        return aedValueSql(sql`(SELECT min(u.price) FROM units u WHERE u.project_id = p.id AND u.deleted_at IS NULL)`);
      case 'size_from':
        return sql`(SELECT min(u.unit_area) FROM units u WHERE u.project_id = p.id AND u.deleted_at IS NULL)`;
      case 'handover_date':
        return sql`p.handover_date`;
      case 'newest':
        return sql`p.created_at`;
      case 'distance':
        return distanceFromProjectSql(filters.geo!.lat, filters.geo!.lng);
    }
  })();
  // `newest` ascends in time from the newest, i.e. descends.
  const descending = sort.key === 'newest' ? !sort.descending : sort.descending;
  return sql`${key} ${sql.raw(descending ? 'DESC' : 'ASC')} NULLS LAST, p.id`;
}

/** The page (in the order of page.sort) and the number of all matches. */
export async function listProjects(
  db: Kysely<DB>,
  scope: ReadScope,
  page: ProjectsPage,
  context: ListContext,
): Promise<{ total: number; items: ProjectListRow[] }> {
  const conditions = projectFilterConditions(page.filters, scope.price_vector, context, scope.display);
  const rows = await projectsPageQuery(db, {
    contracted_developer_ids: scope.contracted_developer_ids,
    limit: page.limit,
    offset: page.offset,
    filters: conditions.length > 0 ? and(conditions) : sql<SqlBool>`TRUE`,
    order: orderSql(page.sort, page.filters),
    shown_price: shownPriceSql(sql`min(u.price)`, scope.price_vector, scope.display),
    shown_currency: shownCurrencySql(scope.display),
  }, {
    // The unfiltered page (one text) reuses its plan, saving ~2 ms of planning per call; filtered pages
    // are planned each time (see RunOptions).
    reusePlan: conditions.length === 0,
  });
  if (rows.length > 0) {
    const items = rows.map(({ total: _total, ...row }): ProjectListRow => row);
    if (page.match) {
      const matches = await pageMatches(db, scope, page.filters.units, items.map((item) => item.id));
      for (const item of items) item.match = matches.get(item.id);
    }
    return { total: Number(rows[0].total), items };
  }
  // Past the last page the window count has no row to ride on.
  const counted = await db
    .selectFrom('projects as p')
    .where(projectIsVisible(scope))
    .$if(conditions.length > 0, (qb) => qb.where(and(conditions)))
    .select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return { total: Number(counted.total), items: [] };
}

/*
 * The page: ids first (the filters, the order and the window count over all matches), then the nested
 * JSON for those ids only. Built once (preparedQuery); the filters are the fragment that varies.
 */
const projectsPageQuery = preparedQuery(
  (
    db: Kysely<DB>,
    { limit, offset, filters, order, shown_price, shown_currency, ...scope }: Pick<KeyScope, 'contracted_developer_ids'> & {
      limit: number;
      offset: number;
      filters: RawBuilder<SqlBool>;
      order: RawBuilder<unknown>;
      shown_price: RawBuilder<number | null>;
      shown_currency: RawBuilder<string>;
    },
  ) =>
    db
    .with('page', () =>
      db
        .selectFrom('projects as p')
        .where(projectIsVisible(scope))
        .where(filters)
        .select(['p.id', sql<number>`row_number() OVER (ORDER BY ${order})`.as('position'), sql<number>`count(*) OVER ()`.as('total')])
        .orderBy('position')
        .limit(limit)
        .offset(offset),
    )
    .selectFrom('page')
    .innerJoin('projects as p', 'p.id', 'page.id')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .leftJoin('files as cf', 'cf.id', 'c.logo_file_id')
    .leftJoinLateral(unitSummaryWith(db, shown_price).as('us'), (join) => join.onTrue())
    .select([
      'page.total',
      'p.id',
      'p.name',
      'p.status',
      'p.development_status',
      'p.is_branded',
      'p.is_resale',
      sql<boolean>`btrim(p.escrow_account) <> ''`.as('is_escrow'),
      'p.handover_date',
      shown_currency.as('currency'),
      'us.price_from',
      'us.size_from',
      firstImagePathSql().as('logo_path'),
      'c.id as company_id',
      'c.company_name',
      'cf.path as company_logo_path',
      paymentPlansJson(db).as('payment_plans'),
      featuresJson(db).as('features'),
    ])
    .orderBy('page.position'),
  ['contracted_developer_ids', 'limit', 'offset'],
  ['filters', 'order', 'shown_price', 'shown_currency'],
);

/*
 * `match=true`: per project of the page, over its live units that satisfy every unit-level filter (the
 * predicates of the unit EXISTS, none without unit-level filters): how many, the lowest price shown as
 * price_from is, the smallest area. An aggregate without GROUP BY always gives one row: 0, NULL, NULL.
 */
async function pageMatches(db: Kysely<DB>, scope: ReadScope, filters: UnitFilters | undefined, ids: number[]): Promise<Map<number, ProjectMatch>> {
  const predicates = filters ? unitPredicates(filters, scope.price_vector, scope.display) : [];
  const rows = await db
    .selectFrom('projects as p')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('units as u')
          .where(sql<SqlBool>`u.project_id = p.id`)
          .where('u.deleted_at', 'is', null)
          .$if(predicates.length > 0, (qb) => qb.where(and(predicates)))
          .select([
            sql<number>`count(*)`.as('units'),
            shownPriceSql(sql`min(u.price)`, scope.price_vector, scope.display).as('price_from'),
            sql<number | null>`min(u.unit_area)`.as('size_from'),
          ])
          .as('m'),
      (join) => join.onTrue(),
    )
    .where('p.id', '=', sql<number>`ANY(${intArray(ids)})`)
    .select(['p.id', 'm.units', 'm.price_from', 'm.size_from'])
    .execute();
  return new Map(rows.map(({ id, ...match }) => [id, { ...match, units: Number(match.units) }]));
}
