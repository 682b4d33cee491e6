import { sql, type Kysely } from 'kysely';

/*
 * api_keys.private_applications (issue 20): a key whose application response is built only from what
 * the request sent and what the unit derived, never from a stored CRM record (src/domain/private-application.ts).
 * False keeps the specified answer. A constant default: no table rewrite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys ADD COLUMN private_applications boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys DROP COLUMN private_applications`.execute(db);
}
