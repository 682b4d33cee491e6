import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * Catalogue visibility, in one place: a project exists for a key only when it is published (not a
 * draft), not deleted, and owned by a developer with which the key's agency has an approved contract.
 * Units additionally must not be deleted. Everything that reads projects or units goes through these.
 */
export interface VisibilityScope {
  contracted_developer_ids: number[];
}

type ProjectAlias = 'p';

export function projectIsVisible(scope: VisibilityScope) {
  return (eb: ExpressionBuilder<DB & { p: DB['projects'] }, ProjectAlias>): Expression<SqlBool> =>
    eb.and([
      eb('p.is_draft', '=', false),
      eb('p.deleted_at', 'is', null),
      developerIn(scope, sql.ref('p.company_id')),
    ]);
}

/** `column = ANY(contracted ids)`; an agency without contracts sees nothing. */
export function developerIn(scope: VisibilityScope, column: Expression<number>): Expression<SqlBool> {
  return sql<SqlBool>`${column} = ANY(${sql.val(scope.contracted_developer_ids)}::int[])`;
}
