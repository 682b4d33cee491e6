import { sql, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB } from '../db/schema.js';
import type { KeyScope } from '../domain/key-scope.js';
import { projectIsVisible } from './visibility.js';

/** A developer and its staff as read (rows inferred by Kysely from the query below). */
export type ProjectContactsRow = NonNullable<Awaited<ReturnType<typeof findCompanyContacts>>>;

/**
 * A developer and its staff as GET /projects/{id}/contacts shows them: deleted users and members whose
 * role is `ceo` (any case, surrounding blanks ignored) are left out; sorted by name, then user id.
 * Undefined when no such company exists. Which project's developer, and whether the key sees that
 * project, is the caller's to decide (the route asks the search snapshot, src/search/visibility.ts).
 */
export async function findCompanyContacts(db: Kysely<DB>, companyId: number) {
  return companyContacts(db).where('c.id', '=', companyId).executeTakeFirst();
}

/** The same for the developer of a project the key sees, in SQL alone (the reference the in-memory route is tested against). */
export async function findProjectContacts(db: Kysely<DB>, scope: KeyScope, projectId: number) {
  return companyContacts(db)
    .innerJoin('projects as p', 'p.company_id', 'c.id')
    .where('p.id', '=', projectId)
    .where(projectIsVisible(scope))
    .executeTakeFirst();
}

function companyContacts(db: Kysely<DB>) {
  return db
    .selectFrom('companies as c')
    .leftJoin('files as cf', 'cf.id', 'c.logo_file_id')
    .select((eb) => [
      'c.id as company_id',
      'c.company_name',
      'cf.path as company_logo_path',
      jsonArrayFrom(
        eb
          .selectFrom('company_members as m')
          .innerJoin('users as wu', 'wu.id', 'm.user_id')
          .leftJoin('files as af', 'af.id', 'm.avatar_file_id')
          .whereRef('m.company_id', '=', 'c.id')
          .where('wu.deleted_at', 'is', null)
          .where(sql`lower(btrim(m.role))`, '<>', 'ceo')
          .select(['wu.id as user_id', 'wu.name', 'wu.email', 'm.role', 'af.path as avatar_path', 'm.contact_phone', 'm.social_links', 'm.languages', 'm.bio'])
          .orderBy('wu.name')
          .orderBy('wu.id'),
      ).as('workers'),
    ]);
}
