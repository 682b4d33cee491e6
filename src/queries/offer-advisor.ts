import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * The advisor named on an application's draft offer: the API key's author, as long as they are still a
 * member of the agency.
 */

/** The key's author as the offer's advisor; undefined when the author or the membership is gone. */
export async function findAdvisor(trx: Transaction<DB>, companyId: number, authorId: number) {
  return trx
    .selectFrom('users as u')
    .innerJoin('company_members as m', (join) => join.onRef('m.user_id', '=', 'u.id').on('m.company_id', '=', companyId))
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .where('u.id', '=', authorId)
    .where('u.deleted_at', 'is', null)
    .where('c.deleted_at', 'is', null)
    .select(['u.name', 'u.email', 'm.contact_phone'])
    .executeTakeFirst();
}
