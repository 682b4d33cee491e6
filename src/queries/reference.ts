import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { COMPANY_TYPES } from '../domain/catalogue-codes.js';
import type { KeyScope } from '../domain/key-scope.js';
import { developerIn } from './visibility.js';

export function listAreas(db: Kysely<DB>, city: string | undefined) {
  let query = db.selectFrom('areas').select(['id', 'name', 'city', 'created_at', 'updated_at']);
  if (city !== undefined) query = query.where(sql`lower(city)`, '=', city.toLowerCase());
  return query.orderBy(sql`lower(city)`).orderBy('city').orderBy('name').orderBy('id').execute();
}

export function listUnitTags(db: Kysely<DB>) {
  return db.selectFrom('unit_tags').select(['id', 'name', 'created_at', 'updated_at']).orderBy('name').orderBy('id').execute();
}

export function listProjectFeatures(db: Kysely<DB>, type: 1 | 2 | undefined) {
  let query = db.selectFrom('project_features').select(['id', 'name', 'type']);
  if (type !== undefined) query = query.where('type', '=', type);
  return query.orderBy('name').orderBy('id').execute();
}

/** Contracted developers that own at least one published, live project. */
export function listVisibleDevelopers(db: Kysely<DB>, scope: KeyScope) {
  return developersWithProjects(db).where(developerIn(scope, sql.ref('c.id'))).execute();
}

/** Developers (company_type 3, not deleted) that own at least one published, live project, by name then id. */
export function developersWithProjects(db: Kysely<DB>) {
  return db
    .selectFrom('companies as c')
    .leftJoin('files as f', 'f.id', 'c.logo_file_id')
    .where('c.company_type', '=', COMPANY_TYPES.developer)
    .where('c.deleted_at', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('projects as p')
          .select(sql`1`.as('one'))
          .whereRef('p.company_id', '=', 'c.id')
          .where('p.is_draft', '=', false)
          .where('p.deleted_at', 'is', null),
      ),
    )
    .select(['c.id', 'c.company_name as name', 'f.path as logo_path'])
    .orderBy('c.company_name')
    .orderBy('c.id');
}
