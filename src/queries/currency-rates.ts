import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { BASE_CURRENCY, CurrencyRates } from '../domain/currency.js';

/* The stored exchange rates (migration 0013; the rule: src/domain/currency.ts). */

export async function readCurrencyRates(db: Kysely<DB>): Promise<CurrencyRates> {
  const rows = await db.selectFrom('currency_rates').select(['currency', 'aed_per_unit', 'as_of']).orderBy('currency').execute();
  return new CurrencyRates(rows.map((row) => ({ currency: row.currency, aed_per_unit: Number(row.aed_per_unit), as_of: row.as_of })));
}

/** Currencies of live projects that have no rate (AED aside), with how many projects each: the importer's warning. */
export function projectCurrenciesWithoutRate(db: Kysely<DB>) {
  return db
    .selectFrom('projects as p')
    .where('p.deleted_at', 'is', null)
    .where('p.currency', '<>', BASE_CURRENCY)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('currency_rates as cr').select(sql`1`.as('one')).whereRef('cr.currency', '=', 'p.currency'))))
    .groupBy('p.currency')
    .select(['p.currency', sql<number>`count(*)`.as('projects')])
    .orderBy('p.currency')
    .execute();
}
