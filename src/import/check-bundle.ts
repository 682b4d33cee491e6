import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { COMPANY_TYPES } from '../domain/catalogue-codes.js';
import { hashApiKey } from '../domain/api-key.js';
import { isIso4217Code } from '../domain/currency.js';
import { domainProblem } from '../domain/origin.js';
import { BundleError } from './bundle-error.js';
import { at, records, type AnyRecord } from './bundle-records.js';
import { SECTIONS, type Bundle, type SectionName, type SectionRecord } from './bundle-schema.js';
import { query } from './raw-sql.js';

/*
 * The checks that need the whole bundle or the database, run in the import transaction before anything
 * is written: duplicate keys, currency codes, references (to the bundle or to stored
 * rows), company types and the unique rules. Each failure names the record and field, which a
 * constraint violation halfway through a multi-row statement could not.
 */

export async function checkBundle(db: Kysely<DB>, bundle: Bundle): Promise<void> {
  checkDuplicateKeys(bundle);
  checkCurrencyCodes(bundle);
  const companyTypes = await checkReferences(db, bundle);
  checkCompanyTypes(bundle, companyTypes);
  await checkApiKeySecrets(db, bundle);
  await checkBoardStagePositions(db, bundle);
  await checkClientContacts(db, bundle);
}

/** The identity of a record within its section, and the field an error about it names. */
const SECTION_KEYS: { [S in SectionName]: { field: string; key: (record: SectionRecord<S>) => string } } = {
  files: { field: 'id', key: (r) => String(r.id) },
  areas: { field: 'id', key: (r) => String(r.id) },
  unit_tags: { field: 'id', key: (r) => String(r.id) },
  project_features: { field: 'id', key: (r) => String(r.id) },
  companies: { field: 'id', key: (r) => String(r.id) },
  users: { field: 'id', key: (r) => String(r.id) },
  company_members: { field: 'user_id', key: (r) => `${r.company_id}/${r.user_id}` },
  contracts: { field: 'developer_id', key: (r) => `${r.agency_id}/${r.developer_id}` },
  api_keys: { field: 'id', key: (r) => String(r.id) },
  projects: { field: 'id', key: (r) => String(r.id) },
  units: { field: 'id', key: (r) => String(r.id) },
  facilities: { field: 'source_id', key: (r) => `${r.category}/${String(r.source_id)}` },
  currency_rates: { field: 'currency', key: (r) => r.currency },
  board_stages: { field: 'id', key: (r) => String(r.id) },
  offer_statuses: { field: 'id', key: (r) => String(r.id) },
  project_types: { field: 'id', key: (r) => String(r.id) },
  development_statuses: { field: 'id', key: (r) => String(r.id) },
  clients: { field: 'id', key: (r) => String(r.id) },
};

/** A rate converts prices shown in its currency: a code no one can display or pay in is a typo. */
function checkCurrencyCodes(bundle: Bundle): void {
  records(bundle, 'currency_rates').forEach((record, index) => {
    if (!isIso4217Code(record.currency)) throw new BundleError(`${at('currency_rates', index, 'currency')}: ${record.currency} is not an ISO 4217 currency code`);
  });
}

/**
 * Warnings for key domain list entries that are no host (the key CLI refuses them, domainProblem): such
 * an entry never equals a request's host, so it locks browsers out. Warned, not refused: the import
 * contract types the list as strings, and a bundle it allows is not turned away.
 */
export function keyDomainWarnings(bundle: Bundle): string[] {
  const warnings: string[] = [];
  records(bundle, 'api_keys').forEach((record, index) => {
    (record.allowed_domains ?? []).forEach((domain, position) => {
      const problem = domainProblem(domain);
      if (problem) warnings.push(`warning: ${at('api_keys', index, 'allowed_domains')}[${position}]: ${problem}; it never equals a request's host, so browser requests with this key get 403`);
    });
  });
  return warnings;
}

/** Two records with the same key would make one upsert statement touch a row twice. */
function checkDuplicateKeys(bundle: Bundle): void {
  for (const section of SECTIONS) {
    const { field, key } = SECTION_KEYS[section] as { field: string; key: (record: unknown) => string };
    const seen = new Map<string, number>();
    records(bundle, section).forEach((record, index) => {
      const k = key(record);
      const first = seen.get(k);
      if (first !== undefined) throw new BundleError(`${at(section, index, field)}: duplicate of ${section}[${first}]`);
      seen.set(k, index);
    });
  }
}

type Target = 'files' | 'areas' | 'unit_tags' | 'project_features' | 'companies' | 'users' | 'projects';

const TARGET_NAMES: Record<Target, string> = {
  files: 'file', areas: 'area', unit_tags: 'unit tag', project_features: 'project feature',
  companies: 'company', users: 'user', projects: 'project',
};

/** Every reference a bundle record can make; a field holding a list refers with each of its items. */
const REFERENCES: { section: SectionName; field: string; target: Target }[] = [
  { section: 'companies', field: 'logo_file_id', target: 'files' },
  { section: 'company_members', field: 'company_id', target: 'companies' },
  { section: 'company_members', field: 'user_id', target: 'users' },
  { section: 'company_members', field: 'avatar_file_id', target: 'files' },
  { section: 'contracts', field: 'agency_id', target: 'companies' },
  { section: 'contracts', field: 'developer_id', target: 'companies' },
  { section: 'api_keys', field: 'company_id', target: 'companies' },
  { section: 'api_keys', field: 'author_id', target: 'users' },
  { section: 'projects', field: 'company_id', target: 'companies' },
  { section: 'projects', field: 'author_id', target: 'users' },
  { section: 'projects', field: 'area_id', target: 'areas' },
  { section: 'projects', field: 'floor_plan_file_id', target: 'files' },
  { section: 'projects', field: 'brochure_file_id', target: 'files' },
  { section: 'projects', field: 'general_plan_file_id', target: 'files' },
  { section: 'projects', field: 'image_file_ids', target: 'files' },
  { section: 'projects', field: 'feature_ids', target: 'project_features' },
  { section: 'units', field: 'project_id', target: 'projects' },
  { section: 'units', field: 'plan_file_id', target: 'files' },
  { section: 'units', field: 'tag_ids', target: 'unit_tags' },
  { section: 'board_stages', field: 'company_id', target: 'companies' },
  { section: 'clients', field: 'company_id', target: 'companies' },
];

/**
 * Every reference must point at a record of the bundle or a row already stored. Only the ids the
 * bundle does not define are looked up. Returns the type of every company the bundle refers to or
 * defines, for checkCompanyTypes.
 */
async function checkReferences(db: Kysely<DB>, bundle: Bundle): Promise<Map<number, number>> {
  const defined = new Map<Target, Set<number>>();
  for (const target of Object.keys(TARGET_NAMES) as Target[]) {
    defined.set(target, new Set(records(bundle, target).map((r) => r.id)));
  }

  const outside: { path: string; target: Target; id: number }[] = [];
  for (const { section, field, target } of REFERENCES) {
    (records(bundle, section) as AnyRecord[]).forEach((record, index) => {
      const value = record[field];
      const ids = Array.isArray(value) ? (value as number[]) : typeof value === 'number' ? [value] : [];
      ids.forEach((id, position) => {
        if (defined.get(target)!.has(id)) return;
        const path = Array.isArray(value) ? `${at(section, index, field)}[${position}]` : at(section, index, field);
        outside.push({ path, target, id });
      });
    });
  }

  const companyTypes = new Map(records(bundle, 'companies').map((c) => [c.id, c.company_type as number]));
  const stored = new Map<Target, Set<number>>();
  for (const target of new Set(outside.map((ref) => ref.target))) {
    const ids = [...new Set(outside.filter((ref) => ref.target === target).map((ref) => ref.id))];
    if (target === 'companies') {
      const rows = await query<{ id: number; company_type: number }>(db, 'SELECT id, company_type FROM companies WHERE id = ANY($1::int[])', [ids]);
      for (const row of rows) companyTypes.set(row.id, row.company_type);
      stored.set(target, new Set(rows.map((row) => row.id)));
    } else {
      const rows = await query<{ id: number }>(db, `SELECT id FROM ${target} WHERE id = ANY($1::int[])`, [ids]);
      stored.set(target, new Set(rows.map((row) => row.id)));
    }
  }

  const missing = outside.find((ref) => !stored.get(ref.target)!.has(ref.id));
  if (missing) throw new BundleError(`${missing.path}: ${TARGET_NAMES[missing.target]} ${missing.id} does not exist`);
  return companyTypes;
}

const { agency: AGENCY, developer: DEVELOPER } = COMPANY_TYPES;

/** Keys belong to agencies; contracts join an agency to a developer. */
function checkCompanyTypes(bundle: Bundle, companyTypes: Map<number, number>): void {
  const expect = (path: string, companyId: number, type: number) => {
    if (companyTypes.get(companyId) !== type) {
      const wanted = type === AGENCY ? 'an agency (company_type 2)' : 'a developer (company_type 3)';
      throw new BundleError(`${path}: company ${companyId} is not ${wanted}`);
    }
  };
  records(bundle, 'contracts').forEach((c, i) => {
    expect(at('contracts', i, 'agency_id'), c.agency_id, AGENCY);
    expect(at('contracts', i, 'developer_id'), c.developer_id, DEVELOPER);
  });
  records(bundle, 'api_keys').forEach((k, i) => expect(at('api_keys', i, 'company_id'), k.company_id, AGENCY));
}

/** key_hash is unique: a secret may be used by one key only. */
async function checkApiKeySecrets(db: Kysely<DB>, bundle: Bundle): Promise<void> {
  const keys = records(bundle, 'api_keys');
  if (keys.length === 0) return;
  const byHash = new Map<string, number>();
  keys.forEach((k, i) => {
    const hash = hashApiKey(k.key);
    const first = byHash.get(hash);
    if (first !== undefined) throw new BundleError(`${at('api_keys', i, 'key')}: same key as api_keys[${first}]`);
    byHash.set(hash, i);
  });
  const rows = await query<{ id: number; key_hash: string }>(db, 'SELECT id, key_hash FROM api_keys WHERE key_hash = ANY($1::text[])', [[...byHash.keys()]]);
  for (const row of rows) {
    const index = byHash.get(row.key_hash)!;
    if (keys[index].id !== row.id) throw new BundleError(`${at('api_keys', index, 'key')}: already used by api key ${row.id}`);
  }
}

/** (company_id, position) is unique among board stages. */
async function checkBoardStagePositions(db: Kysely<DB>, bundle: Bundle): Promise<void> {
  const stages = records(bundle, 'board_stages');
  if (stages.length === 0) return;
  const slots = new Map<string, number>();
  stages.forEach((s, i) => {
    const slot = `${s.company_id}/${s.position}`;
    const first = slots.get(slot);
    if (first !== undefined) throw new BundleError(`${at('board_stages', i, 'position')}: position ${s.position} of company ${s.company_id} is also used by board_stages[${first}]`);
    slots.set(slot, i);
  });
  const rows = await query<{ id: number; company_id: number; position: number }>(
    db,
    'SELECT id, company_id, position FROM board_stages WHERE company_id = ANY($1::int[]) AND id <> ALL($2::int[])',
    [[...new Set(stages.map((s) => s.company_id))], stages.map((s) => s.id)],
  );
  for (const row of rows) {
    const index = slots.get(`${row.company_id}/${row.position}`);
    if (index !== undefined) throw new BundleError(`${at('board_stages', index, 'position')}: company ${row.company_id} already has board stage ${row.id} at position ${row.position}`);
  }
}

/** Same rule as the generated clients.mobile_digits column. */
const mobileDigits = (mobile: string | null | undefined) => (mobile ?? '').replace(/[^0-9]/g, '');

/** A company has at most one client per email (case-insensitive) and per mobile number (digits). */
async function checkClientContacts(db: Kysely<DB>, bundle: Bundle): Promise<void> {
  const clients = records(bundle, 'clients');
  if (clients.length === 0) return;
  const emails = new Map<string, number>();
  const mobiles = new Map<string, number>();
  clients.forEach((c, i) => {
    if (c.email != null) {
      const slot = `${c.company_id}/${c.email.toLowerCase()}`;
      const first = emails.get(slot);
      if (first !== undefined) throw new BundleError(`${at('clients', i, 'email')}: same email as clients[${first}] in company ${c.company_id}`);
      emails.set(slot, i);
    }
    const digits = mobileDigits(c.mobile_number);
    if (digits !== '') {
      const slot = `${c.company_id}/${digits}`;
      const first = mobiles.get(slot);
      if (first !== undefined) throw new BundleError(`${at('clients', i, 'mobile_number')}: same mobile number as clients[${first}] in company ${c.company_id}`);
      mobiles.set(slot, i);
    }
  });
  const rows = await query<{ id: number; company_id: number; email: string | null; mobile_digits: string }>(
    db,
    `SELECT id, company_id, lower(email) AS email, mobile_digits FROM clients
      WHERE company_id = ANY($1::int[]) AND id <> ALL($2::int[])
        AND (lower(email) = ANY($3::text[]) OR mobile_digits = ANY($4::text[]))`,
    [
      [...new Set(clients.map((c) => c.company_id))],
      clients.map((c) => c.id),
      clients.flatMap((c) => (c.email != null ? [c.email.toLowerCase()] : [])),
      clients.map((c) => mobileDigits(c.mobile_number)).filter((d) => d !== ''),
    ],
  );
  for (const row of rows) {
    const byEmail = row.email === null ? undefined : emails.get(`${row.company_id}/${row.email}`);
    if (byEmail !== undefined) throw new BundleError(`${at('clients', byEmail, 'email')}: client ${row.id} of company ${row.company_id} already has this email`);
    const byMobile = mobiles.get(`${row.company_id}/${row.mobile_digits}`);
    if (byMobile !== undefined) throw new BundleError(`${at('clients', byMobile, 'mobile_number')}: client ${row.id} of company ${row.company_id} already has this mobile number`);
  }
}
