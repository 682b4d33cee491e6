import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { haversineM } from '../src/domain/geo.js';
import { priceFactor } from '../src/domain/pricing.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { findActiveKeyByHash, updateKey } from '../src/queries/api-keys.js';

/*
 * What the scenarios need from the loaded catalogue, read before the server starts (a PGlite data
 * directory has one owner at a time): fresh API keys of the demo agency, ids the keys can see, and
 * filter values that match real data, so that no scenario benchmarks an empty answer by accident.
 * Samples are ordered by a multiplicative hash of the id: spread over the catalogue, and the same on
 * every run.
 */
export const MARKUP_PRICE_VECTOR = 1.1;
const SAMPLE_PROJECTS = 500;
const SAMPLE_UNITS = 2000;
export const DUBAI = { lat: 25.2, lng: 55.27, radiusKm: 5 };
const PAGE = 20;
export const DEEP_OFFSET = 4000;

export interface BenchKeys {
  /** Price vector 0. */
  plain: { id: number; secret: string };
  /** Price vector MARKUP_PRICE_VECTOR (+1.1 %). */
  markup: { id: number; secret: string };
}

export interface Fixtures {
  keys: BenchKeys;
  agencyId: number;
  catalogue: { projects: number; units: number; facilities: number; visibleProjects: number; visibleUnits: number };
  projectIds: number[];
  unitIds: number[];
  geo: { lat: number; lng: number; radiusKm: number; matches: number };
  unitTag: { tagId: number; priceMin: number; priceMax: number };
  /** Query string of the every-filter scenario (without `?`). */
  worstQuery: string;
  /** offset of the deep-paging scenario: DEEP_OFFSET, or the last full page of a smaller catalogue. */
  deepOffset: number;
}

export interface CrmCounts {
  clients: number;
  opportunities: number;
  offers: number;
}

const hashOrder = (column: string) => sql.raw(`((${column})::bigint * 2654435761) % 4294967296, ${column}`);

export async function createBenchKeys(db: Kysely<DB>, runId: string): Promise<BenchKeys> {
  const base = { companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, domains: null };
  const plain = await createApiKey(db, { ...base, name: `bench ${runId}` });
  const markup = await createApiKey(db, { ...base, name: `bench ${runId} +${MARKUP_PRICE_VECTOR}%`, priceVector: MARKUP_PRICE_VECTOR });
  return { plain: { id: plain.key.id, secret: plain.secret }, markup: { id: markup.key.id, secret: markup.secret } };
}

/** Bench keys are revoked after the run: they were shown only to this process. */
export async function revokeBenchKeys(db: Kysely<DB>, keys: BenchKeys): Promise<void> {
  await updateKey(db, keys.plain.id, { status: 1 });
  await updateKey(db, keys.markup.id, { status: 1 });
}

export async function countCrm(db: Kysely<DB>, agencyId = DEMO_AGENCY_ID): Promise<CrmCounts> {
  const { rows } = await sql<CrmCounts>`SELECT
      (SELECT count(*)::int FROM clients WHERE company_id = ${agencyId}) AS clients,
      (SELECT count(*)::int FROM opportunities WHERE company_id = ${agencyId}) AS opportunities,
      (SELECT count(*)::int FROM offers WHERE company_id = ${agencyId}) AS offers`.execute(db);
  return { clients: Number(rows[0].clients), opportunities: Number(rows[0].opportunities), offers: Number(rows[0].offers) };
}

/** The projects a scope seeing `developers`' projects sees (p: projects), as a condition. */
const visibleTo = (developers: readonly number[]) => sql`p.is_draft = false AND p.deleted_at IS NULL AND p.company_id = ANY(${sql.val(developers)}::int[])`;

export async function loadFixtures(db: Kysely<DB>, runId: string): Promise<Fixtures> {
  const keys = await createBenchKeys(db, runId);
  const scope = await findActiveKeyByHash(db, hashApiKey(keys.markup.secret));
  if (!scope) throw new Error('the bench key just created is not found');
  const developers = scope.contracted_developer_ids;
  if (developers.length === 0) throw new Error(`agency ${DEMO_AGENCY_ID} has no approved contract: every scenario would be empty`);
  const visible = visibleTo(developers);

  const { rows: counts } = await sql<Fixtures['catalogue']>`SELECT
      (SELECT count(*)::int FROM projects) AS projects,
      (SELECT count(*)::int FROM units) AS units,
      (SELECT count(*)::int FROM facilities) AS facilities,
      (SELECT count(*)::int FROM projects p WHERE ${visible}) AS "visibleProjects",
      (SELECT count(*)::int FROM units u JOIN projects p ON p.id = u.project_id WHERE u.deleted_at IS NULL AND ${visible}) AS "visibleUnits"`.execute(db);
  const catalogue = Object.fromEntries(Object.entries(counts[0]).map(([k, v]) => [k, Number(v)])) as Fixtures['catalogue'];
  if (catalogue.visibleProjects === 0 || catalogue.visibleUnits === 0) throw new Error('the bench agency sees no project or no unit');

  const projectIds = (
    await sql<{ id: number }>`SELECT p.id FROM projects p WHERE ${visible} ORDER BY ${hashOrder('p.id')} LIMIT ${SAMPLE_PROJECTS}`.execute(db)
  ).rows.map((row) => row.id);
  const unitIds = (
    await sql<{ id: number }>`SELECT u.id FROM units u JOIN projects p ON p.id = u.project_id
      WHERE u.deleted_at IS NULL AND ${visible} ORDER BY ${hashOrder('u.id')} LIMIT ${SAMPLE_UNITS}`.execute(db)
  ).rows.map((row) => row.id);

  const located = (
    await sql<{ id: number; name: string; latitude: number; longitude: number }>`SELECT p.id, p.name, p.latitude, p.longitude FROM projects p
      WHERE ${visible} AND p.latitude IS NOT NULL AND p.longitude IS NOT NULL ORDER BY ${hashOrder('p.id')}`.execute(db)
  ).rows;
  const within = (lat: number, lng: number, km: number) => located.filter((p) => haversineM(lat, lng, p.latitude, p.longitude) <= km * 1000).length;
  let geo = { ...DUBAI, matches: within(DUBAI.lat, DUBAI.lng, DUBAI.radiusKm) };
  if (geo.matches === 0 && located.length > 0) {
    // A catalogue without central Dubai: centre the circle on a real project instead.
    const centre = located[0];
    geo = { lat: round(centre.latitude, 4), lng: round(centre.longitude, 4), radiusKm: DUBAI.radiusKm, matches: within(centre.latitude, centre.longitude, DUBAI.radiusKm) };
  }

  const factor = priceFactor(MARKUP_PRICE_VECTOR);
  const tagRow = (
    await sql<{ tag_id: number; p25: number; p75: number }>`SELECT l.tag_id,
        percentile_cont(0.25) WITHIN GROUP (ORDER BY u.price) AS p25,
        percentile_cont(0.75) WITHIN GROUP (ORDER BY u.price) AS p75
      FROM unit_tag_links l JOIN units u ON u.id = l.unit_id JOIN projects p ON p.id = u.project_id
      WHERE u.deleted_at IS NULL AND u.price IS NOT NULL AND ${visible}
      GROUP BY l.tag_id ORDER BY count(*) DESC, l.tag_id LIMIT 1`.execute(db)
  ).rows[0];
  if (!tagRow) throw new Error('no visible unit has a tag and a price');
  const unitTag = {
    tagId: tagRow.tag_id,
    priceMin: Math.floor((Number(tagRow.p25) * factor) / 1000) * 1000,
    priceMax: Math.ceil((Number(tagRow.p75) * factor) / 1000) * 1000,
  };

  const worstQuery = await buildWorstQuery(db, visible, located.map((p) => p.name));
  const deepOffset = Math.max(0, Math.min(DEEP_OFFSET, Math.floor((catalogue.visibleProjects - PAGE) / PAGE) * PAGE));

  return { keys, agencyId: DEMO_AGENCY_ID, catalogue, projectIds, unitIds, geo, unitTag, worstQuery, deepOffset };
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

const NEAR = {
  airports_ports: 'near_airport',
  education: 'near_education',
  employment: 'near_employment',
  healthcare: 'near_healthcare',
  lifestyle: 'near_lifestyle',
  retail: 'near_retail',
  transport: 'near_transport',
  tourism: 'near_tourism',
} as const;

/**
 * The "every filter" search for a scope seeing `developers`' projects (scripts/search-model-size.ts
 * asks it without HTTP, on catalogues other than the bench's).
 */
export async function everyFilterQuery(db: Kysely<DB>, developers: number[]): Promise<string> {
  const visible = visibleTo(developers);
  const names = (await sql<{ name: string }>`SELECT p.name FROM projects p WHERE ${visible} AND p.latitude IS NOT NULL AND p.longitude IS NOT NULL`.execute(db)).rows;
  return buildWorstQuery(db, visible, names.map((row) => row.name));
}

/*
 * Every filter of GET /projects at once, anchored on one real project that satisfies all of them, so
 * the answer is not empty: wide ranges and full lists where a filter allows it (more rows survive to
 * the costly predicates), the anchor's own values where a filter is an equality.
 */
async function buildWorstQuery(db: Kysely<DB>, visible: ReturnType<typeof sql>, names: string[]): Promise<string> {
  const anchor = (
    await sql<{
      id: number;
      name: string;
      latitude: number;
      longitude: number;
      is_branded: boolean;
      is_resale: boolean;
      is_escrow: boolean;
      categories: string[];
    }>`SELECT p.id, p.name, p.latitude, p.longitude, p.is_branded, p.is_resale, btrim(p.escrow_account) <> '' AS is_escrow,
        ARRAY(SELECT DISTINCT pf.category::text FROM project_facilities pf WHERE pf.project_id = p.id ORDER BY 1) AS categories
      FROM projects p
      WHERE ${visible} AND p.development_status BETWEEN 1 AND 3 AND p.latitude IS NOT NULL AND p.longitude IS NOT NULL
        AND p.handover_date IS NOT NULL
        AND EXISTS (SELECT 1 FROM project_payment_plans pp WHERE pp.project_id = p.id AND pp.type = 3 AND pp.percent > 0)
        AND EXISTS (SELECT 1 FROM project_feature_links fl WHERE fl.project_id = p.id)
        AND EXISTS (SELECT 1 FROM units u JOIN unit_tag_links l ON l.unit_id = u.id
                    WHERE u.project_id = p.id AND u.deleted_at IS NULL AND u.price IS NOT NULL AND u.unit_area > 0)
      ORDER BY (SELECT count(DISTINCT pf.category) FROM project_facilities pf WHERE pf.project_id = p.id) DESC, ${hashOrder('p.id')}
      LIMIT 1`.execute(db)
  ).rows[0];
  if (!anchor) throw new Error('no project qualifies as the anchor of the every-filter scenario');

  const feature = (
    await sql<{ feature_id: number }>`SELECT fl.feature_id FROM project_feature_links fl
      WHERE fl.project_id = ${anchor.id}
      ORDER BY (SELECT count(*) FROM project_feature_links o WHERE o.feature_id = fl.feature_id) DESC, fl.feature_id LIMIT 1`.execute(db)
  ).rows[0];
  const tag = (
    await sql<{ tag_id: number }>`SELECT l.tag_id FROM units u JOIN unit_tag_links l ON l.unit_id = u.id
      WHERE u.project_id = ${anchor.id} AND u.deleted_at IS NULL AND u.price IS NOT NULL AND u.unit_area > 0
      ORDER BY (SELECT count(*) FROM unit_tag_links o WHERE o.tag_id = l.tag_id) DESC, l.tag_id LIMIT 1`.execute(db)
  ).rows[0];

  // The anchor's most common name word (4+ letters), so that `search` keeps many projects in play.
  const frequency = new Map<string, number>();
  for (const name of names) for (const word of new Set(name.toLowerCase().split(/\s+/))) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const words = anchor.name.toLowerCase().split(/\s+/).filter((word) => word.length >= 4);
  const search = words.sort((a, b) => (frequency.get(b) ?? 0) - (frequency.get(a) ?? 0))[0] ?? anchor.name;

  const developers = (
    await sql<{ company_id: number }>`SELECT DISTINCT p.company_id FROM projects p WHERE ${visible} ORDER BY 1`.execute(db)
  ).rows.map((row) => row.company_id);

  const params: Record<string, string> = {
    search,
    developer_ids: developers.join(','),
    unit_types: '1,2,3,4',
    development_status: '1,2,3',
    bedrooms: '0,1,2,3,4,5',
    statuses: '1,2,3,4,5',
    price_min: '1',
    price_max: '1000000000',
    price_per_ft2_min: '1',
    price_per_ft2_max: '100000',
    price_per_m2_min: '1',
    price_per_m2_max: '1000000',
    size_min: '1',
    size_max: '100000',
    parking_min: '0',
    is_branded: String(anchor.is_branded),
    is_resale: String(anchor.is_resale),
    is_escrow: String(anchor.is_escrow),
    handover_from: '2000-01-01',
    handover_to: '2100-12-31',
    payment_max_pre_handover: '100',
    payment_min_after_handover: '0',
    payment_only_post_handover: 'true',
    lat: String(round(anchor.latitude, 4)),
    lng: String(round(anchor.longitude, 4)),
    radius_km: '25',
    ...Object.fromEntries(anchor.categories.filter((c): c is keyof typeof NEAR => c in NEAR).map((c) => [NEAR[c], 'true'])),
    preference_ids: String(feature.feature_id),
    unit_preference_ids: String(tag.tag_id),
    limit: String(PAGE),
  };
  // Commas left as they are: the query stays readable in the report, and the API reads both forms.
  return Object.entries(params)
    .map(([name, value]) => `${name}=${encodeURIComponent(value).replace(/%2C/g, ',')}`)
    .join('&');
}
