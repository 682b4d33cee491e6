import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { UnitFacts } from '../domain/application-merge.js';
import { keyPriceSql } from '../domain/pricing.js';
import type { KeyScope } from '../domain/key-scope.js';
import { projectIsVisible } from './visibility.js';
import { isStorableId } from '../domain/record-ids.js';

/*
 * The unit an application is about, read inside the application's transaction with the facts the merge
 * of interests and the offer need (prices in the key's prices).
 */

export interface ApplicableUnit {
  id: number;
  project_id: number;
  /** The base price in cents, for a conversion (src/domain/currency.ts). */
  baseCents: number | null;
  facts: UnitFacts;
}

/** The unit, if it is live and its project visible to the key (same rule as GET /units/{id}). */
export async function findApplicableUnit(
  trx: Transaction<DB>,
  key: KeyScope,
  unitId: number,
): Promise<ApplicableUnit | undefined> {
  if (!isStorableId(unitId)) return undefined;
  const row = await trx
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .where('u.id', '=', unitId)
    .where('u.deleted_at', 'is', null)
    .where(projectIsVisible(key))
    .select([
      'u.id',
      'u.project_id',
      'u.unit_number',
      'p.name as project_name',
      'p.type as project_type',
      'p.area_id',
      'p.currency as project_currency',
      keyPriceSql(sql.ref('u.price'), key.price_vector).as('price'),
      // The base price as text: whole cents without the point (numeric(16, 2) always prints two decimals).
      sql<string | null>`u.price::text`.as('base_price'),
      sql<number[]>`ARRAY(SELECT l.tag_id FROM unit_tag_links l WHERE l.unit_id = u.id ORDER BY l.id)`.as('tag_ids'),
      sql<number[]>`ARRAY(SELECT f.feature_id FROM project_feature_links f WHERE f.project_id = p.id ORDER BY f.feature_id)`.as('feature_ids'),
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    project_id: row.project_id,
    baseCents: row.base_price === null ? null : Number(row.base_price.replace('.', '')),
    facts: {
      unit_number: row.unit_number,
      project_name: row.project_name,
      project_type: row.project_type,
      area_id: row.area_id,
      project_currency: row.project_currency,
      price: row.price === null ? null : Number(row.price),
      tag_ids: row.tag_ids,
      feature_ids: row.feature_ids,
    },
  };
}
