import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { COMPANY_TYPES } from '../domain/catalogue-codes.js';
import type { KeyScope } from '../domain/key-scope.js';
import { contractOpensSql } from './visibility.js';

/** The key as a request knows it; its visibility scope (KeyScope) included. */
export interface KeyRecord extends KeyScope {
  id: number;
  name: string;
  key_prefix: string;
  status: number;
  allowed_domains: string[] | null;
  /** The application response shows only what the request sent and the unit derived (migration 0009). */
  private_applications: boolean;
  company: {
    id: number;
    company_type: number;
    name: string;
    licence_status: string | null;
    deleted: boolean;
    logo_path: string | null;
  };
  author: { id: number; name: string; email: string; deleted: boolean; member: boolean };
}

/**
 * The active key with this hash, with everything a request needs to authorise and scope itself, in
 * one round trip. Revoked and soft-deleted keys are not found.
 */
export async function findActiveKeyByHash(db: Kysely<DB>, keyHash: string): Promise<KeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .innerJoin('users as u', 'u.id', 'k.author_id')
    .leftJoin('files as lf', 'lf.id', 'c.logo_file_id')
    .where('k.key_hash', '=', keyHash)
    .where('k.status', '=', 0)
    .where('k.deleted_at', 'is', null)
    .select([
      'k.id',
      'k.name',
      'k.key_prefix',
      'k.status',
      'k.price_vector',
      'k.allowed_domains',
      'k.private_applications',
      'c.id as company_id',
      'c.company_type',
      'c.company_name',
      'c.licence_status',
      sql<boolean>`c.deleted_at IS NOT NULL`.as('company_deleted'),
      'lf.path as logo_path',
      'u.id as author_id',
      'u.name as author_name',
      'u.email as author_email',
      sql<boolean>`u.deleted_at IS NOT NULL`.as('author_deleted'),
      sql<boolean>`EXISTS (SELECT 1 FROM company_members m WHERE m.company_id = k.company_id AND m.user_id = k.author_id)`.as('author_member'),
      sql<number[]>`ARRAY(
        SELECT ct.developer_id FROM contracts ct
        JOIN companies d ON d.id = ct.developer_id
        WHERE ct.agency_id = k.company_id AND ${contractOpensSql('ct', 'd')}
        ORDER BY ct.developer_id)`.as('contracted_developer_ids'),
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    status: row.status,
    price_vector: row.price_vector,
    allowed_domains: row.allowed_domains,
    private_applications: row.private_applications,
    company: {
      id: row.company_id,
      company_type: row.company_type,
      name: row.company_name,
      licence_status: row.licence_status,
      deleted: row.company_deleted,
      logo_path: row.logo_path,
    },
    author: {
      id: row.author_id,
      name: row.author_name,
      email: row.author_email,
      deleted: row.author_deleted,
      member: row.author_member,
    },
    contracted_developer_ids: row.contracted_developer_ids,
  };
}

export class KeyAdminError extends Error {
  override name = 'KeyAdminError';
}

export interface NewKey {
  companyId: number;
  authorId: number;
  name: string;
  priceVector?: number;
  domains?: string[] | null;
  privateApplications?: boolean;
}

export interface KeyListing {
  id: number;
  company_id: number;
  author_id: number;
  name: string;
  key_prefix: string;
  price_vector: number;
  status: number;
  allowed_domains: string[] | null;
  private_applications: boolean;
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

const listingColumns = [
  'id', 'company_id', 'author_id', 'name', 'key_prefix', 'price_vector', 'status', 'allowed_domains', 'private_applications', 'created_at', 'updated_at',
] as const;

/** Keys belong to agencies, and are issued by a user of that agency. */
export async function assertKeyOwner(db: Kysely<DB>, companyId: number, authorId: number): Promise<void> {
  const company = await db.selectFrom('companies').select(['company_type', 'deleted_at']).where('id', '=', companyId).executeTakeFirst();
  if (!company || company.deleted_at) throw new KeyAdminError(`company ${companyId} does not exist`);
  if (company.company_type !== COMPANY_TYPES.agency) throw new KeyAdminError(`company ${companyId} is not an agency: developer companies cannot have keys`);
  const member = await db
    .selectFrom('company_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.id')
    .where('m.company_id', '=', companyId)
    .where('m.user_id', '=', authorId)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!member) throw new KeyAdminError(`user ${authorId} is not a member of company ${companyId}`);
}

export async function insertKey(db: Kysely<DB>, key: NewKey & { keyHash: string; keyPrefix: string }): Promise<KeyListing> {
  const row = await db
    .insertInto('api_keys')
    .values({
      company_id: key.companyId,
      author_id: key.authorId,
      name: key.name,
      key_hash: key.keyHash,
      key_prefix: key.keyPrefix,
      price_vector: key.priceVector ?? 0,
      allowed_domains: key.domains ?? null,
      private_applications: key.privateApplications ?? false,
    })
    .returning(listingColumns)
    .executeTakeFirstOrThrow();
  return { ...row, deleted: false };
}

export async function listKeys(db: Kysely<DB>, companyId?: number): Promise<KeyListing[]> {
  let query = db.selectFrom('api_keys').select([...listingColumns, sql<boolean>`deleted_at IS NOT NULL`.as('deleted')]);
  if (companyId !== undefined) query = query.where('company_id', '=', companyId);
  return query.orderBy('id').execute();
}

export interface KeyChanges {
  name?: string;
  priceVector?: number;
  domains?: string[] | null;
  privateApplications?: boolean;
  status?: number;
}

export async function updateKey(db: Kysely<DB>, id: number, changes: KeyChanges): Promise<KeyListing | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.priceVector !== undefined && { price_vector: changes.priceVector }),
      ...(changes.domains !== undefined && { allowed_domains: changes.domains }),
      ...(changes.privateApplications !== undefined && { private_applications: changes.privateApplications }),
      ...(changes.status !== undefined && { status: changes.status }),
      updated_at: sql<string>`now()`,
    })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning(listingColumns)
    .executeTakeFirst();
  return row && { ...row, deleted: false };
}
