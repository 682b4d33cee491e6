import { sql, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB, SocialLinks } from '../db/schema.js';
import type { KeyScope } from '../domain/key-scope.js';
import { projectIsVisible } from './visibility.js';

export interface WorkerRow {
  user_id: number;
  name: string;
  email: string;
  role: string;
  avatar_path: string | null;
  contact_phone: string | null;
  social_links: SocialLinks | null;
  languages: string[] | null;
  bio: string | null;
}

export interface ProjectContactsRow {
  company_id: number;
  company_name: string;
  company_logo_path: string | null;
  workers: WorkerRow[];
}

/**
 * The developer of a visible project and its staff: deleted users and members whose role is `ceo`
 * (any case, surrounding blanks ignored) are left out; sorted by name, then user id.
 */
export async function findProjectContacts(db: Kysely<DB>, scope: KeyScope, projectId: number): Promise<ProjectContactsRow | undefined> {
  const row = await db
    .selectFrom('projects as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .leftJoin('files as cf', 'cf.id', 'c.logo_file_id')
    .where('p.id', '=', projectId)
    .where(projectIsVisible(scope))
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
    ])
    .executeTakeFirst();
  return row as ProjectContactsRow | undefined;
}
