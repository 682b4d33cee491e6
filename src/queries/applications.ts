import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import {
  ApplicationRejected,
  mergeWithUnit,
  opportunityName,
  prepareApplication,
  type ApplicationRequest,
  type MergedInterests,
  type PreparedApplication,
  type UnitFacts,
} from '../domain/application-merge.js';
import { IDEMPOTENCY_TTL_HOURS } from '../domain/idempotency.js';
import { keyPriceSql } from '../domain/pricing.js';
import type { KeyRecord } from './api-keys.js';
import { projectIsVisible } from './visibility.js';

/*
 * POST /units/{id}/applications as one transaction: the idempotency reservation (when asked for), the
 * client (found or created), the opportunity with its tags and features, the draft offer and the link
 * between them all commit together or not at all.
 *
 * Concurrency is settled by the database, so it holds with any number of API processes:
 * - the agency's first board stage is locked (FOR NO KEY UPDATE) before the card's position is computed, so
 *   concurrent applications into one column get distinct, gap-free end positions;
 * - a new client is inserted with ON CONFLICT DO NOTHING against the two unique indexes (company +
 *   lower(email), company + mobile digits) and re-selected when another transaction won the race;
 * - the Idempotency-Key row is inserted first with ON CONFLICT DO NOTHING: a duplicate arriving while the
 *   first request runs waits for it (up to IN_FLIGHT_WAIT_MS) and then replays its committed response.
 */

/** How long a duplicate Idempotency-Key waits for the request holding it before answering 409. */
export const IN_FLIGHT_WAIT_MS = 5_000;
/** Stage created for an agency whose board has none yet. */
export const DEFAULT_STAGE = { name: 'New', position: 0 } as const;
/** 1 = ft² (the only documented value). */
const MEASURE_UNITS_FT2 = 1;
/** Expired idempotency rows of the key removed per request, so the table does not grow for ever. */
const IDEMPOTENCY_SWEEP = 100;

export type ApplicationKey = Pick<KeyRecord, 'id' | 'price_vector' | 'contracted_developer_ids'> & {
  company: { id: number };
  author: { id: number };
};

export interface ApplicationInput {
  unitId: number;
  request: ApplicationRequest;
  key: ApplicationKey;
  idempotency?: { key: string; requestHash: string };
}

export interface FeatureItem {
  id: number;
  name: string;
  type: 1 | 2;
}

export interface ApplicationData {
  client: {
    id: number;
    first_name: string;
    last_name: string | null;
    email: string | null;
    mobile_number: string | null;
    property_types: number[];
    preferred_area_ids: number[];
    property_features: string[];
    created: boolean;
    created_at: string;
  };
  opportunity: {
    id: number;
    name: string;
    stage: { id: number; name: string; position: number };
    investment_type: number | null;
    currency: string;
    min_budget: number | null;
    max_budget: number | null;
    position: number;
    preferences: { id: number; name: string }[];
    project_preferences: { features: FeatureItem[]; amenities: FeatureItem[] };
    created_at: string;
  };
  offer: {
    id: number;
    uuid: string;
    offer_status: { id: number; name: string };
    unit: { id: number; unit_number: string; project_id: number; project_name: string };
    price: number | null;
    language: string;
    currency: string;
    measure_units: number;
    advisor_name: string;
    advisor_email: string | null;
    advisor_phone: string | null;
    is_sent: boolean;
    created_at: string;
  };
}

export interface ApplicationOutcome {
  statusCode: number;
  data: ApplicationData;
  /** True when an Idempotency-Key replay returned the stored response and nothing was written. */
  replayed: boolean;
}

const APPLICATION_CREATED = 201;

export async function submitApplication(db: Kysely<DB>, input: ApplicationInput): Promise<ApplicationOutcome> {
  const prepared = prepareApplication(input.request);
  const { key } = input;
  return db.transaction().execute(async (trx) => {
    if (input.idempotency) {
      const replay = await reserveIdempotencyKey(trx, key.id, input.idempotency);
      if (replay) return replay;
    }

    const unit = await findApplicableUnit(trx, key, input.unitId);
    if (!unit) throw new ApplicationRejected({ code: 'unit_not_found' });
    const merged = mergeWithUnit(prepared, unit.facts);
    const references = await loadReferences(trx, prepared, merged);

    const offerStatus = await trx.selectFrom('offer_statuses').select(['id', 'name']).orderBy('id').limit(1).executeTakeFirst();
    if (!offerStatus) throw new ApplicationRejected({ code: 'offer_status_catalogue_empty' });
    const advisor = await findAdvisor(trx, key);
    if (!advisor) throw new ApplicationRejected({ code: 'author_gone' });

    const client = await findOrCreateClient(trx, key.company.id, prepared, merged);
    // The offer depends on nothing the board lock protects, so it is written before taking it.
    const offer = await trx
      .insertInto('offers')
      .values({
        uuid: randomUUID(),
        company_id: key.company.id,
        author_id: key.author.id,
        unit_id: unit.id,
        offer_status_id: offerStatus.id,
        price: unit.facts.price,
        language: prepared.language,
        currency: merged.currency,
        measure_units: MEASURE_UNITS_FT2,
        advisor_name: advisor.name,
        advisor_email: advisor.email,
        advisor_phone: advisor.contact_phone,
        is_sent: false,
      })
      .returning(['id', 'uuid', 'price', 'language', 'currency', 'measure_units', 'advisor_name', 'advisor_email', 'advisor_phone', 'is_sent', 'created_at'])
      .executeTakeFirstOrThrow();

    // Taken as late as possible: every application of the agency queues on this lock until commit, so
    // what follows is two statements (the card at the end of the column, then its links) and the commit.
    const stage = await lockFirstStage(trx, key.company.id);
    const opportunity = await trx
      .insertInto('opportunities')
      .values({
        company_id: key.company.id,
        client_id: client.id,
        stage_id: stage.id,
        author_id: key.author.id,
        api_key_id: key.id,
        unit_id: unit.id,
        name: opportunityName(client.first_name, client.last_name, unit.facts.project_name, unit.facts.unit_number),
        investment_type: prepared.investment_type,
        currency: merged.currency,
        min_budget: merged.budget.min,
        max_budget: merged.budget.max,
        position: sql<number>`(SELECT coalesce(max(o.position) + 1, 0) FROM opportunities o WHERE o.stage_id = ${stage.id})`,
        notes: prepared.message,
      })
      .returning(['id', 'name', 'investment_type', 'currency', 'min_budget', 'max_budget', 'position', 'created_at'])
      .executeTakeFirstOrThrow();
    await sql`
      WITH tags AS (
        INSERT INTO opportunity_tags (opportunity_id, tag_id) SELECT ${opportunity.id}, unnest(${merged.preference_ids}::int[])
      ), features AS (
        INSERT INTO opportunity_project_features (opportunity_id, feature_id) SELECT ${opportunity.id}, unnest(${merged.project_preference_ids}::int[])
      )
      INSERT INTO offer_opportunities (offer_id, opportunity_id) VALUES (${offer.id}, ${opportunity.id})`.execute(trx);

    const data: ApplicationData = {
      client: {
        id: client.id,
        first_name: client.first_name,
        last_name: client.last_name,
        email: client.email,
        mobile_number: client.mobile_number,
        property_types: client.property_types,
        preferred_area_ids: client.preferred_area_ids,
        property_features: client.property_features,
        created: client.created,
        created_at: client.created_at,
      },
      opportunity: {
        id: opportunity.id,
        name: opportunity.name,
        stage: { id: stage.id, name: stage.name, position: stage.position },
        investment_type: opportunity.investment_type,
        currency: opportunity.currency,
        min_budget: opportunity.min_budget,
        max_budget: opportunity.max_budget,
        position: opportunity.position,
        preferences: merged.preference_ids.map((id) => ({ id, name: references.tags.get(id)! })),
        project_preferences: {
          features: merged.project_preference_ids.map((id) => references.features.get(id)!).filter((f) => f.type === 1),
          amenities: merged.project_preference_ids.map((id) => references.features.get(id)!).filter((f) => f.type === 2),
        },
        created_at: opportunity.created_at,
      },
      offer: {
        id: offer.id,
        uuid: offer.uuid,
        offer_status: { id: offerStatus.id, name: offerStatus.name },
        unit: { id: unit.id, unit_number: unit.facts.unit_number, project_id: unit.project_id, project_name: unit.facts.project_name },
        price: offer.price,
        language: offer.language,
        currency: offer.currency,
        measure_units: offer.measure_units,
        advisor_name: offer.advisor_name,
        advisor_email: offer.advisor_email,
        advisor_phone: offer.advisor_phone,
        is_sent: offer.is_sent,
        created_at: offer.created_at,
      },
    };

    if (input.idempotency) {
      await trx
        .updateTable('idempotency_keys')
        .set({ status_code: APPLICATION_CREATED, response: JSON.stringify(data) })
        .where('api_key_id', '=', key.id)
        .where('key', '=', input.idempotency.key)
        .execute();
    }
    return { statusCode: APPLICATION_CREATED, data, replayed: false };
  });
}

// ---------------------------------------------------------------------------------------------------
// Idempotency
// ---------------------------------------------------------------------------------------------------

const expiredSql = sql<boolean>`created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

/**
 * Reserves (api key, Idempotency-Key) for this transaction, or answers from an earlier request. The
 * reservation commits with the business rows, so a stored row always carries its response; a row that
 * is not visible yet belongs to a request still running, and the insert waits for it.
 */
async function reserveIdempotencyKey(
  trx: Transaction<DB>,
  apiKeyId: number,
  idempotency: { key: string; requestHash: string },
): Promise<ApplicationOutcome | undefined> {
  const { rows } = await sql<{ lock_timeout: string }>`SELECT current_setting('lock_timeout') AS lock_timeout`.execute(trx);
  const previousLockTimeout = rows[0]?.lock_timeout ?? '0';
  await sql`SELECT set_config('lock_timeout', ${`${IN_FLIGHT_WAIT_MS}ms`}, true)`.execute(trx);

  try {
    // A row can vanish or expire between our statements; a few rounds always settle it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await trx
        .insertInto('idempotency_keys')
        .values({ api_key_id: apiKeyId, key: idempotency.key, request_hash: idempotency.requestHash })
        .onConflict((oc) => oc.columns(['api_key_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted) {
        await sql`SELECT set_config('lock_timeout', ${previousLockTimeout}, true)`.execute(trx);
        await sweepExpiredKeys(trx, apiKeyId, idempotency.key);
        return undefined;
      }

      const stored = await trx
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'status_code', 'response', expiredSql.as('expired')])
        .where('api_key_id', '=', apiKeyId)
        .where('key', '=', idempotency.key)
        .executeTakeFirst();
      if (!stored) continue;
      if (stored.expired) {
        await trx
          .deleteFrom('idempotency_keys')
          .where('api_key_id', '=', apiKeyId)
          .where('key', '=', idempotency.key)
          .where(expiredSql)
          .execute();
        continue;
      }
      if (stored.request_hash !== idempotency.requestHash) throw new ApplicationRejected({ code: 'idempotency_mismatch' });
      if (stored.status_code === null || stored.response === null) throw new ApplicationRejected({ code: 'idempotency_in_flight' });
      return { statusCode: stored.status_code, data: stored.response as ApplicationData, replayed: true };
    }
    throw new Error('idempotency key reservation did not settle');
  } catch (error) {
    if (isLockTimeout(error)) throw new ApplicationRejected({ code: 'idempotency_in_flight' });
    throw error;
  }
}

/** Drops a few expired rows of this API key; rows another transaction holds are skipped, not waited for. */
async function sweepExpiredKeys(trx: Transaction<DB>, apiKeyId: number, currentKey: string): Promise<void> {
  await sql`
    DELETE FROM idempotency_keys
    WHERE (api_key_id, key) IN (
      SELECT api_key_id, key FROM idempotency_keys
      WHERE api_key_id = ${apiKeyId} AND key <> ${currentKey} AND ${expiredSql}
      LIMIT ${IDEMPOTENCY_SWEEP}
      FOR UPDATE SKIP LOCKED)`.execute(trx);
}

function isLockTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '55P03';
}

// ---------------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------------

interface ApplicableUnit {
  id: number;
  project_id: number;
  facts: UnitFacts;
}

/** The unit, if it is live and its project visible to the key (same rule as GET /units/{id}). */
async function findApplicableUnit(trx: Transaction<DB>, key: ApplicationKey, unitId: number): Promise<ApplicableUnit | undefined> {
  const row = await trx
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .where('u.id', '=', unitId)
    .where('u.deleted_at', 'is', null)
    .where(projectIsVisible(key))
    .select([
      'u.id',
      'u.project_id',
      'u.unit_number',
      'p.name as project_name',
      'p.type as project_type',
      'p.area_id',
      'p.currency as project_currency',
      keyPriceSql(sql.ref('u.price'), key.price_vector).as('price'),
      sql<number[]>`ARRAY(SELECT l.tag_id FROM unit_tag_links l WHERE l.unit_id = u.id ORDER BY l.id)`.as('tag_ids'),
      sql<number[]>`ARRAY(SELECT f.feature_id FROM project_feature_links f WHERE f.project_id = p.id ORDER BY f.feature_id)`.as('feature_ids'),
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    project_id: row.project_id,
    facts: {
      unit_number: row.unit_number,
      project_name: row.project_name,
      project_type: row.project_type,
      area_id: row.area_id,
      project_currency: row.project_currency,
      price: row.price === null ? null : Number(row.price),
      tag_ids: row.tag_ids,
      feature_ids: row.feature_ids,
    },
  };
}

interface References {
  tags: Map<number, string>;
  features: Map<number, FeatureItem>;
}

/**
 * Checks every explicit reference id (derived ones come from the catalogue and exist) and loads the
 * names the response shows. The first unknown id, in request order, is reported.
 */
async function loadReferences(trx: Transaction<DB>, prepared: PreparedApplication, merged: MergedInterests): Promise<References> {
  const { explicit } = prepared;
  if (explicit.preferred_area_ids.length) {
    const rows = await trx.selectFrom('areas').select('id').where('id', 'in', explicit.preferred_area_ids).execute();
    reportUnknown('preferences.preferred_area_ids', 'area', explicit.preferred_area_ids, new Set(rows.map((r) => r.id)));
  }

  const tags = new Map<number, string>();
  if (merged.preference_ids.length) {
    const rows = await trx.selectFrom('unit_tags').select(['id', 'name']).where('id', 'in', merged.preference_ids).execute();
    for (const row of rows) tags.set(row.id, row.name);
  }
  reportUnknown('preferences.preference_ids', 'unit tag', explicit.preference_ids, new Set(tags.keys()));

  const features = new Map<number, FeatureItem>();
  if (merged.project_preference_ids.length) {
    const rows = await trx.selectFrom('project_features').select(['id', 'name', 'type']).where('id', 'in', merged.project_preference_ids).execute();
    for (const row of rows) features.set(row.id, { id: row.id, name: row.name, type: row.type as 1 | 2 });
  }
  reportUnknown('preferences.project_preference_ids', 'project feature or amenity', explicit.project_preference_ids, new Set(features.keys()));

  return { tags, features };
}

function reportUnknown(field: string, what: string, ids: number[], known: Set<number>): void {
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) {
    throw new ApplicationRejected({ code: 'invalid', message: `${field} contains an unknown ${what} id: ${unknown}` });
  }
}

/** The key's author as the offer's advisor; undefined when the author or the membership is gone. */
async function findAdvisor(trx: Transaction<DB>, key: ApplicationKey) {
  return trx
    .selectFrom('users as u')
    .innerJoin('company_members as m', (join) => join.onRef('m.user_id', '=', 'u.id').on('m.company_id', '=', key.company.id))
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .where('u.id', '=', key.author.id)
    .where('u.deleted_at', 'is', null)
    .where('c.deleted_at', 'is', null)
    .select(['u.name', 'u.email', 'm.contact_phone'])
    .executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------------

/**
 * The agency's first column (lowest position), locked until commit: every application of the agency
 * queues here, which is what keeps positions distinct and gap-free. An agency without a board gets a
 * default stage; ON CONFLICT on (company_id, position) makes concurrent first applications agree on it.
 */
async function lockFirstStage(trx: Transaction<DB>, companyId: number) {
  const select = () =>
    trx
      .selectFrom('board_stages')
      .select(['id', 'name', 'position'])
      .where('company_id', '=', companyId)
      .orderBy('position')
      .orderBy('id')
      .limit(1)
      // NO KEY: serialises applications against each other without blocking foreign-key checks of
      // others (e.g. the main backend moving a card into this stage).
      .forNoKeyUpdate()
      .executeTakeFirst();

  const existing = await select();
  if (existing) return existing;
  await trx
    .insertInto('board_stages')
    .values({ company_id: companyId, name: DEFAULT_STAGE.name, position: DEFAULT_STAGE.position })
    .onConflict((oc) => oc.columns(['company_id', 'position']).doNothing())
    .execute();
  const created = await select();
  if (!created) throw new Error(`no board stage for company ${companyId} after creating the default one`);
  return created;
}

const clientColumns = [
  'id',
  'first_name',
  'last_name',
  'email',
  'mobile_number',
  'property_types',
  'preferred_area_ids',
  'property_features',
  'created_at',
] as const;

/**
 * The company's client with the same email (case-insensitive) or the same mobile digits, preferring an
 * email match; otherwise a new client. The insert does nothing when a concurrent transaction created
 * a matching client first (either unique index), and the re-select then finds that one.
 */
async function findOrCreateClient(trx: Transaction<DB>, companyId: number, prepared: PreparedApplication, merged: MergedInterests) {
  const { email, mobile_digits: digits } = prepared.client;
  const find = () =>
    trx
      .selectFrom('clients')
      .select(clientColumns)
      .where('company_id', '=', companyId)
      .where((eb) =>
        eb.or([
          ...(email ? [eb.and([eb('email', 'is not', null), eb(eb.fn('lower', ['email']), '=', email)])] : []),
          ...(digits ? [eb.and([eb('mobile_digits', '<>', ''), eb('mobile_digits', '=', digits)])] : []),
        ]),
      )
      .orderBy(sql`coalesce(lower(email) = ${email}, false)`, 'desc')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();

  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await find();
    if (existing) return { ...existing, created: false };
    const { client } = prepared;
    const inserted = await trx
      .insertInto('clients')
      .values({
        company_id: companyId,
        first_name: client.first_name,
        last_name: client.last_name,
        email: client.email,
        mobile_number: client.mobile_number,
        landline_number: client.landline_number,
        address_line1: client.address_line1,
        address_line2: client.address_line2,
        city: client.city,
        country: client.country,
        postcode: client.postcode,
        social_links: JSON.stringify(client.social_links),
        property_types: merged.property_types,
        preferred_area_ids: merged.preferred_area_ids,
        property_features: merged.property_features,
      })
      .onConflict((oc) => oc.doNothing())
      .returning(clientColumns)
      .executeTakeFirst();
    if (inserted) return { ...inserted, created: true };
  }
  throw new Error(`client of company ${companyId} neither found nor created`);
}
