import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { displayPrefix, hashApiKey } from '../domain/api-key.js';
import { inSection } from './bundle-error.js';
import { facilityCoordinates, servedFacility } from './facility-row.js';
import type { AnyRecord, Records } from './bundle-records.js';
import { SECTIONS, type Bundle, type SectionName } from './bundle-schema.js';
import type { StepTimer } from './step-timer.js';
import { chunks, execute, query } from './raw-sql.js';
import { DEFAULT, NOW, quote, upsert, type Table } from './upsert.js';

/*
 * Where each section of a checked bundle goes: its table and columns, how a record's fields become
 * the row (hashed keys, JSON columns, facility coordinates), and what else a section writes besides
 * its rows (link lists replaced, identity sequences moved on). Sections are written in the order of
 * SECTIONS, which puts every record after the ones it refers to.
 */

const IDS_PER_STATEMENT = 10_000;

interface Written {
  projectIds: number[];
  facilityIds: number[];
}

export async function writeSections(db: Kysely<DB>, bundle: Bundle, step: StepTimer): Promise<Written> {
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
  project_types: (db, list) => upsert(db, TABLES.project_types, list),
  development_statuses: (db, list) => upsert(db, TABLES.development_statuses, list),
  // As decimal text: the stored numeric is exactly the number written in the bundle (shortest form).
  currency_rates: (db, list) => upsert(db, TABLES.currency_rates, list.map((r) => ({ ...r, aed_per_unit: String(r.aed_per_unit) }))),
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
    columns: withTimestamps('id', 'company_id', 'author_id', 'name', 'key_hash', 'key_prefix', 'price_vector', 'status', 'allowed_domains', 'private_applications', 'deleted_at'),
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
  project_types: { name: 'project_types', key: ['id'], columns: ['id', 'name'] },
  development_statuses: { name: 'development_statuses', key: ['id'], columns: ['id', 'name'] },
  currency_rates: { name: 'currency_rates', key: ['currency'], columns: withTimestamps('currency', 'aed_per_unit', 'as_of') },
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
 * payment_plans, image_file_ids and feature_ids replace what is stored; omitted means empty. Only the
 * projects whose lists differ are rewritten: rewriting touches the project (migration 0008), and an
 * unchanged list restated must neither list it in GET /changes nor send a webhook.
 */
async function replaceProjectLists(db: Kysely<DB>, allProjects: Records<'projects'>): Promise<void> {
  const stored = new Map<number, string>();
  for (const batch of chunks(allProjects, IDS_PER_STATEMENT)) {
    const rows = await query<{ id: number; plans: [number, number | string][] | null; images: number[] | null; features: number[] | null }>(
      db,
      `SELECT p.id,
              (SELECT json_agg(json_build_array(l.type, l.percent) ORDER BY l.position) FROM project_payment_plans l WHERE l.project_id = p.id) AS plans,
              (SELECT json_agg(l.file_id ORDER BY l.position) FROM project_images l WHERE l.project_id = p.id) AS images,
              (SELECT json_agg(l.feature_id ORDER BY l.feature_id) FROM project_feature_links l WHERE l.project_id = p.id) AS features
         FROM projects p WHERE p.id = ANY($1::int[])`,
      [batch.map((p) => p.id)],
    );
    for (const row of rows) stored.set(row.id, listsKey(row.plans ?? [], row.images ?? [], row.features ?? []));
  }
  const projects = allProjects.filter(
    (p) =>
      stored.get(p.id) !==
      listsKey(
        (p.payment_plans ?? []).map((plan) => [plan.type, plan.percent]),
        p.image_file_ids ?? [],
        p.feature_ids ?? [],
      ),
  );
  if (projects.length === 0) return;
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

/** A project's lists as one comparable text: plans in order, images in order, features as a set. */
function listsKey(plans: [number, number | string][], images: number[], features: number[]): string {
  return JSON.stringify([plans.map(([type, percent]) => [Number(type), Number(percent)]), images.map(Number), [...features].map(Number).sort((a, b) => a - b)]);
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
