import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { displayPrefix, hashApiKey } from '../domain/api-key.js';
import { BundleSchema, SECTIONS, type Bundle, type SectionName, type SectionRecord } from './bundle-schema.js';
import { LINKS_TABLE, relinkFacilities, type RelinkScope, type RelinkStrategy } from './facility-links.js';

/*
 * The catalogue bundle importer (contract: ../shared/spec/catalogue-bundle.md, summary: docs/bundle.md).
 *
 *   1. The bundle is validated against BundleSchema; the first problem becomes a BundleError naming
 *      section, index and field.
 *   2. In one transaction: duplicate keys, references (bundle + database) and unique rules are checked
 *      before anything is written, so errors name the record rather than a constraint.
 *   3. Sections are written in dependency order with multi-row upserts, link lists are replaced, and
 *      the project-facility links of everything touched are recomputed.
 *
 * A record states the whole row: an optional field that is left out (or null) puts the column back to
 * its default, so the stored row equals the bundle record whatever was there before.
 *
 * Timestamps: a given created_at/updated_at is stored as is. When not given, created_at is the import
 * time on insert and is kept on update, and updated_at is the import time on insert and on update.
 * Importing the same bundle twice therefore gives the same state for everything the API shows, except
 * that updated_at moves on rows whose bundle record does not give it.
 */

export class BundleError extends Error {
  override name = 'BundleError';
}

export type ImportSummary = { [S in SectionName]?: number } & { facility_links: number };

export interface ImportOptions {
  /** Metres: a project is linked to every facility within this distance. */
  facilityLinkRadiusM: number;
  /** How the facility links are recomputed; by default chosen by the size of the import. */
  relinkStrategy?: RelinkStrategy;
  /** Called after each step (validation, checks, every section, facility links) with its duration. */
  onProgress?: (step: string, ms: number) => void;
}

export async function importBundle(db: Kysely<DB>, bundle: unknown, options: ImportOptions): Promise<ImportSummary> {
  const step = stepTimer(options.onProgress);
  const valid = step('validate', () => validateBundle(bundle));
  const result = await db.transaction().execute(async (trx) => {
    // First: the import takes its catalogue version (migration 0007), which also queues it behind any
    // other catalogue writer, so versions follow commit order. The change signal goes out at commit.
    await sql`SELECT note_catalogue_change()`.execute(trx);
    await step('check references', () => checkBundle(trx, valid));
    const written = await writeSections(trx, valid, step);
    const links = await step('facility links', () =>
      inSection('facility links', [], () =>
        relinkAndTouch(trx, {
          projectIds: written.projectIds,
          facilityIds: written.facilityIds,
          radiusM: options.facilityLinkRadiusM,
          strategy: options.relinkStrategy,
        }),
      ),
    );
    const summary: ImportSummary = { facility_links: 0 };
    for (const section of SECTIONS) {
      const list = valid[section];
      if (list) summary[section] = list.length;
    }
    // Listed last (object key order is what the CLI prints).
    delete (summary as Partial<ImportSummary>).facility_links;
    summary.facility_links = links;
    return summary;
  });
  const written = Object.values(result).reduce((sum, count) => sum + (count ?? 0), 0);
  if (written > VACUUM_THRESHOLD) {
    // After a bulk load the visibility map is empty, so "index-only" scans still visit every heap
    // page (measured: the near_* and unit filters of GET /projects ran 2x slower until a VACUUM), and
    // the statistics still describe the tables before the load. VACUUM cannot run inside the import
    // transaction; if it fails the data is committed all the same and autovacuum catches up later.
    await step('vacuum', () => sql`VACUUM (ANALYZE) projects, units, unit_tag_links, project_facilities, facilities`.execute(db)).catch(() => {});
  }
  return result;
}

/*
 * A project's nearby block changes when a facility linked to it changes what it serves or where it is
 * (facilities.changed_version, migration 0008): the projects linked to such a facility before the
 * relink (its old position) and after it (its new one) are touched, so GET /changes lists them. The
 * link rule itself decides which projects those are. Projects the import wrote are already at this
 * version and skipped.
 */
async function relinkAndTouch(db: Kysely<DB>, scope: RelinkScope): Promise<number> {
  // relinkFacilities writes links and projects, never facilities: one count serves both touches.
  const changed = scope.facilityIds.length === 0 ? 0 : await changedFacilities(db);
  if (changed > 0) await touchProjectsNearChangedFacilities(db, changed);
  const links = await relinkFacilities(db, scope);
  if (changed > 0) await touchProjectsNearChangedFacilities(db, changed);
  return links;
}

/** Above this many changed facilities every linked project is touched (see below). */
const TOUCH_ALL_ABOVE_FACILITIES = 1_000;

/*
 * The projects whose nearby block may have changed, by their links to the facilities stamped in this
 * transaction. Few facilities (an edit): a semi-join from those facilities through the links' facility
 * index. Many (a catalogue restated whole: a re-import of L restamps its 50,000 facilities): every
 * project with a link, in one pass. The feed may then list a project whose nearby block did not
 * change (allowed: an entry means "fetch again"), but the statement cannot go wrong: with 50,000
 * facilities the planner turned the semi-join into minutes on PGlite (a join with the DISTINCT ids
 * became a 12 M-row nested loop on PostgreSQL, 4.6 s), and an id list bound as a parameter was
 * compared with each of the 4.4 M links.
 */
async function changedFacilities(db: Kysely<DB>): Promise<number> {
  const [{ changed }] = await query<{ changed: number }>(
    db,
    'SELECT count(*)::int AS changed FROM facilities WHERE changed_version = (SELECT note_catalogue_change())',
    [],
  );
  return changed;
}

async function touchProjectsNearChangedFacilities(db: Kysely<DB>, changed: number): Promise<void> {
  const linked =
    changed > TOUCH_ALL_ABOVE_FACILITIES
      ? `EXISTS (SELECT 1 FROM ${LINKS_TABLE} pf WHERE pf.project_id = p.id)`
      : `p.id IN (SELECT pf.project_id FROM facilities f JOIN ${LINKS_TABLE} pf ON pf.facility_id = f.id
                   WHERE f.changed_version = (SELECT note_catalogue_change()))`;
  await execute(db, `UPDATE projects p SET changed_version = -1 WHERE p.changed_version <> (SELECT note_catalogue_change()) AND ${linked}`, []);
}

/** Rows written above which the import vacuums the catalogue tables after committing. */
const VACUUM_THRESHOLD = 10_000;

type StepTimer = <T>(name: string, work: () => T) => T;

/** Runs a step and reports its duration (sync or async) to the caller's progress callback. */
function stepTimer(report: ImportOptions['onProgress']): StepTimer {
  return (name, work) => {
    if (!report) return work();
    const started = performance.now();
    const result = work();
    if (result instanceof Promise) return result.then((value: unknown) => (report(name, performance.now() - started), value)) as typeof result;
    report(name, performance.now() - started);
    return result;
  };
}

/* ------------------------------------------------------------------------------------------------ */
/* 1. Schema validation                                                                              */
/* ------------------------------------------------------------------------------------------------ */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let validator: ValidateFunction<Bundle> | undefined;

function compileValidator(): ValidateFunction<Bundle> {
  // allErrors off: stop at the first problem (fast on large bundles, and only one is reported).
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: false, coerceTypes: false, useDefaults: false });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' });
  // Checked after `format`, so it only sees well-formed RFC 3339 strings.
  ajv.addKeyword({
    keyword: 'x-storable-timestamp',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (enabled: boolean, value: string) => !enabled || isStorableTimestamp(value),
  });
  return ajv.compile<Bundle>(BundleSchema);
}

/** The bundle, typed, or a BundleError describing its first problem. */
export function validateBundle(input: unknown): Bundle {
  validator ??= compileValidator();
  if (!validator(input)) throw new BundleError(describeSchemaError(validator.errors?.[0]));
  const nul = findNulCharacter(input, '');
  if (nul) throw new BundleError(nul);
  return input;
}

const NUL_PROBLEM = 'must not contain the NUL character (\\u0000)';

/*
 * PostgreSQL text and jsonb cannot hold U+0000; left to the database, a NUL would fail the whole
 * section without naming the record. Walks every value, facilities[].data included.
 */
function findNulCharacter(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? `${path}: ${NUL_PROBLEM}` : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return `${path}: field names ${NUL_PROBLEM}`;
    const found = findNulCharacter(item, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** PostgreSQL refuses UTC offsets beyond this (minutes). */
const MAX_OFFSET_MIN = 15 * 60 + 59;
const DAY_S = 24 * 60 * 60;
const TIMESTAMP_PARTS = /^(\d{4})-(\d\d)-(\d\d)[t\s](\d\d):(\d\d):(\d\d(?:\.\d+)?)(?:z|([+-])(\d\d)(?::?(\d\d))?)$/i;

/*
 * An RFC 3339 timestamp the database stores and gives back unchanged: an offset PostgreSQL accepts, and
 * an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z (PostgreSQL would store a year
 * 0, BC or 10000 instant, but it reads back as a string that is no RFC 3339 timestamp).
 */
function isStorableTimestamp(value: string): boolean {
  const parts = TIMESTAMP_PARTS.exec(value);
  if (!parts) return true; // not well formed: `format` reports it
  const [, year, month, day, hour, minute, second, sign, offsetHours = '0', offsetMinutes = '0'] = parts;
  const offsetMin = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  if (Math.abs(offsetMin) > MAX_OFFSET_MIN || year === '0000') return false;
  // Seconds of the UTC day, rounded to microseconds as the database stores them.
  const utcS = Number(hour) * 3600 + Number(minute) * 60 + Math.round(Number(second) * 1e6) / 1e6 - offsetMin * 60;
  if (year === '0001' && month === '01' && day === '01' && utcS < 0) return false;
  if (year === '9999' && month === '12' && day === '31' && utcS >= DAY_S) return false;
  return true;
}

/** `/units/12/status` -> `units[12].status`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function describeSchemaError(error: ErrorObject | undefined): string {
  if (!error) return 'bundle: invalid bundle';
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    return path ? `${path}.${name}: unknown field` : `bundle: unknown section "${name}"`;
  }
  if (error.keyword === 'required') {
    const field = String(params.missingProperty);
    return `${path ? `${path}.${field}` : field}: is required`;
  }
  return `${path || 'bundle'}: ${schemaProblem(error, params)}`;
}

function schemaProblem(error: ErrorObject, params: Record<string, unknown>): string {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const custom = schema['x-error-message'];
  if (typeof custom === 'string') return custom;
  switch (error.keyword) {
    case 'type':
      return `must be ${String(params.type).split(',').map(typeName).join(' or ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return rangeProblem(schema);
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : JSON.stringify(v))).join(', ')}`;
    case 'format':
      return params.format === 'date-time'
        ? 'must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'
        : `must be a valid ${String(params.format)}`;
    case 'uniqueItems': {
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return `must not contain duplicates (items ${first} and ${second} are equal)`;
    }
    case 'x-storable-timestamp':
      return 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, with a UTC offset within ±15:59';
    case 'minLength':
      return 'must not be empty';
    default:
      return error.message ?? 'is invalid';
  }
}

function rangeProblem(schema: Record<string, unknown>): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return `must be between ${String(minimum)} and ${String(maximum)}`;
  const lower = minimum !== undefined ? `at least ${String(minimum)}` : exclusiveMinimum !== undefined ? `greater than ${String(exclusiveMinimum)}` : '';
  const upper = maximum !== undefined ? `at most ${String(maximum)}` : exclusiveMaximum !== undefined ? `less than ${String(exclusiveMaximum)}` : '';
  return `must be ${[lower, upper].filter(Boolean).join(' and ')}`;
}

function typeName(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false',
    object: 'an object', array: 'an array', null: 'null',
  };
  return names[type] ?? type;
}

/* ------------------------------------------------------------------------------------------------ */
/* 2. Checks that need the whole bundle or the database                                               */
/* ------------------------------------------------------------------------------------------------ */

type Records<S extends SectionName> = SectionRecord<S>[];
type AnyRecord = Record<string, unknown>;

const records = <S extends SectionName>(bundle: Bundle, section: S): Records<S> => (bundle[section] ?? []) as Records<S>;

const at = (section: string, index: number, field: string) => `${section}[${index}].${field}`;

async function checkBundle(db: Kysely<DB>, bundle: Bundle): Promise<void> {
  checkDuplicateKeys(bundle);
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
  board_stages: { field: 'id', key: (r) => String(r.id) },
  offer_statuses: { field: 'id', key: (r) => String(r.id) },
  clients: { field: 'id', key: (r) => String(r.id) },
};

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

const AGENCY = 2;
const DEVELOPER = 3;

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

/* ------------------------------------------------------------------------------------------------ */
/* 3. Writing                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

/** Cell value: the column's default (null or the DDL default; null and undefined mean the same). */
const DEFAULT = Symbol('DEFAULT');
/** Cell value: now(), the transaction's timestamp, the same for every row of the import. */
const NOW = Symbol('NOW');
type Row = Record<string, unknown>;

interface Table {
  name: keyof DB & string;
  /** The conflict target of the upsert. */
  key: readonly string[];
  /** Every column written, key included. Columns not listed (e.g. clients.notes) are never touched. */
  columns: readonly string[];
}

const ROWS_PER_STATEMENT = 1000;
// PostgreSQL takes up to 65,535 parameters, but PGlite's protocol parser reads the parameter count of
// a statement as a signed 16-bit number: above 32,767 it fails with "RangeError: Invalid array length".
const MAX_PARAMETERS = 32_767;
const IDS_PER_STATEMENT = 10_000;

interface Written {
  projectIds: number[];
  facilityIds: number[];
}

async function writeSections(db: Kysely<DB>, bundle: Bundle, step: StepTimer): Promise<Written> {
  const written: Written = { projectIds: [], facilityIds: [] };
  for (const section of SECTIONS) {
    const list = bundle[section];
    if (!list || list.length === 0) continue;
    await step(section, () => inSection(section, list as AnyRecord[], () => WRITERS[section](db, list as never, written)));
  }
  return written;
}

type Writer<S extends SectionName> = (db: Kysely<DB>, records: Records<S>, written: Written) => Promise<unknown>;

const deletedAt = (deleted: boolean | null | undefined) => (deleted ? NOW : null);
const json = (value: unknown) => (value == null ? DEFAULT : JSON.stringify(value));
const timestampsOf = (r: { created_at?: string | null; updated_at?: string | null }) => ({ created_at: r.created_at, updated_at: r.updated_at });

const WRITERS: { [S in SectionName]: Writer<S> } = {
  // Rows may carry more fields than the table has columns; upsert() reads only the columns.
  files: (db, list) => upsert(db, TABLES.files, list),
  areas: (db, list) => upsert(db, TABLES.areas, list),
  unit_tags: (db, list) => upsert(db, TABLES.unit_tags, list),
  project_features: (db, list) => upsert(db, TABLES.project_features, list),
  companies: (db, list) => upsert(db, TABLES.companies, list.map((r) => ({ ...r, deleted_at: deletedAt(r.deleted) }))),
  users: (db, list) => upsert(db, TABLES.users, list.map((r) => ({ ...r, deleted_at: deletedAt(r.deleted) }))),
  company_members: (db, list) =>
    upsert(db, TABLES.company_members, list.map((r) => ({ ...r, social_links: json(r.social_links) }))),
  contracts: (db, list) => upsert(db, TABLES.contracts, list),
  api_keys: async (db, list) => {
    // The secret itself is dropped here: only its hash, and the prefix shown in listings, are stored.
    const rows = list.map(({ key, ...r }) => ({ ...r, key_hash: hashApiKey(key), key_prefix: displayPrefix(key), deleted_at: deletedAt(r.deleted) }));
    await upsert(db, TABLES.api_keys, rows);
    await moveIdentityPastMax(db, 'api_keys');
  },
  projects: async (db, list, written) => {
    await upsert(db, TABLES.projects, list.map((r) => ({ ...r, deleted_at: deletedAt(r.deleted) })));
    await replaceProjectLists(db, list);
    written.projectIds = list.map((p) => p.id);
  },
  units: async (db, list) => {
    // tag_ids is written twice from the same field: the links (rows with ids, shown by GET /units/{id})
    // and the unit's own copy that the unit filters read (migration 0004).
    const rows = list.map((r) => ({ ...r, deleted_at: deletedAt(r.deleted), tag_ids: [...new Set(r.tag_ids ?? [])].sort((a, b) => a - b) }));
    await upsert(db, TABLES.units, rows);
    await replaceUnitTags(db, list);
  },
  facilities: async (db, list, written) => {
    const rows = list.map((r) => ({
      category: r.category,
      source_id: String(r.source_id),
      data: JSON.stringify(r.data),
      facility_json: JSON.stringify(servedFacility(r)),
      ...facilityCoordinates(r.category, r.data),
      ...timestampsOf(r),
    }));
    const ids = await upsert(db, TABLES.facilities, rows, 'id');
    written.facilityIds = ids.map((row) => row.id as number);
  },
  board_stages: async (db, list) => {
    // Park the stages being written at positions no stage uses, so a bundle may swap positions
    // without tripping the (company_id, position) unique constraint halfway through a statement.
    await execute(db, 'UPDATE board_stages SET position = -id WHERE id = ANY($1::int[])', [list.map((s) => s.id)]);
    await upsert(db, TABLES.board_stages, list);
    await moveIdentityPastMax(db, 'board_stages');
  },
  offer_statuses: (db, list) => upsert(db, TABLES.offer_statuses, list),
  clients: async (db, list) => {
    // Same reason as board stages: let a bundle move an email or mobile number from one client to another.
    await execute(db, 'UPDATE clients SET email = NULL, mobile_number = NULL WHERE id = ANY($1::int[])', [list.map((c) => c.id)]);
    await upsert(db, TABLES.clients, list.map((r) => ({ ...r, social_links: json(r.social_links) })));
    await moveIdentityPastMax(db, 'clients');
  },
};

const withTimestamps = (...columns: string[]) => [...columns, 'created_at', 'updated_at'];

const TABLES = {
  files: { name: 'files', key: ['id'], columns: withTimestamps('id', 'path', 'original_name', 'storage_name', 'mime_type', 'size') },
  areas: { name: 'areas', key: ['id'], columns: withTimestamps('id', 'name', 'city') },
  unit_tags: { name: 'unit_tags', key: ['id'], columns: withTimestamps('id', 'name') },
  project_features: { name: 'project_features', key: ['id'], columns: withTimestamps('id', 'name', 'type') },
  companies: {
    name: 'companies',
    key: ['id'],
    columns: withTimestamps(
      'id', 'company_type', 'company_name', 'legal_name', 'trade_license_code', 'rera_license_code',
      'preferred_contact_email', 'preferred_contact_phone', 'office_address', 'po_box_number', 'logo_file_id',
      'organisation_description', 'specialisation', 'project_portfolio_url', 'trade_license_document_verified',
      'rera_certificate_verified', 'identification_document_verified', 'status', 'licence_status', 'deleted_at',
    ),
  },
  users: { name: 'users', key: ['id'], columns: withTimestamps('id', 'name', 'email', 'status', 'type', 'deleted_at') },
  company_members: {
    name: 'company_members',
    key: ['company_id', 'user_id'],
    columns: ['company_id', 'user_id', 'role', 'contact_phone', 'avatar_file_id', 'social_links', 'languages', 'bio'],
  },
  contracts: { name: 'contracts', key: ['agency_id', 'developer_id'], columns: ['agency_id', 'developer_id', 'status'] },
  api_keys: {
    name: 'api_keys',
    key: ['id'],
    columns: withTimestamps('id', 'company_id', 'author_id', 'name', 'key_hash', 'key_prefix', 'price_vector', 'status', 'allowed_domains', 'deleted_at'),
  },
  projects: {
    name: 'projects',
    key: ['id'],
    columns: withTimestamps(
      'id', 'company_id', 'author_id', 'area_id', 'name', 'description', 'type', 'status', 'development_status',
      'readiness_progress', 'total_floors', 'developer_registration_id', 'trakheesi_project_id', 'escrow_account',
      'oqood_registration', 'launch_date', 'launch_time', 'handover_date', 'resale_conditions', 'floors_formula',
      'is_draft', 'is_branded', 'is_resale', 'service_charge', 'currency', 'commission_type', 'latitude', 'longitude',
      'address', 'floor_plan_file_id', 'brochure_file_id', 'general_plan_file_id', 'tours', 'presentations', 'deleted_at',
    ),
  },
  units: {
    name: 'units',
    key: ['id'],
    columns: withTimestamps(
      'id', 'project_id', 'unit_number', 'bedrooms', 'status', 'furnishing', 'parking', 'floor', 'price', 'unit_area',
      'plan_file_id', 'deleted_at', 'tag_ids',
    ),
  },
  facilities: { name: 'facilities', key: ['category', 'source_id'], columns: withTimestamps('category', 'source_id', 'data', 'facility_json', 'latitude', 'longitude') },
  board_stages: { name: 'board_stages', key: ['id'], columns: ['id', 'company_id', 'name', 'position'] },
  offer_statuses: { name: 'offer_statuses', key: ['id'], columns: ['id', 'name'] },
  clients: {
    name: 'clients',
    key: ['id'],
    columns: withTimestamps(
      'id', 'company_id', 'first_name', 'last_name', 'email', 'mobile_number', 'landline_number', 'address_line1',
      'address_line2', 'city', 'country', 'postcode', 'social_links', 'property_types', 'preferred_area_ids',
      'property_features',
    ),
  },
} satisfies Record<SectionName, Table>;

/**
 * `INSERT ... VALUES (...), (...) ON CONFLICT (key) DO UPDATE SET` every column, in batches. Rows are
 * grouped by which timestamps they give, because that decides the SET clause (see the file comment).
 */
async function upsert(db: Kysely<DB>, table: Table, rows: Row[], returning?: string): Promise<Row[]> {
  const returned: Row[] = [];
  const rowsPerStatement = Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / table.columns.length));
  for (const group of groupByGivenTimestamps(table, rows)) {
    const set = updateSet(table, group.createdGiven, group.updatedGiven);
    for (const batch of chunks(group.rows, rowsPerStatement)) {
      const params: unknown[] = [];
      const values = batch.map((row) => `(${table.columns.map((column) => cell(row[column], params)).join(', ')})`);
      const text =
        `INSERT INTO ${table.name} AS t (${table.columns.map(quote).join(', ')}) VALUES ${values.join(', ')} ` +
        `ON CONFLICT (${table.key.map(quote).join(', ')}) DO UPDATE SET ${set}` +
        (returning ? ` RETURNING ${quote(returning)}` : '');
      const result = await db.executeQuery<Row>(CompiledQuery.raw(text, params));
      returned.push(...result.rows);
    }
  }
  return returned;
}

function cell(value: unknown, params: unknown[]): string {
  if (value === undefined || value === null || value === DEFAULT) return 'DEFAULT';
  if (value === NOW) return 'now()';
  params.push(value);
  return `$${params.length}`;
}

const quote = (identifier: string) => `"${identifier}"`;

function groupByGivenTimestamps(table: Table, rows: Row[]) {
  const hasTimestamps = table.columns.includes('updated_at');
  const groups = new Map<string, { createdGiven: boolean; updatedGiven: boolean; rows: Row[] }>();
  for (const row of rows) {
    const createdGiven = hasTimestamps && row.created_at != null;
    const updatedGiven = hasTimestamps && row.updated_at != null;
    const id = `${createdGiven}/${updatedGiven}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { createdGiven, updatedGiven, rows: [] }));
    group.rows.push(row);
  }
  return groups.values();
}

function updateSet(table: Table, createdGiven: boolean, updatedGiven: boolean): string {
  return table.columns
    .filter((column) => !table.key.includes(column))
    .flatMap((column) => {
      switch (column) {
        case 'created_at':
          return createdGiven ? ['"created_at" = EXCLUDED."created_at"'] : [];
        case 'updated_at':
          return [`"updated_at" = ${updatedGiven ? 'EXCLUDED."updated_at"' : 'now()'}`];
        case 'deleted_at':
          // Deleting again keeps the original deletion time; not deleted clears it.
          return ['"deleted_at" = CASE WHEN EXCLUDED."deleted_at" IS NOT NULL THEN coalesce(t."deleted_at", EXCLUDED."deleted_at") END'];
        default:
          return [`${quote(column)} = EXCLUDED.${quote(column)}`];
      }
    })
    .join(', ');
}

/** payment_plans, image_file_ids and feature_ids replace what is stored; omitted means empty. */
async function replaceProjectLists(db: Kysely<DB>, projects: Records<'projects'>): Promise<void> {
  const ids = projects.map((p) => p.id);
  for (const table of ['project_payment_plans', 'project_images', 'project_feature_links']) {
    await deleteWhereIn(db, table, 'project_id', ids);
  }
  const plans = projects.flatMap((p) => (p.payment_plans ?? []).map((plan, position) => [p.id, position, plan.type, plan.percent]));
  await insertColumns(db, 'project_payment_plans', ['project_id', 'position', 'type', 'percent'], ['int', 'int', 'smallint', 'numeric'], plans);
  const images = projects.flatMap((p) => (p.image_file_ids ?? []).map((fileId, position) => [p.id, position, fileId]));
  await insertColumns(db, 'project_images', ['project_id', 'position', 'file_id'], ['int', 'int', 'int'], images);
  const features = projects.flatMap((p) => (p.feature_ids ?? []).map((featureId) => [p.id, featureId]));
  await insertColumns(db, 'project_feature_links', ['project_id', 'feature_id'], ['int', 'int'], features);
}

/**
 * tag_ids replace the unit's tags, but a link whose tag stays keeps its row (and id, which the API
 * shows): only the links to dropped tags are deleted and only the new ones inserted.
 */
async function replaceUnitTags(db: Kysely<DB>, units: Records<'units'>): Promise<void> {
  for (const batch of chunks(units, IDS_PER_STATEMENT)) {
    const unitIds = batch.map((u) => u.id);
    const pairs = batch.flatMap((u) => (u.tag_ids ?? []).map((tagId) => [u.id, tagId]));
    const linkUnits = pairs.map((pair) => pair[0]);
    const linkTags = pairs.map((pair) => pair[1]);
    await execute(
      db,
      `DELETE FROM unit_tag_links l
        WHERE l.unit_id = ANY($1::int[])
          AND NOT EXISTS (SELECT 1 FROM unnest($2::int[], $3::int[]) AS keep(unit_id, tag_id)
                           WHERE keep.unit_id = l.unit_id AND keep.tag_id = l.tag_id)`,
      [unitIds, linkUnits, linkTags],
    );
    if (pairs.length === 0) continue;
    await execute(
      db,
      `INSERT INTO unit_tag_links (unit_id, tag_id)
       SELECT unit_id, tag_id FROM unnest($1::int[], $2::int[]) AS link(unit_id, tag_id)
       ON CONFLICT (unit_id, tag_id) DO NOTHING`,
      [linkUnits, linkTags],
    );
  }
}

/**
 * The facility object GET /projects/{id} serves: the record as imported, unchanged, with the bundle's
 * source id first when the record itself has none (a `source_id` in the record wins).
 */
function servedFacility(r: { source_id: unknown; data: Record<string, unknown> }): Record<string, unknown> {
  return { source_id: String(r.source_id), ...r.data };
}

/*
 * Facility coordinates live in the source record: latitude/longitude for airports and ports,
 * asset_latitude/asset_longitude for every other category. Numbers or numeric strings; anything else,
 * or a value outside the valid range, leaves the facility without coordinates (and without links).
 */
function facilityCoordinates(category: string, data: Record<string, unknown>): { latitude: number | null; longitude: number | null } {
  const [latKey, lonKey] = category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
  const latitude = coordinate(data[latKey], 90);
  const longitude = coordinate(data[lonKey], 180);
  return latitude === null || longitude === null ? { latitude: null, longitude: null } : { latitude, longitude };
}

/** A plain decimal number, as text (Number() alone would also take '0x19', '0b1' or 'Infinity'). */
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i;

function coordinate(value: unknown, limit: number): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value) ? Number(value) : NaN;
  return Number.isFinite(number) && Math.abs(number) <= limit ? number : null;
}

/**
 * Rows written with explicit ids leave an identity sequence behind the data; move it past the largest
 * id so rows the API inserts later do not collide. Never moves a sequence backwards.
 */
async function moveIdentityPastMax(db: Kysely<DB>, table: 'api_keys' | 'clients' | 'board_stages'): Promise<void> {
  await execute(
    db,
    `SELECT setval(s.seq, greatest((SELECT max(id) FROM ${table}), pg_sequence_last_value(s.seq), 0) + 1, false)
       FROM (SELECT pg_get_serial_sequence('${table}', 'id')::regclass AS seq) s`,
    [],
  );
}

async function deleteWhereIn(db: Kysely<DB>, table: string, column: string, ids: number[]): Promise<void> {
  for (const batch of chunks(ids, IDS_PER_STATEMENT)) {
    await execute(db, `DELETE FROM ${table} WHERE ${column} = ANY($1::int[])`, [batch]);
  }
}

/** Plain inserts of many rows, one array parameter per column (unnest), in batches. */
async function insertColumns(db: Kysely<DB>, table: string, columns: string[], types: string[], rows: unknown[][]): Promise<void> {
  for (const batch of chunks(rows, IDS_PER_STATEMENT)) {
    const arrays = columns.map((_, c) => batch.map((row) => row[c]));
    const args = types.map((type, c) => `$${c + 1}::${type}[]`).join(', ');
    await execute(db, `INSERT INTO ${table} (${columns.map(quote).join(', ')}) SELECT * FROM unnest(${args})`, arrays);
  }
}

/* ------------------------------------------------------------------------------------------------ */
/* Database errors                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

interface DatabaseError {
  code: string;
  message: string;
  detail?: string;
}

/** PostgreSQL errors (pg and PGlite alike) carry the five-character SQLSTATE in `code`. */
function isDatabaseError(error: unknown): error is DatabaseError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * The checks above should leave the database nothing to refuse; should it refuse anyway (a constraint
 * they do not know about, a race with another writer), the error still names the section and, when
 * the constraint's detail identifies it, the record and field.
 */
async function inSection<T>(section: string, list: AnyRecord[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BundleError || !isDatabaseError(error)) throw error;
    const where = locateRecord(section, list, error.detail);
    throw new BundleError(`${where}: ${error.message}${error.detail ? ` (${error.detail})` : ''}`, { cause: error });
  }
}

/** `Key (project_id)=(99) is not present ...` -> the first record with project_id 99. */
function locateRecord(section: string, list: AnyRecord[], detail: string | undefined): string {
  const match = detail?.match(/^Key \((.+?)\)=\((.*)\)/);
  if (!match) return section;
  const fields = match[1].split(', ');
  const values = match[2].split(', ');
  if (fields.length !== values.length) return section;
  const index = list.findIndex((record) => fields.every((field, i) => record[field] != null && String(record[field]) === values[i]));
  return index === -1 ? section : at(section, index, fields[fields.length - 1]);
}

/* ------------------------------------------------------------------------------------------------ */

async function query<R>(db: Kysely<DB>, text: string, params: unknown[]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

async function execute(db: Kysely<DB>, text: string, params: unknown[]): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(text, params));
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
