import { sql, type ExpressionBuilder, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../db/schema.js';
import { COMPANY_TYPES } from '../domain/catalogue-codes.js';
import type { KeyScope } from '../domain/key-scope.js';

/*
 * Catalogue visibility, in one place: a project exists for a key only when it is published (not a
 * draft), not deleted, and owned by a developer with which the key's agency has an approved contract.
 * Units additionally must not be deleted. Everything that reads projects or units goes through these.
 */

type ProjectAlias = 'p';

export function projectIsVisible(scope: Pick<KeyScope, 'contracted_developer_ids'>) {
  return (eb: ExpressionBuilder<DB & { p: DB['projects'] }, ProjectAlias>): Expression<SqlBool> =>
    eb.and([
      eb('p.is_draft', '=', false),
      eb('p.deleted_at', 'is', null),
      developerIn(scope, sql.ref('p.company_id')),
    ]);
}

/**
 * The same rule over the rows themselves, for reads that must decide visibility in their own snapshot
 * (the key record's contracted_developer_ids, GET /changes): the contract row `ct` with the developer
 * company `d` opens the developer's projects when approved and the developer is a live developer.
 */
export function contractOpensSql(ct: string, d: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${ct}.status`)} = 'approved' AND ${sql.ref(`${d}.deleted_at`)} IS NULL AND ${sql.ref(`${d}.company_type`)} = ${sql.lit(COMPANY_TYPES.developer)})`;
}

/** The project `p` is published: not a draft, not deleted (the project half of projectIsVisible). */
export function projectPublishedSql(p: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(NOT ${sql.ref(`${p}.is_draft`)} AND ${sql.ref(`${p}.deleted_at`)} IS NULL)`;
}

/** `column = ANY(contracted ids)`; an agency without contracts sees nothing. */
export function developerIn(scope: Pick<KeyScope, 'contracted_developer_ids'>, column: Expression<number>): Expression<SqlBool> {
  return sql<SqlBool>`${column} = ANY(${sql.val(scope.contracted_developer_ids)}::int[])`;
}
