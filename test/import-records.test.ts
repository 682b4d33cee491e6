import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { BundleError } from '../src/import/bundle-error.js';
import { importBundle, type ImportOptions, type ImportSummary } from '../src/import/import-bundle.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, BROKER, DEV, DEV_NO_CONTRACT, DEV_PENDING, OWNER, TS, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * The bundle importer against its contract (../shared/spec/catalogue-bundle.md, docs/bundle.md): every
 * rule is checked on the stored rows and, where the API shows the data, over HTTP. Each describe block
 * owns its database; tests inside one share it and keep to their own ids (and, for anything with
 * coordinates, their own part of the globe, more than the link radius away from everyone else's).
 */

/** FACILITY_LINK_RADIUS_M's default, which createTestApp's configuration uses too. */
const RADIUS_M = 10_000;
/** Mean Earth radius (IUGG), metres: the sphere the great-circle distances are measured on. */
const EARTH_RADIUS_M = 6371008.8;

const run = (db: Kysely<DB>, bundle: unknown, options: Partial<ImportOptions> = {}): Promise<ImportSummary> =>
  importBundle(db, bundle, { facilityLinkRadiusM: RADIUS_M, ...options });

async function rows<R = Record<string, unknown>>(db: Kysely<DB>, text: string, params: unknown[] = []): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

/**
 * Every row of every table (each table's rows sorted), optionally without what every import moves on:
 * `updated_at`, and the catalogue version (one more per committed import).
 */
async function snapshot(db: Kysely<DB>, { withoutUpdatedAt = false } = {}): Promise<Record<string, unknown[]>> {
  const tables = await rows<{ name: string }>(
    db,
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely%'
        ${withoutUpdatedAt ? `AND table_name <> 'catalogue_state'` : ''}
      ORDER BY 1`,
  );
  // A row whose updated_at moves has changed for GET /changes too (migration 0008): its change stamp moves with it.
  const row = withoutUpdatedAt ? `(to_jsonb(t) - 'updated_at' - 'changed_version' - 'changed_at')` : 'to_jsonb(t)';
  const columns = tables.map(({ name }) => `(SELECT coalesce(jsonb_agg(${row} ORDER BY ${row}::text), '[]') FROM "${name}" t) AS "${name}"`);
  const [result] = await rows<Record<string, unknown[]>>(db, `SELECT ${columns.join(', ')}`);
  return result;
}

/** The import fails with exactly `message` and leaves every row as it was (as `before`, when given). */
async function expectRefused(db: Kysely<DB>, bundle: unknown, message: string, before?: Record<string, unknown[]>): Promise<void> {
  before ??= await snapshot(db);
  const error = await run(db, bundle).then(() => undefined, (failure: unknown) => failure);
  expect(error).toBeInstanceOf(BundleError);
  expect((error as Error).message).toBe(message);
  expect(await snapshot(db)).toEqual(before);
}

/** A well-formed API key that is the same every run. */
const secret = (label: string) => `ck_${createHash('sha256').update(label).digest('hex')}`;

const radians = (degrees: number) => (degrees * Math.PI) / 180;
const degrees = (radiansValue: number) => (radiansValue * 180) / Math.PI;

function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = Math.sin(radians(lat2 - lat1) / 2) ** 2 + Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(radians(lon2 - lon1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The point `metres` due north (along the meridian the distance is exactly R·Δφ). */
const north = (lat: number, lon: number, metres: number): [number, number] => [lat + degrees(metres / EARTH_RADIUS_M), lon];
/** The point at the same latitude `metres` away eastwards (great-circle distance, not along the parallel). */
const east = (lat: number, lon: number, metres: number): [number, number] => [
  lat,
  lon + degrees(2 * Math.asin(Math.sin(metres / (2 * EARTH_RADIUS_M)) / Math.cos(radians(lat)))),
];

/** A facility record; coordinates go where the contract says for its category. */
function facility(category: string, sourceId: string | number, [lat, lon]: [number, number], extra: Record<string, unknown> = {}) {
  const [latKey, lonKey] = category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
  return { category, source_id: sourceId, data: { name: `${category} ${sourceId}`, ...extra, [latKey]: lat, [lonKey]: lon } };
}

interface Link {
  source_id: string;
  category: string;
  distance_m: number;
}

/** A project's stored links, by facility source id. */
const linksOf = (db: Kysely<DB>, projectId: number) =>
  rows<Link>(
    db,
    `SELECT f.source_id, pf.category, pf.distance_m FROM project_facilities pf JOIN facilities f ON f.id = pf.facility_id
      WHERE pf.project_id = $1 ORDER BY f.source_id`,
    [projectId],
  );

const sourceIds = (links: Link[]) => links.map((link) => link.source_id);

/* ---------------------------------------------------------------------------------------------- */
/* Errors                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

/** Stored before every error case: the fixture catalogue plus a project, a unit, a facility, a key and a client. */
const ERRORS_BASE = withRecords(baseBundle(), {
  projects: [{ id: 1, company_id: DEV, name: 'Marina Vista', area_id: 1, latitude: 25.08, longitude: 55.14 }],
  units: [{ id: 1, project_id: 1, unit_number: 'A-1' }],
  facilities: [{ category: 'education', source_id: 'S-1', data: { name: 'Marina School', asset_latitude: 25.09, asset_longitude: 55.14 } }],
  api_keys: [{ id: 1, company_id: AGENCY, author_id: OWNER, name: 'Website', key: secret('errors-1') }],
  clients: [{ id: 1, company_id: AGENCY, first_name: 'Ann', email: 'ann@example.com', mobile_number: '+971 50 111 2222' }],
});

/** A valid bundle touching most sections; each error case breaks one thing in it. */
function goodBundle(): Bundle {
  return {
    files: [
      { id: 20, path: 'projects/2/cover.jpg', mime_type: 'image/jpeg' },
      { id: 21, path: 'projects/2/plan.pdf', mime_type: 'application/pdf' },
    ],
    areas: [{ id: 4, name: 'Jumeirah Village Circle', city: 'Dubai' }],
    users: [{ id: 120, name: 'Lina Aziz', email: 'lina@emaar.example' }],
    company_members: [{ company_id: DEV, user_id: 120, role: 'broker', social_links: { telegram: 'lina' }, languages: ['English'] }],
    contracts: [{ agency_id: AGENCY, developer_id: DEV_NO_CONTRACT, status: 'pending' }],
    api_keys: [{ id: 2, company_id: AGENCY, author_id: BROKER, name: 'Portal', key: secret('errors-2'), price_vector: 5 }],
    projects: [
      {
        id: 2, company_id: DEV, author_id: 111, name: 'Creek Rise', area_id: 4, latitude: 25.2, longitude: 55.35,
        handover_date: '2027-06-30T00:00:00Z', image_file_ids: [20], feature_ids: [1, 3], tours: ['https://tours.example.com/creek-rise'],
        payment_plans: [{ type: 1, percent: 20 }, { type: 3, percent: 80 }],
      },
    ],
    units: [
      { id: 2, project_id: 2, unit_number: 'C-1', status: 4, price: 1200000, tag_ids: [1, 2] },
      { id: 3, project_id: 2, unit_number: 'C-2', plan_file_id: 21 },
      { id: 4, project_id: 1, unit_number: 'A-2' },
      { id: 5, project_id: 2, unit_number: 'C-3', status: 2, furnishing: 3 },
    ],
    facilities: [{ category: 'retail', source_id: 'R-1', data: { name: 'Creek Mall', asset_latitude: 25.21, asset_longitude: 55.35 } }],
    board_stages: [{ id: 3, company_id: AGENCY, name: 'Viewing', position: 2 }],
    offer_statuses: [{ id: 3, name: 'Accepted' }],
    clients: [{ id: 2, company_id: AGENCY, first_name: 'Bea', email: 'bea@example.com', mobile_number: '+971 50 333 4444' }],
  };
}

function edit(change: (bundle: Bundle) => void): Bundle {
  const bundle = goodBundle();
  change(bundle);
  return bundle;
}

const TIMESTAMP_RANGE = 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, with a UTC offset within ±15:59';
const NUL = 'must not contain the NUL character (\\u0000)';
const CATEGORIES = '"airports_ports", "education", "employment", "healthcare", "lifestyle", "retail", "transport", "tourism"';

const ERROR_CASES: [string, unknown, string][] = [
  // The bundle and its sections
  ['a bundle that is not an object', [goodBundle()], 'bundle: must be an object'],
  ['an unknown section', { ...goodBundle(), buildings: [{ id: 1 }] }, 'bundle: unknown section "buildings"'],
  ['a section that is not a list', { ...goodBundle(), units: { id: 2, project_id: 2, unit_number: 'C-1' } }, 'units: must be an array'],
  ['a record that is not an object', edit((b) => b.units.push('C-4' as never)), 'units[4]: must be an object'],
  // Unknown fields (snake_case only; facilities[].data is the one free-form object)
  ['an unknown field in the last unit', edit((b) => (b.units[3].colour = 'red')), 'units[3].colour: unknown field'],
  ['a camelCase field name', edit((b) => (b.projects[0].areaId = 4)), 'projects[0].areaId: unknown field'],
  ['an unknown field in social links', edit((b) => ((b.company_members[0].social_links as Record<string, unknown>).skype = 'lina')), 'company_members[0].social_links.skype: unknown field'],
  ['an unknown field in a payment plan', edit((b) => (b.projects[0].payment_plans = [{ type: 1, percent: 20, due: 'now' }])), 'projects[0].payment_plans[0].due: unknown field'],
  ['an unknown field next to a facility\u2019s data', edit((b) => (b.facilities[0].name = 'Creek Mall')), 'facilities[0].name: unknown field'],
  // Required fields
  ['a unit without unit_number', edit((b) => delete b.units[3].unit_number), 'units[3].unit_number: is required'],
  ['a project without company_id', edit((b) => delete b.projects[0].company_id), 'projects[0].company_id: is required'],
  ['a facility without data', edit((b) => delete b.facilities[0].data), 'facilities[0].data: is required'],
  ['a facility without source_id', edit((b) => delete b.facilities[0].source_id), 'facilities[0].source_id: is required'],
  ['a member without role', edit((b) => delete b.company_members[0].role), 'company_members[0].role: is required'],
  ['a key without its secret', edit((b) => delete b.api_keys[0].key), 'api_keys[0].key: is required'],
  ['an area without city', edit((b) => delete b.areas[0].city), 'areas[0].city: is required'],
  // Types
  ['a text id', edit((b) => (b.units[0].id = '2')), 'units[0].id: must be an integer'],
  ['a text status', edit((b) => (b.units[3].status = '2')), 'units[3].status: must be an integer or null'],
  ['a fractional bedroom count', edit((b) => (b.units[0].bedrooms = 1.5)), 'units[0].bedrooms: must be an integer or null'],
  ['a text price', edit((b) => (b.units[0].price = '1200000')), 'units[0].price: must be a number or null'],
  ['a numeric name', edit((b) => (b.projects[0].name = 42)), 'projects[0].name: must be a string'],
  ['a text flag', edit((b) => (b.projects[0].is_draft = 'no')), 'projects[0].is_draft: must be true or false or null'],
  ['tag ids that are no list', edit((b) => (b.units[0].tag_ids = 1)), 'units[0].tag_ids: must be an array or null'],
  ['a tour that is no string', edit((b) => (b.projects[0].tours = [1])), 'projects[0].tours[0]: must be a string'],
  ['a fractional source id', edit((b) => (b.facilities[0].source_id = 1.5)), 'facilities[0].source_id: must be a string or an integer'],
  ['an empty source id', edit((b) => (b.facilities[0].source_id = '')), 'facilities[0].source_id: must not be empty'],
  ['facility data that is no object', edit((b) => (b.facilities[0].data = [])), 'facilities[0].data: must be an object'],
  ['social links that are no object', edit((b) => (b.company_members[0].social_links = 'lina')), 'company_members[0].social_links: must be an object or null'],
  // Ranges
  ['a status out of range in the last unit', edit((b) => (b.units[3].status = 9)), 'units[3].status: must be between 1 and 5'],
  ['furnishing 0', edit((b) => (b.units[3].furnishing = 0)), 'units[3].furnishing: must be between 1 and 4'],
  ['a negative bedroom count', edit((b) => (b.units[0].bedrooms = -1)), 'units[0].bedrooms: must be between 0 and 2147483647'],
  ['a negative price', edit((b) => (b.units[0].price = -1)), 'units[0].price: must be at least 0 and less than 100000000000000'],
  ['a negative area', edit((b) => (b.units[0].unit_area = -0.5)), 'units[0].unit_area: must be at least 0'],
  ['a floor beyond 32 bits', edit((b) => (b.units[0].floor = 2 ** 31)), 'units[0].floor: must be between -2147483648 and 2147483647'],
  ['id 0', edit((b) => (b.areas[0].id = 0)), 'areas[0].id: must be between 1 and 2147483647'],
  ['development status 4', edit((b) => (b.projects[0].development_status = 4)), 'projects[0].development_status: must be between 0 and 3'],
  ['latitude 91', edit((b) => (b.projects[0].latitude = 91)), 'projects[0].latitude: must be between -90 and 90'],
  ['longitude -180.5', edit((b) => (b.projects[0].longitude = -180.5)), 'projects[0].longitude: must be between -180 and 180'],
  ['a payment plan over 100 %', edit((b) => (b.projects[0].payment_plans = [{ type: 1, percent: 20 }, { type: 3, percent: 101 }])), 'projects[0].payment_plans[1].percent: must be between 0 and 100'],
  ['a price vector of -100', edit((b) => (b.api_keys[0].price_vector = -100)), 'api_keys[0].price_vector: must be greater than -100 and at most 100'],
  ['user type 4', edit((b) => (b.users[0].type = 4)), 'users[0].type: must be between 0 and 3'],
  // Enumerations
  ['payment plan type 4', edit((b) => (b.projects[0].payment_plans = [{ type: 4, percent: 20 }])), 'projects[0].payment_plans[0].type: must be one of 1, 2, 3'],
  ['an unknown facility category', edit((b) => (b.facilities[0].category = 'parks')), `facilities[0].category: must be one of ${CATEGORIES}`],
  ['company type 1', { companies: [{ id: 30, company_type: 1, company_name: 'Nobody' }] }, 'companies[0].company_type: must be one of 2, 3'],
  ['an unknown licence status', { companies: [{ id: 30, company_type: 2, company_name: 'Nobody', licence_status: 'expired' }] }, 'companies[0].licence_status: must be one of "approved", "pending", "rejected", null'],
  ['an unknown contract status', edit((b) => (b.contracts[0].status = 'active')), 'contracts[0].status: must be one of "approved", "pending", "rejected"'],
  ['feature type 3', { project_features: [{ id: 9, name: 'Cinema', type: 3 }] }, 'project_features[0].type: must be one of 1, 2'],
  ['key status 2', edit((b) => (b.api_keys[0].status = 2)), 'api_keys[0].status: must be one of 0, 1, null'],
  // Formats
  ['an impossible date', edit((b) => (b.projects[0].handover_date = '2027-02-30T00:00:00Z')), 'projects[0].handover_date: must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'],
  ['a date without time', edit((b) => (b.areas[0].created_at = '2026-01-01')), 'areas[0].created_at: must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'],
  ['a time without offset', edit((b) => (b.areas[0].updated_at = '2026-01-01T10:00:00')), 'areas[0].updated_at: must be an RFC 3339 timestamp (e.g. 2026-01-01T00:00:00Z)'],
  ['year 0000', edit((b) => (b.areas[0].created_at = '0000-06-01T00:00:00Z')), `areas[0].created_at: ${TIMESTAMP_RANGE}`],
  ['an instant before year 1', edit((b) => (b.areas[0].created_at = '0001-01-01T00:30:00+01:00')), `areas[0].created_at: ${TIMESTAMP_RANGE}`],
  ['an instant after year 9999', edit((b) => (b.units[3].updated_at = '9999-12-31T23:30:00-01:00')), `units[3].updated_at: ${TIMESTAMP_RANGE}`],
  ['an offset of 16 hours', edit((b) => (b.projects[0].launch_date = '2026-01-01T00:00:00+16:00')), `projects[0].launch_date: ${TIMESTAMP_RANGE}`],
  ['a malformed key', edit((b) => (b.api_keys[0].key = 'ck_ABC')), 'api_keys[0].key: must be ck_ followed by 64 lowercase hexadecimal characters'],
  ['a key with upper-case hex', edit((b) => (b.api_keys[0].key = secret('errors-2').toUpperCase().replace('CK_', 'ck_'))), 'api_keys[0].key: must be ck_ followed by 64 lowercase hexadecimal characters'],
  // Lists of ids
  ['a tag twice', edit((b) => (b.units[0].tag_ids = [1, 2, 1])), 'units[0].tag_ids: must not contain duplicates (items 0 and 2 are equal)'],
  ['a feature twice', edit((b) => (b.projects[0].feature_ids = [3, 3])), 'projects[0].feature_ids: must not contain duplicates (items 0 and 1 are equal)'],
  // Text the database cannot store
  ['a NUL character in the last unit', edit((b) => (b.units[3].unit_number = 'C-\u00003')), `units[3].unit_number: ${NUL}`],
  ['a NUL character in a list', edit((b) => (b.projects[0].tours = ['https://a.example', 'https://b.example/\u0000'])), `projects[0].tours[1]: ${NUL}`],
  ['a NUL character in facility data', edit((b) => (b.facilities[0].data = { name: 'Creek', hours: { fri: '10\u000022' } })), `facilities[0].data.hours.fri: ${NUL}`],
  ['a NUL character in a facility data field name', edit((b) => (b.facilities[0].data = { ['na\u0000me']: 'Creek' })), `facilities[0].data: field names ${NUL}`],
  // Duplicates within a section
  ['a unit id twice', edit((b) => (b.units[3].id = 2)), 'units[3].id: duplicate of units[0]'],
  ['a project id twice', edit((b) => b.projects.push({ ...b.projects[0], name: 'Again' })), 'projects[1].id: duplicate of projects[0]'],
  ['a facility twice (number and text source id)', edit((b) => (b.facilities = [facility('education', 1077, [25, 55]), facility('education', '1077', [25, 55])])), 'facilities[1].source_id: duplicate of facilities[0]'],
  ['a member twice', edit((b) => b.company_members.push({ company_id: DEV, user_id: 120, role: 'manager' })), 'company_members[1].user_id: duplicate of company_members[0]'],
  ['a contract twice', edit((b) => b.contracts.push({ agency_id: AGENCY, developer_id: DEV_NO_CONTRACT, status: 'approved' })), 'contracts[1].developer_id: duplicate of contracts[0]'],
  // References (bundle and database together)
  ['a missing area', edit((b) => (b.projects[0].area_id = 99)), 'projects[0].area_id: area 99 does not exist'],
  ['a missing company', edit((b) => (b.projects[0].company_id = 99)), 'projects[0].company_id: company 99 does not exist'],
  ['a missing author', edit((b) => (b.projects[0].author_id = 999)), 'projects[0].author_id: user 999 does not exist'],
  ['a missing gallery file', edit((b) => (b.projects[0].image_file_ids = [20, 99])), 'projects[0].image_file_ids[1]: file 99 does not exist'],
  ['a missing brochure', edit((b) => (b.projects[0].brochure_file_id = 99)), 'projects[0].brochure_file_id: file 99 does not exist'],
  ['a missing feature', edit((b) => (b.projects[0].feature_ids = [1, 99])), 'projects[0].feature_ids[1]: project feature 99 does not exist'],
  ['a missing project in the last unit', edit((b) => (b.units[3].project_id = 99)), 'units[3].project_id: project 99 does not exist'],
  ['a project id that only a file has', edit((b) => (b.units[3].project_id = 20)), 'units[3].project_id: project 20 does not exist'],
  ['a missing unit tag', edit((b) => (b.units[0].tag_ids = [1, 99])), 'units[0].tag_ids[1]: unit tag 99 does not exist'],
  ['a missing plan file', edit((b) => (b.units[1].plan_file_id = 99)), 'units[1].plan_file_id: file 99 does not exist'],
  ['a missing logo', { companies: [{ id: 30, company_type: 3, company_name: 'Nobody', logo_file_id: 99 }] }, 'companies[0].logo_file_id: file 99 does not exist'],
  ['a missing member user', edit((b) => (b.company_members[0].user_id = 999)), 'company_members[0].user_id: user 999 does not exist'],
  ['a missing avatar', edit((b) => (b.company_members[0].avatar_file_id = 99)), 'company_members[0].avatar_file_id: file 99 does not exist'],
  ['a missing developer', edit((b) => (b.contracts[0].developer_id = 99)), 'contracts[0].developer_id: company 99 does not exist'],
  ['a missing key author', edit((b) => (b.api_keys[0].author_id = 999)), 'api_keys[0].author_id: user 999 does not exist'],
  ['a missing board stage company', edit((b) => (b.board_stages[0].company_id = 99)), 'board_stages[0].company_id: company 99 does not exist'],
  ['a missing client company', edit((b) => (b.clients[0].company_id = 99)), 'clients[0].company_id: company 99 does not exist'],
  // Company types
  ['a developer as the agency of a contract', edit((b) => (b.contracts[0].agency_id = DEV)), 'contracts[0].agency_id: company 10 is not an agency (company_type 2)'],
  ['an agency as the developer of a contract', edit((b) => (b.contracts[0].developer_id = AGENCY)), 'contracts[0].developer_id: company 1 is not a developer (company_type 3)'],
  ['a key of a developer', edit((b) => (b.api_keys[0].company_id = DEV)), 'api_keys[0].company_id: company 10 is not an agency (company_type 2)'],
  // Unique rules
  ['a secret used by another stored key', edit((b) => (b.api_keys[0].key = secret('errors-1'))), 'api_keys[0].key: already used by api key 1'],
  ['a secret twice in the bundle', edit((b) => b.api_keys.push({ id: 3, company_id: AGENCY, author_id: OWNER, name: 'Copy', key: secret('errors-2') })), 'api_keys[1].key: same key as api_keys[0]'],
  ['a board position taken by a stored stage', edit((b) => (b.board_stages[0].position = 0)), 'board_stages[0].position: company 1 already has board stage 1 at position 0'],
  ['a board position twice in the bundle', edit((b) => b.board_stages.push({ id: 4, company_id: AGENCY, name: 'Offer', position: 2 })), 'board_stages[1].position: position 2 of company 1 is also used by board_stages[0]'],
  ['a client email a stored client has', edit((b) => (b.clients[0].email = 'ANN@example.com')), 'clients[0].email: client 1 of company 1 already has this email'],
  ['a client mobile a stored client has', edit((b) => (b.clients[0].mobile_number = '+971501112222')), 'clients[0].mobile_number: client 1 of company 1 already has this mobile number'],
  ['a client email twice in the bundle', edit((b) => b.clients.push({ id: 3, company_id: AGENCY, first_name: 'Cy', email: 'BEA@example.com' })), 'clients[1].email: same email as clients[0] in company 1'],
];

describe.each(drivers)('bundle errors (%s)', (driver) => {
  let test: TestDatabase;
  let db: Kysely<DB>;
  let stored: Record<string, unknown[]>;

  beforeAll(async () => {
    test = await createTestDatabase(driver);
    db = test.database.db;
    await run(db, ERRORS_BASE);
    stored = await snapshot(db);
  });
  afterAll(() => test?.drop());

  it.each(ERROR_CASES)('refuses %s, naming section, index and field, and changes nothing', async (_name, bundle, message) => {
    await expectRefused(db, bundle, message, stored);
  });

  it('accepts the bundle the error cases start from (so each case fails for its own reason only)', async () => {
    const summary = await run(db, goodBundle());
    expect(summary).toEqual({
      files: 2, areas: 1, users: 1, company_members: 1, contracts: 1, api_keys: 1, projects: 1, units: 4, facilities: 1,
      board_stages: 1, offer_statuses: 1, clients: 1, facility_links: 1,
    });
  });

  it('accepts null for any optional field, and the edges of every range', async () => {
    await run(db, {
      api_keys: [{ id: 2, company_id: AGENCY, author_id: BROKER, name: 'Portal', key: secret('errors-2'), status: null, price_vector: 100, allowed_domains: null }],
      companies: [{ id: 30, company_type: 2, company_name: 'Edge Realty', licence_status: null, logo_file_id: null, deleted: null }],
      units: [{ id: 6, project_id: 1, unit_number: 'E-1', bedrooms: 0, status: 5, furnishing: 4, price: 99999999999999.98, unit_area: 0, tag_ids: null, floor: -2147483648 }],
      areas: [
        { id: 5, name: 'First instant', city: 'Nowhere', created_at: '0001-01-01T00:00:00Z', updated_at: '0001-01-01T00:59:59-01:00' },
        { id: 6, name: 'Last instant', city: 'Nowhere', created_at: '9999-12-31T23:59:59.999999Z', updated_at: '2026-01-01t10:00:00+15:59' },
      ],
    });
    const stored = await rows<{ id: number; created_at: string; updated_at: string }>(
      db,
      `SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS created_at,
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS updated_at
         FROM areas WHERE id IN (5, 6) ORDER BY id`,
    );
    expect(stored).toEqual([
      { id: 5, created_at: '0001-01-01 00:00:00.000000', updated_at: '0001-01-01 01:59:59.000000' },
      { id: 6, created_at: '9999-12-31 23:59:59.999999', updated_at: '2025-12-31 18:01:00.000000' },
    ]);
    const [key] = await rows(db, 'SELECT status, price_vector, allowed_domains FROM api_keys WHERE id = 2');
    expect(key).toEqual({ status: 0, price_vector: 100, allowed_domains: null });
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* Records                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

describe.each(drivers)('bundle records (%s)', (driver) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(driver, baseBundle());
    db = t.db;
    key = await t.key();
  });
  afterAll(() => t?.close());

  const get = (url: string, apiKey = key) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  const detail = async (projectId: number) => {
    const res = await get(`/projects/${projectId}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };

  it('upserts by id: a second import updates the records, it adds none', async () => {
    const first = {
      projects: [
        { id: 101, company_id: DEV, name: 'Harbour Point', description: 'First words.' },
        { id: 102, company_id: DEV_PENDING, name: 'Pending Towers' },
      ],
      units: [
        { id: 1011, project_id: 101, unit_number: 'H-1', price: 2000000, unit_area: 100 },
        { id: 1012, project_id: 101, unit_number: 'H-2', price: 900000, unit_area: 50 },
      ],
      company_members: [{ company_id: DEV, user_id: 111, role: 'broker' }],
      facilities: [facility('education', 7001, [-60, 0], { grade: 'old' }), facility('retail', 7001, [-60, 0])],
    };
    await run(db, first);
    const [facilityBefore] = await rows<{ id: number }>(db, `SELECT id FROM facilities WHERE category = 'education' AND source_id = '7001'`);
    expect((await get('/projects/102')).statusCode).toBe(404);

    await run(db, {
      projects: [
        { id: 101, company_id: DEV, name: 'Harbour Point II', description: 'New words.' },
        { id: 102, company_id: DEV_PENDING, name: 'Pending Towers' },
      ],
      units: [{ id: 1011, project_id: 101, unit_number: 'H-1', price: 2100000, unit_area: 100 }],
      company_members: [{ company_id: DEV, user_id: 111, role: 'manager' }],
      contracts: [{ agency_id: AGENCY, developer_id: DEV_PENDING, status: 'approved' }],
      // The same facility: category + source_id, the number and its text alike.
      facilities: [{ category: 'education', source_id: '7001', data: { name: 'renamed', grade: 'new', asset_latitude: -60, asset_longitude: 0 } }],
    });

    expect(await rows(db, 'SELECT id, name, description FROM projects WHERE id IN (101, 102) ORDER BY id')).toEqual([
      { id: 101, name: 'Harbour Point II', description: 'New words.' },
      { id: 102, name: 'Pending Towers', description: '' },
    ]);
    expect(await rows(db, 'SELECT id, price FROM units WHERE project_id = 101 ORDER BY id')).toEqual([
      { id: 1011, price: 2100000 },
      { id: 1012, price: 900000 },
    ]);
    expect(await rows(db, `SELECT role FROM company_members WHERE company_id = ${DEV} AND user_id = 111`)).toEqual([{ role: 'manager' }]);
    expect(await rows(db, `SELECT status FROM contracts WHERE agency_id = ${AGENCY} AND developer_id = ${DEV_PENDING}`)).toEqual([{ status: 'approved' }]);
    expect(await rows(db, `SELECT id, category, data FROM facilities WHERE source_id = '7001' ORDER BY category`)).toEqual([
      { id: facilityBefore.id, category: 'education', data: { name: 'renamed', grade: 'new', asset_latitude: -60, asset_longitude: 0 } },
      { id: expect.any(Number), category: 'retail', data: { name: 'retail 7001', asset_latitude: -60, asset_longitude: 0 } },
    ]);

    const harbour = await detail(101);
    expect(harbour).toMatchObject({ name: 'Harbour Point II', description: 'New words.' });
    expect(harbour.units.map((u: { id: number; price: number }) => [u.id, u.price])).toEqual([
      [1011, 2100000],
      [1012, 900000],
    ]);
    expect((await get('/projects/102')).statusCode).toBe(200);
  });

  it('a record states the whole row: an optional field left out or null goes back to its default', async () => {
    const full = {
      id: 111, company_id: DEV, name: 'Palm Crest', description: 'Beachfront.', address: 'Palm Jumeirah', is_branded: true,
      service_charge: 21.5, currency: 'USD', total_floors: 12, area_id: 1, tours: ['https://tours.example.com/palm-crest'],
    };
    await run(db, { projects: [full] });
    expect(await detail(111)).toMatchObject({ description: 'Beachfront.', is_branded: true, total_floors: 12, cost: { currency: 'USD', service_charge: 21.5 } });

    await run(db, { projects: [{ id: 111, company_id: DEV, name: 'Palm Crest', description: null, area_id: null }] });
    const [row] = await rows(
      db,
      'SELECT description, address, is_branded, service_charge, currency, total_floors, area_id, tours FROM projects WHERE id = 111',
    );
    expect(row).toEqual({ description: '', address: null, is_branded: false, service_charge: null, currency: 'AED', total_floors: 0, area_id: null, tours: [] });
    expect(await detail(111)).toMatchObject({
      description: '', is_branded: false, total_floors: 0, area_name: null, cost: { currency: 'AED', service_charge: null },
      media: { tours: [] },
    });
  });

  it('replaces link lists: payment plans, gallery (cover first), tours, presentations, features, unit tags, languages, domains', async () => {
    const files = [1201, 1202, 1203].map((id) => ({ id, path: `projects/121/image-${id}.jpg`, mime_type: 'image/jpeg' }));
    const apiKey = secret('records-lists');
    const project = (lists: Record<string, unknown>) => ({ id: 121, company_id: DEV, name: 'Gallery Heights', ...lists });
    const member = (languages?: string[]) => ({ company_id: DEV, user_id: 111, role: 'manager', languages });
    const keyRecord = (domains?: string[]) => ({ id: 40, company_id: AGENCY, author_id: OWNER, name: 'Lists', key: apiKey, allowed_domains: domains });

    await run(db, {
      files,
      company_members: [member(['English', 'Arabic', 'Hindi'])],
      api_keys: [keyRecord(['agency.ae', 'www.agency.ae'])],
      projects: [
        project({
          payment_plans: [{ type: 1, percent: 10 }, { type: 2, percent: 50 }, { type: 3, percent: 40 }],
          image_file_ids: [1201, 1202, 1203],
          tours: ['https://tours.example.com/a', 'https://tours.example.com/b'],
          presentations: ['https://docs.example.com/a.pdf', 'https://docs.example.com/b.pdf'],
          feature_ids: [1, 3, 4],
        }),
      ],
      units: [{ id: 1211, project_id: 121, unit_number: 'G-1', tag_ids: [1, 2, 3] }],
    });
    const tagLinks = () => rows<{ id: number; tag_id: number }>(db, 'SELECT id, tag_id FROM unit_tag_links WHERE unit_id = 1211 ORDER BY tag_id');
    const [, linkOfTag2, linkOfTag3] = await tagLinks();
    expect(await rows(db, 'SELECT tag_ids FROM units WHERE id = 1211')).toEqual([{ tag_ids: [1, 2, 3] }]);
    let shown = await detail(121);
    expect(shown.logo).toBe('projects/121/image-1201.jpg');
    expect(shown.media.images.map((image: { id: number }) => image.id)).toEqual([1201, 1202, 1203]);
    expect(shown.payment_plans).toEqual([{ type: 1, percent: 10 }, { type: 2, percent: 50 }, { type: 3, percent: 40 }]);

    // Shorter lists, in another order: the dropped entries go, the order is the bundle's.
    await run(db, {
      company_members: [member(['Arabic'])],
      api_keys: [keyRecord(['agency.ae'])],
      projects: [
        project({
          payment_plans: [{ type: 3, percent: 60 }, { type: 1, percent: 40 }],
          image_file_ids: [1203, 1201],
          tours: ['https://tours.example.com/b'],
          presentations: ['https://docs.example.com/a.pdf'],
          feature_ids: [3],
        }),
      ],
      units: [{ id: 1211, project_id: 121, unit_number: 'G-1', tag_ids: [3, 2] }],
    });
    expect(await rows(db, 'SELECT position, type, percent FROM project_payment_plans WHERE project_id = 121 ORDER BY position')).toEqual([
      { position: 0, type: 3, percent: 60 },
      { position: 1, type: 1, percent: 40 },
    ]);
    expect(await rows(db, 'SELECT position, file_id FROM project_images WHERE project_id = 121 ORDER BY position')).toEqual([
      { position: 0, file_id: 1203 },
      { position: 1, file_id: 1201 },
    ]);
    expect(await rows(db, 'SELECT feature_id FROM project_feature_links WHERE project_id = 121')).toEqual([{ feature_id: 3 }]);
    expect(await rows(db, 'SELECT tours, presentations FROM projects WHERE id = 121')).toEqual([
      { tours: ['https://tours.example.com/b'], presentations: ['https://docs.example.com/a.pdf'] },
    ]);
    // The links that stay keep their ids (the API shows them).
    expect(await tagLinks()).toEqual([linkOfTag2, linkOfTag3]);
    // The unit's own copy that the unit filters read follows, sorted.
    expect(await rows(db, 'SELECT tag_ids FROM units WHERE id = 1211')).toEqual([{ tag_ids: [2, 3] }]);
    expect(await rows(db, `SELECT languages FROM company_members WHERE company_id = ${DEV} AND user_id = 111`)).toEqual([{ languages: ['Arabic'] }]);
    expect(await rows(db, 'SELECT allowed_domains FROM api_keys WHERE id = 40')).toEqual([{ allowed_domains: ['agency.ae'] }]);

    shown = await detail(121);
    expect(shown.logo).toBe('projects/121/image-1203.jpg');
    expect(shown.media.images.map((image: { id: number }) => image.id)).toEqual([1203, 1201]);
    expect(shown.payment_plans).toEqual([{ type: 3, percent: 60 }, { type: 1, percent: 40 }]);
    expect(shown.media.tours).toEqual(['https://tours.example.com/b']);
    expect(shown.media.presentations).toEqual(['https://docs.example.com/a.pdf']);
    expect(shown.preferences).toEqual({ features: [], amenities: [{ id: 3, name: 'Swimming Pool', type: 2 }] });
    const unit = (await get('/units/1211')).json().data;
    expect(unit.preferences.map((p: { id: number; preference_id: number }) => [p.id, p.preference_id])).toEqual([
      [linkOfTag2.id, 2],
      [linkOfTag3.id, 3],
    ]);

    // Lists left out are empty.
    await run(db, { company_members: [member()], api_keys: [keyRecord()], projects: [project({})], units: [{ id: 1211, project_id: 121, unit_number: 'G-1' }] });
    for (const table of ['project_payment_plans', 'project_images', 'project_feature_links']) {
      expect(await rows(db, `SELECT * FROM ${table} WHERE project_id = 121`)).toEqual([]);
    }
    expect(await tagLinks()).toEqual([]);
    shown = await detail(121);
    expect(shown).toMatchObject({ logo: null, payment_plans: [], media: { images: [], tours: [], presentations: [] }, preferences: { features: [], amenities: [] } });
  });

  it('deleted: true soft-deletes companies, users, api_keys, projects and units; omitted restores them', async () => {
    const keySecret = secret('records-deleted');
    const records = (deleted?: boolean) => ({
      companies: [{ id: 20, company_type: 3, company_name: 'Vanishing Developments', deleted }],
      users: [{ id: 200, name: 'Vic Vanish', email: 'vic@vanishing.example', deleted }],
      company_members: [{ company_id: DEV, user_id: 200, role: 'broker' }],
      api_keys: [{ id: 41, company_id: AGENCY, author_id: OWNER, name: 'Vanishing key', key: keySecret, deleted }],
      projects: [
        { id: 131, company_id: DEV, name: 'Vanishing Project', deleted },
        { id: 132, company_id: 20, name: 'Project of a vanishing developer' },
        { id: 133, company_id: DEV, name: 'Project with a vanishing unit' },
      ],
      units: [
        { id: 1331, project_id: 133, unit_number: 'V-1', deleted },
        { id: 1332, project_id: 133, unit_number: 'V-2' },
      ],
    });
    const deletedAt = async () =>
      Object.fromEntries(
        (
          await rows<{ name: string; deleted_at: string | null }>(
            db,
            `SELECT 'company' AS name, deleted_at FROM companies WHERE id = 20
             UNION ALL SELECT 'user', deleted_at FROM users WHERE id = 200
             UNION ALL SELECT 'api_key', deleted_at FROM api_keys WHERE id = 41
             UNION ALL SELECT 'project', deleted_at FROM projects WHERE id = 131
             UNION ALL SELECT 'unit', deleted_at FROM units WHERE id = 1331`,
          )
        ).map((row) => [row.name, row.deleted_at]),
      );
    const visible = async () => ({
      project: (await get('/projects/131')).statusCode,
      developerProject: (await get('/projects/132')).statusCode,
      unit: (await get('/units/1331')).statusCode,
      units: (await detail(133)).units.map((u: { id: number }) => u.id),
      contacts: (await get('/projects/133/contacts')).json().data.workers.map((w: { user_id: number }) => w.user_id),
      key: (await get('/whoIAm', keySecret)).statusCode,
    });

    await run(db, { ...records(), contracts: [{ agency_id: AGENCY, developer_id: 20, status: 'approved' }] });
    expect(await deletedAt()).toEqual({ company: null, user: null, api_key: null, project: null, unit: null });
    const shown = { project: 200, developerProject: 200, unit: 200, units: [1331, 1332], key: 200 };
    expect(await visible()).toMatchObject(shown);
    expect((await visible()).contacts).toContain(200);

    await run(db, records(true));
    const deleted = await deletedAt();
    expect(Object.values(deleted).every((value) => typeof value === 'string')).toBe(true);
    expect(await rows(db, 'SELECT count(*)::int AS n FROM projects WHERE id = 131')).toEqual([{ n: 1 }]);
    const hidden = await visible();
    expect(hidden).toMatchObject({ project: 404, developerProject: 404, unit: 404, units: [1332], key: 401 });
    expect(hidden.contacts).not.toContain(200);

    // Deleting again keeps the time of the first deletion.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await run(db, records(true));
    expect(await deletedAt()).toEqual(deleted);

    await run(db, records());
    expect(await deletedAt()).toEqual({ company: null, user: null, api_key: null, project: null, unit: null });
    expect(await visible()).toMatchObject(shown);
  });

  it('api_keys: stores only the SHA-256 of the secret and its prefix, never the secret', async () => {
    const keySecret = secret('records-api-key');
    await run(db, {
      api_keys: [{ id: 42, company_id: AGENCY, author_id: OWNER, name: 'Partner site', key: keySecret, price_vector: 5, allowed_domains: ['partner.ae'] }],
    });
    const [row] = await rows(db, 'SELECT key_hash, key_prefix, name, price_vector FROM api_keys WHERE id = 42');
    expect(row).toEqual({ key_hash: createHash('sha256').update(keySecret).digest('hex'), key_prefix: keySecret.slice(0, 9), name: 'Partner site', price_vector: 5 });

    // Every column of api_keys that can hold text, searched for the secret and for the part the prefix does not show.
    const textColumns = await rows<{ column_name: string }>(
      db,
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'api_keys'
          AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))`,
    );
    expect(textColumns.map((c) => c.column_name).sort()).toEqual(['allowed_domains', 'key_hash', 'key_prefix', 'name']);
    for (const { column_name: column } of textColumns) {
      const found = await rows(db, `SELECT id FROM api_keys WHERE strpos("${column}"::text, $1) > 0 OR strpos("${column}"::text, $2) > 0`, [keySecret, keySecret.slice(9)]);
      expect(found, column).toEqual([]);
    }
    expect(JSON.stringify(await snapshot(db))).not.toContain(keySecret.slice(3));

    const res = await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': keySecret, origin: 'https://partner.ae' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.api_key).toMatchObject({ id: 42, name: 'Partner site', key_prefix: keySecret.slice(0, 9), price_vector: 5 });
  });

  it('applies sections in dependency order whatever their order in the bundle; references reach the bundle and the database', async () => {
    // Units first, the project they belong to after them, its file and area last.
    const reversed = {
      units: [{ id: 1411, project_id: 141, unit_number: 'R-1', plan_file_id: 1401 }],
      projects: [{ id: 141, company_id: DEV, name: 'Reverse Order', area_id: 141, image_file_ids: [1401] }],
      areas: [{ id: 141, name: 'Al Barsha', city: 'Dubai' }],
      files: [{ id: 1401, path: 'projects/141/cover.jpg' }],
    };
    await run(db, reversed);
    // A later bundle adds a unit to the stored project.
    await run(db, { units: [{ id: 1412, project_id: 141, unit_number: 'R-2' }] });
    expect((await detail(141)).units.map((u: { id: number }) => u.id)).toEqual([1411, 1412]);
    expect(await detail(141)).toMatchObject({ area_name: 'Al Barsha', logo: 'projects/141/cover.jpg' });
    // Neither in the bundle nor stored.
    await expectRefused(db, { units: [{ id: 1413, project_id: 142, unit_number: 'R-3' }] }, 'units[0].project_id: project 142 does not exist');
  });

  it('imports the same bundle twice to the same state and counts; only updated_at moves, and only where not given', async () => {
    const bundle = {
      files: [
        { id: 1501, path: 'projects/151/cover.jpg', mime_type: 'image/jpeg', created_at: TS, updated_at: TS },
        { id: 1502, path: 'companies/51/logo.png', mime_type: 'image/png', created_at: TS, updated_at: TS },
      ],
      areas: [
        { id: 151, name: 'Dubai Hills', city: 'Dubai' },
        { id: 152, name: 'Saadiyat', city: 'Abu Dhabi', created_at: TS, updated_at: TS },
      ],
      unit_tags: [{ id: 151, name: 'Garden' }],
      project_features: [{ id: 151, name: 'Padel Court', type: 2 }],
      companies: [
        { id: 50, company_type: 2, company_name: 'Twice Realty', licence_status: 'approved' },
        { id: 51, company_type: 3, company_name: 'Twice Developments', logo_file_id: 1502, created_at: TS, updated_at: TS },
      ],
      users: [
        { id: 500, name: 'Tia Twice', email: 'tia@twice.example' },
        { id: 501, name: 'Tom Twice', email: 'tom@twice.example', created_at: TS, updated_at: TS },
      ],
      company_members: [
        { company_id: 50, user_id: 500, role: 'ceo' },
        { company_id: 51, user_id: 501, role: 'broker', social_links: { whatsapp: '+971500000501' }, languages: ['English'] },
      ],
      contracts: [{ agency_id: 50, developer_id: 51, status: 'approved' }, { agency_id: AGENCY, developer_id: 51, status: 'approved' }],
      api_keys: [{ id: 50, company_id: 50, author_id: 500, name: 'Twice key', key: secret('records-twice'), allowed_domains: ['twice.ae'] }],
      projects: [
        {
          id: 151, company_id: 51, author_id: 501, area_id: 152, name: 'Twice Tower', latitude: -45, longitude: 100,
          payment_plans: [{ type: 1, percent: 30 }, { type: 3, percent: 70 }], image_file_ids: [1501], feature_ids: [151, 1],
          tours: ['https://tours.example.com/twice'], created_at: TS, updated_at: TS,
        },
      ],
      units: [
        { id: 1511, project_id: 151, unit_number: 'T-1', price: 800000, unit_area: 60, tag_ids: [151, 1] },
        { id: 1512, project_id: 151, unit_number: 'T-2', price: 950000, unit_area: 75, tag_ids: [2], created_at: TS, updated_at: TS },
      ],
      facilities: [
        facility('transport', 'TW-1', north(-45, 100, 800)),
        { ...facility('healthcare', 'TW-2', east(-45, 100, 2500)), created_at: TS, updated_at: TS },
      ],
      board_stages: [{ id: 50, company_id: 50, name: 'New', position: 0 }, { id: 51, company_id: 50, name: 'Won', position: 1 }],
      offer_statuses: [{ id: 50, name: 'Signed' }],
      clients: [{ id: 50, company_id: 50, first_name: 'Cal', email: 'cal@example.com', mobile_number: '+971 55 000 0050', property_types: [1, 2] }],
    };
    const expectedSummary = {
      files: 2, areas: 2, unit_tags: 1, project_features: 1, companies: 2, users: 2, company_members: 2, contracts: 2, api_keys: 1,
      projects: 1, units: 2, facilities: 2, board_stages: 2, offer_statuses: 1, clients: 1, facility_links: 2,
    };
    const stamps = () =>
      rows<{ row: string; created_at: string; updated_at: string }>(
        db,
        `SELECT 'area 151' AS row, created_at, updated_at FROM areas WHERE id = 151
         UNION ALL SELECT 'area 152', created_at, updated_at FROM areas WHERE id = 152
         UNION ALL SELECT 'unit 1511', created_at, updated_at FROM units WHERE id = 1511
         UNION ALL SELECT 'unit 1512', created_at, updated_at FROM units WHERE id = 1512
         UNION ALL SELECT 'company 50', created_at, updated_at FROM companies WHERE id = 50
         UNION ALL SELECT 'company 51', created_at, updated_at FROM companies WHERE id = 51
         ORDER BY 1`,
      );

    const given = ['area 152', 'company 51', 'unit 1512'];
    const started = Date.now();
    expect(await run(db, bundle)).toEqual(expectedSummary);
    const firstStamps = await stamps();
    for (const stamp of firstStamps.filter((s) => !given.includes(s.row))) {
      // Not given: the import time, on insert for both.
      expect(stamp.created_at).toBe(stamp.updated_at);
      expect(Math.abs(Date.parse(stamp.created_at) - started)).toBeLessThan(60_000);
    }
    expect(firstStamps.filter((s) => given.includes(s.row)).map((s) => [s.created_at, s.updated_at])).toEqual(given.map(() => [TS, TS]));
    const state = await snapshot(db, { withoutUpdatedAt: true });
    const shown = (await detail(151)) as Record<string, unknown>;
    const unitShown = (await get('/units/1512')).json();

    await new Promise((resolve) => setTimeout(resolve, 20));
    const [{ version: versionBefore }] = await rows<{ version: number }>(db, 'SELECT version FROM catalogue_state');
    expect(await run(db, bundle)).toEqual(expectedSummary);
    expect(await snapshot(db, { withoutUpdatedAt: true })).toEqual(state);
    expect(await rows(db, 'SELECT version FROM catalogue_state')).toEqual([{ version: versionBefore + 1 }]);
    const secondStamps = await stamps();
    for (const [index, stamp] of secondStamps.entries()) {
      const before = firstStamps[index];
      expect(stamp.created_at, stamp.row).toBe(before.created_at);
      if (given.includes(stamp.row)) expect(stamp.updated_at, stamp.row).toBe(TS);
      else expect(Date.parse(stamp.updated_at), stamp.row).toBeGreaterThan(Date.parse(before.updated_at));
    }
    expect(await detail(151)).toEqual(shown);
    expect((await get('/units/1512')).json()).toEqual(unitShown);
  });

  it('one transaction: an invalid last unit changes nothing, whatever came before it in the bundle', async () => {
    const bundle = {
      areas: [{ id: 161, name: 'Arjan', city: 'Dubai' }],
      projects: [{ id: 161, company_id: DEV, name: 'Never Stored', area_id: 161, latitude: 50, longitude: 0 }],
      units: [
        { id: 1611, project_id: 161, unit_number: 'N-1' },
        { id: 1612, project_id: 161, unit_number: 'N-2' },
        { id: 1613, project_id: 161, unit_number: 'N-3' },
        { id: 1614, project_id: 161, unit_number: 'N-4', status: 6 },
      ],
      facilities: [facility('transport', 'NS-1', north(50, 0, 500))],
    };
    await expectRefused(db, bundle, 'units[3].status: must be between 1 and 5');
    await expectRefused(db, { ...bundle, units: bundle.units.map((u, i) => (i === 3 ? { ...u, status: 5, project_id: 169 } : u)) }, 'units[3].project_id: project 169 does not exist');
  });

  it('one transaction: the database refusing the last unit rolls back the sections written before it', async () => {
    await run(db, {
      projects: [{ id: 171, company_id: DEV, name: 'Numbered', latitude: 50.5, longitude: 0 }],
      units: [
        { id: 1701, project_id: 171, unit_number: 'A-1' },
        { id: 1705, project_id: 171, unit_number: 'A-5' },
      ],
      facilities: [facility('transport', 'NU-1', north(50.5, 0, 1000))],
    });
    // A rule the importer's checks do not know: unit numbers unique within project 171.
    await rows(db, 'CREATE UNIQUE INDEX units_project_number ON units (project_id, unit_number) WHERE project_id = 171');
    try {
      // The areas and projects sections are written before the units statement fails.
      await expectRefused(
        db,
        {
          areas: [{ id: 171, name: 'Al Furjan', city: 'Dubai' }],
          projects: [{ id: 171, company_id: DEV, name: 'Renamed', area_id: 171, latitude: 50.5, longitude: 0.001 }],
          units: [
            { id: 1701, project_id: 171, unit_number: 'A-1', price: 1 },
            { id: 1702, project_id: 171, unit_number: 'A-2' },
            { id: 1703, project_id: 171, unit_number: 'A-3' },
            { id: 1704, project_id: 171, unit_number: 'A-5' },
          ],
        },
        'units[3].unit_number: duplicate key value violates unique constraint "units_project_number" (Key (project_id, unit_number)=(171, A-5) already exists.)',
      );
    } finally {
      await rows(db, 'DROP INDEX units_project_number');
    }
  });

  it('one transaction: a failure after the facility links rolls back the records and the links', async () => {
    await run(db, {
      projects: [{ id: 181, company_id: DEV, name: 'Linked', latitude: 51, longitude: 0 }],
      facilities: [facility('transport', 'LK-1', north(51, 0, 1000))],
    });
    const bundle = {
      areas: [{ id: 181, name: 'Meydan', city: 'Dubai' }],
      projects: [{ id: 181, company_id: DEV, name: 'Moved', area_id: 181, latitude: 51.01, longitude: 0 }],
      units: [{ id: 1811, project_id: 181, unit_number: 'L-1' }],
      facilities: [facility('retail', 'LK-2', north(51.01, 0, 300))],
    };
    const before = await snapshot(db);
    const failAfterLinks = (step: string) => {
      if (step === 'facility links') throw new Error('stopped after the facility links');
    };
    for (const relinkStrategy of ['incremental', 'rebuild'] as const) {
      await expect(run(db, bundle, { onProgress: failAfterLinks, relinkStrategy })).rejects.toThrow('stopped after the facility links');
      expect(await snapshot(db)).toEqual(before);
    }
    expect(sourceIds(await linksOf(db, 181))).toEqual(['LK-1']);
    // The same bundle, let through, does change the records and the links.
    await run(db, bundle);
    expect(sourceIds(await linksOf(db, 181))).toEqual(['LK-1', 'LK-2']);
    expect(await rows(db, 'SELECT name, area_id FROM projects WHERE id = 181')).toEqual([{ name: 'Moved', area_id: 181 }]);
  });

  it('facilities: data stored exactly as given; coordinates from the category\u2019s own fields, numeric strings too, invalid ones none', async () => {
    const at: [number, number] = [-10, 30];
    const school = {
      name: 'Al Noor School', name_ar: 'مدرسة النور', curriculum: ['British', 'IB'], ratings: { khda: 'Good', year: 2025 },
      fees_aed: 45000.5, is_public: false, closed_on: null, source_id: 'KHDA-77', asset_latitude: -10.005, asset_longitude: 30.001,
    };
    const cases: { record: { category: string; source_id: string | number; data: Record<string, unknown> }; coordinates: [number, number] | null }[] = [
      { record: { category: 'airports_ports', source_id: 'AP-OK', data: { name: 'Port', latitude: -10.004, longitude: 30 } }, coordinates: [-10.004, 30] },
      { record: { category: 'airports_ports', source_id: 'AP-ASSET', data: { name: 'Port', asset_latitude: -10.004, asset_longitude: 30 } }, coordinates: null },
      { record: { category: 'education', source_id: 77, data: school }, coordinates: [-10.005, 30.001] },
      { record: { category: 'education', source_id: 'ED-LATLON', data: { latitude: -10.005, longitude: 30 } }, coordinates: null },
      { record: { category: 'healthcare', source_id: 'HC-TEXT', data: { asset_latitude: '-10.006', asset_longitude: ' 30.002 ' } }, coordinates: [-10.006, 30.002] },
      { record: { category: 'employment', source_id: 'EM-EDGE', data: { asset_latitude: -10.007, asset_longitude: '30' } }, coordinates: [-10.007, 30] },
      { record: { category: 'lifestyle', source_id: 'LS-LAT91', data: { asset_latitude: 91, asset_longitude: 30 } }, coordinates: null },
      { record: { category: 'tourism', source_id: 'TO-LON181', data: { asset_latitude: -10, asset_longitude: 181 } }, coordinates: null },
      { record: { category: 'retail', source_id: 'RE-HALF', data: { asset_latitude: -10.003 } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-TEXT', data: { asset_latitude: 'n/a', asset_longitude: '30' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-HEX', data: { asset_latitude: -10.001, asset_longitude: '0x1E' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-EMPTY', data: { asset_latitude: '', asset_longitude: '' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-BOOL', data: { asset_latitude: true, asset_longitude: 30 } }, coordinates: null },
    ];
    await run(db, {
      projects: [{ id: 191, company_id: DEV, name: 'Facility Row', latitude: at[0], longitude: at[1] }],
      facilities: cases.map((c) => c.record),
    });
    const stored = await rows<{ category: string; source_id: string; data: unknown; latitude: number | null; longitude: number | null }>(
      db,
      `SELECT category, source_id, data, latitude, longitude FROM facilities WHERE latitude IS NULL OR latitude BETWEEN -11 AND -9
        ORDER BY category, source_id`,
    );
    const expected = cases
      .map(({ record, coordinates }) => ({
        category: record.category, source_id: String(record.source_id), data: record.data,
        latitude: coordinates?.[0] ?? null, longitude: coordinates?.[1] ?? null,
      }))
      .sort((a, b) => (a.category + a.source_id < b.category + b.source_id ? -1 : 1));
    expect(stored.filter((row) => expected.some((e) => e.category === row.category && e.source_id === row.source_id))).toEqual(expected);

    // Only the facilities with coordinates are linked, all of them within a kilometre here.
    const links = await linksOf(db, 191);
    expect(sourceIds(links)).toEqual(['77', 'AP-OK', 'EM-EDGE', 'HC-TEXT']);
    for (const link of links) {
      const { coordinates } = cases.find((c) => String(c.record.source_id) === link.source_id)!;
      expect(link.distance_m).toBeCloseTo(haversineM(...at, ...coordinates!), 3);
    }

    // Served as the source record, with its own source_id when it has one, the facility's otherwise.
    const nearby = (await detail(191)).nearby_facilities;
    expect(nearby.education).toEqual([{ distance: expect.closeTo(haversineM(...at, -10.005, 30.001), 3), facility: school }]);
    expect(nearby.healthcare).toEqual([{ distance: expect.any(Number), facility: { source_id: 'HC-TEXT', asset_latitude: '-10.006', asset_longitude: ' 30.002 ' } }]);
    expect(nearby.transport).toEqual([]);
  });

  it('links every facility within the radius with its great-circle distance, and none beyond', async () => {
    const at: [number, number] = [40, 20];
    const southWest: [number, number] = [39.97, 19.95];
    await run(db, {
      projects: [{ id: 201, company_id: DEV, name: 'Radius Point', latitude: at[0], longitude: at[1] }],
      facilities: [
        facility('transport', 'N-1KM', north(...at, 1000)),
        facility('retail', 'E-1KM', east(...at, 1000)),
        facility('airports_ports', 'N-IN', north(...at, RADIUS_M - 0.5)),
        facility('education', 'N-OUT', north(...at, RADIUS_M + 0.5)),
        facility('healthcare', 'E-IN', east(...at, RADIUS_M - 0.5)),
        facility('healthcare', 'E-OUT', east(...at, RADIUS_M + 0.5)),
        facility('lifestyle', 'SW', southWest),
      ],
    });
    const links = await linksOf(db, 201);
    expect(links.map(({ source_id, category }) => [source_id, category])).toEqual([
      ['E-1KM', 'retail'],
      ['E-IN', 'healthcare'],
      ['N-1KM', 'transport'],
      ['N-IN', 'airports_ports'],
      ['SW', 'lifestyle'],
    ]);
    const distance = Object.fromEntries(links.map((link) => [link.source_id, link.distance_m]));
    expect(distance['N-1KM']).toBeCloseTo(1000, 3);
    expect(distance['E-1KM']).toBeCloseTo(1000, 3);
    expect(distance['N-IN']).toBeCloseTo(RADIUS_M - 0.5, 3);
    expect(distance['E-IN']).toBeCloseTo(RADIUS_M - 0.5, 3);
    expect(distance.SW).toBeCloseTo(haversineM(...at, ...southWest), 3);
    expect(haversineM(...at, ...southWest)).toBeGreaterThan(5000);

    const transport = (await detail(201)).nearby_facilities.transport;
    expect(transport).toEqual([{ distance: expect.closeTo(1000, 3), facility: { source_id: 'N-1KM', name: 'transport N-1KM', asset_latitude: north(...at, 1000)[0], asset_longitude: 20 } }]);
  });

  it('links across the antimeridian and over a pole', async () => {
    const dateLine: [number, number] = [-30, 179.998];
    const pole: [number, number] = [89.99, 45];
    const summary = await run(db, {
      projects: [
        { id: 211, company_id: DEV, name: 'Date Line', latitude: dateLine[0], longitude: dateLine[1] },
        { id: 212, company_id: DEV, name: 'North Pole', latitude: pole[0], longitude: pole[1] },
      ],
      facilities: [
        facility('tourism', 'DL-WEST', [-30, -179.998]),
        facility('tourism', 'DL-FAR', [-30, -179.8]),
        facility('tourism', 'POLE-OPPOSITE', [89.99, -135]),
      ],
    });
    expect(summary.facility_links).toBe(2);
    expect(await linksOf(db, 211)).toEqual([{ source_id: 'DL-WEST', category: 'tourism', distance_m: expect.closeTo(haversineM(...dateLine, -30, -179.998), 3) }]);
    expect(await linksOf(db, 212)).toEqual([{ source_id: 'POLE-OPPOSITE', category: 'tourism', distance_m: expect.closeTo(EARTH_RADIUS_M * radians(0.02), 3) }]);
  });

  it('uses the radius it is given', async () => {
    const at: [number, number] = [42, 20];
    const bundle = {
      projects: [{ id: 221, company_id: DEV, name: 'Small Radius', latitude: at[0], longitude: at[1] }],
      facilities: [facility('retail', 'R-1000', north(...at, 1000)), facility('retail', 'R-2000', north(...at, 2000))],
    };
    expect((await run(db, bundle, { facilityLinkRadiusM: 1500 })).facility_links).toBe(1);
    expect(sourceIds(await linksOf(db, 221))).toEqual(['R-1000']);
    expect((await run(db, bundle)).facility_links).toBe(2);
    expect(sourceIds(await linksOf(db, 221))).toEqual(['R-1000', 'R-2000']);
  });

  it('moving a project or a facility in a later import moves its links; a project without coordinates has none', async () => {
    const project = (coordinates: [number, number] | null) => ({
      id: 231, company_id: DEV, name: 'Wandering', ...(coordinates ? { latitude: coordinates[0], longitude: coordinates[1] } : {}),
    });
    await run(db, {
      projects: [project([45, 10]), { id: 232, company_id: DEV, name: 'Nowhere' }],
      facilities: [facility('retail', 'MV-A', [45.01, 10]), facility('retail', 'MV-B', [45.5, 10])],
    });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);

    // A bundle touching neither keeps the links.
    await run(db, { areas: [{ id: 231, name: 'Unrelated', city: 'Dubai' }] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);

    await run(db, { projects: [project([45.49, 10])] });
    expect(await linksOf(db, 231)).toEqual([{ source_id: 'MV-B', category: 'retail', distance_m: expect.closeTo(haversineM(45.49, 10, 45.5, 10), 3) }]);

    // Facilities alone: the stored project is relinked to them.
    await run(db, { facilities: [facility('retail', 'MV-A', [45.495, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A', 'MV-B']);
    await run(db, { facilities: [facility('retail', 'MV-B', [46, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);
    await run(db, { facilities: [{ category: 'retail', source_id: 'MV-A', data: { name: 'lost', asset_latitude: 'unknown', asset_longitude: 10 } }] });
    expect(await linksOf(db, 231)).toEqual([]);

    await run(db, { facilities: [facility('retail', 'MV-A', [45.495, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);
    await run(db, { projects: [project(null)] });
    expect(await linksOf(db, 231)).toEqual([]);
    expect(await linksOf(db, 232)).toEqual([]);
    expect(Object.values((await detail(231)).nearby_facilities)).toEqual(Array(8).fill([]));
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* Link strategies                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

type Row = Record<string, unknown>;
type DemoRecord = Record<string, unknown> & { data?: Record<string, unknown> };

interface StoredLink {
  project_id: number;
  facility_id: number;
  category: string;
  distance_m: number;
}

const allLinks = (db: Kysely<DB>) =>
  rows<StoredLink>(db, 'SELECT project_id, facility_id, category, distance_m FROM project_facilities ORDER BY project_id, facility_id');

/** The links computed from scratch, in JavaScript, from the stored coordinates. */
async function linksFromScratch(db: Kysely<DB>): Promise<StoredLink[]> {
  type Point = { id: number; category: string; latitude: number; longitude: number };
  const projects = await rows<Point>(db, 'SELECT id, latitude, longitude FROM projects WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY id');
  const facilities = await rows<Point>(db, 'SELECT id, category, latitude, longitude FROM facilities WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY id');
  const links: StoredLink[] = [];
  for (const p of projects) {
    for (const f of facilities) {
      const distance = haversineM(p.latitude, p.longitude, f.latitude, f.longitude);
      if (distance <= RADIUS_M) links.push({ project_id: p.id, facility_id: f.id, category: f.category, distance_m: distance });
    }
  }
  return links;
}

function expectSameLinks(actual: StoredLink[], expected: StoredLink[]): void {
  const key = (link: StoredLink) => `${link.project_id}/${link.facility_id}/${link.category}`;
  expect(actual.map(key)).toEqual(expected.map(key));
  const worst = Math.max(0, ...actual.map((link, i) => Math.abs(link.distance_m - expected[i].distance_m)));
  expect(worst).toBeLessThan(1e-3);
}

/** What a migration makes of project_facilities: columns, indexes, constraints, triggers, table kind. */
async function linkTableShape(db: Kysely<DB>) {
  return {
    table: await rows(db, `SELECT relkind, relpersistence, reloptions, relreplident FROM pg_class WHERE oid = 'project_facilities'::regclass`),
    columns: await rows(
      db,
      `SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              pg_get_expr(d.adbin, d.adrelid) AS default_value, co.collname
         FROM pg_attribute a
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attrelid = 'project_facilities'::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
    ),
    indexes: await rows(db, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'project_facilities' ORDER BY indexname`),
    constraints: await rows(
      db,
      `SELECT conname, contype, pg_get_constraintdef(oid) AS definition, condeferrable, condeferred, convalidated
         FROM pg_constraint WHERE conrelid = 'project_facilities'::regclass ORDER BY conname`,
    ),
    // The foreign keys' triggers, on project_facilities and on the tables it refers to.
    triggers: await rows(
      db,
      `SELECT c.relname AS on_table, t.tgfoid::regproc::text AS function, t.tgtype, t.tgenabled
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgrelid = 'project_facilities'::regclass OR t.tgconstrrelid = 'project_facilities'::regclass
        ORDER BY 1, 2, 3`,
    ),
    leftovers: await rows(
      db,
      `SELECT relname AS name FROM pg_class WHERE relname LIKE '%rebuilt%'
       UNION ALL SELECT conname FROM pg_constraint WHERE conname LIKE '%rebuilt%'`,
    ),
  };
}

const linkTableOid = async (db: Kysely<DB>) =>
  (await rows<{ oid: number }>(db, `SELECT 'project_facilities'::regclass::oid::int AS oid`))[0].oid;

function coordinateKeys(record: DemoRecord): [string, string] {
  return record.category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
}

describe.each(drivers)('facility link strategies (%s)', (driver) => {
  const demo = generateDemoBundle();
  const demoFacilities = demo.facilities as DemoRecord[];
  const demoProjects = demo.projects as DemoRecord[];
  let incremental: TestDatabase;
  let rebuild: TestDatabase;
  let freshShape: Awaited<ReturnType<typeof linkTableShape>>;
  let freshOid: number;

  beforeAll(async () => {
    incremental = await createTestDatabase(driver);
    rebuild = await createTestDatabase(driver);
    freshShape = await linkTableShape(rebuild.database.db);
    freshOid = await linkTableOid(rebuild.database.db);
  });
  afterAll(async () => {
    await incremental?.drop();
    await rebuild?.drop();
  });

  /** Imports into both databases, each with its strategy; the links must agree and be right. */
  async function importBoth(bundle: unknown): Promise<StoredLink[]> {
    const one = await run(incremental.database.db, bundle, { relinkStrategy: 'incremental' });
    const other = await run(rebuild.database.db, bundle, { relinkStrategy: 'rebuild' });
    expect(other).toEqual(one);
    const links = await allLinks(incremental.database.db);
    expect(await allLinks(rebuild.database.db)).toEqual(links);
    expectSameLinks(links, await linksFromScratch(incremental.database.db));
    return links;
  }

  const changed = (before: StoredLink[], after: StoredLink[]) => {
    const text = (links: StoredLink[]) => new Set(links.map((l) => `${l.project_id}/${l.facility_id}/${l.distance_m}`));
    const [a, b] = [text(before), text(after)];
    return [...b].filter((link) => !a.has(link)).length + [...a].filter((link) => !b.has(link)).length;
  };

  it('the demo catalogue gives the same links with either strategy, as computed from scratch', async () => {
    const links = await importBoth(demo);
    expect(links.length).toBeGreaterThan(1000);
  });

  it('a bundle touching only some facilities: the same links either way (untouched ones copied, touched ones redone)', async () => {
    const before = await allLinks(incremental.database.db);
    const touched = demoFacilities.filter((_, i) => i % 12 === 0).map((record, i) => {
      const [latKey, lonKey] = coordinateKeys(record);
      const data = { ...record.data! };
      if (i % 10 === 9) data[latKey] = 'unknown'; // loses its coordinates
      else if (i % 10 === 8) data[lonKey] = Number(data[lonKey]) + 2; // far from every project
      else data[latKey] = Number(data[latKey]) + 0.03;
      return { ...record, data };
    });
    expect(touched.length).toBe(40);
    const links = await importBoth({ facilities: touched });
    expect(changed(before, links)).toBeGreaterThan(100);
  });

  it('a bundle touching only some projects: the same links either way', async () => {
    const before = await allLinks(incremental.database.db);
    const touched = demoProjects.filter((p) => Number(p.id) % 5 === 0 || p.id === 38).map((record): DemoRecord => {
      const id = Number(record.id);
      if (id === 38) return { ...record, latitude: 25.1, longitude: 55.2 }; // had none
      if (id % 10 === 5) return { ...record, latitude: null, longitude: null };
      return { ...record, latitude: Number(record.latitude) + 0.02, longitude: Number(record.longitude) - 0.02 };
    });
    const links = await importBoth({ projects: touched });
    expect(changed(before, links)).toBeGreaterThan(100);
    expect(links.some((link) => link.project_id === 38)).toBe(true);
    expect(links.some((link) => link.project_id === 5)).toBe(false);
  });

  it('a bundle touching some projects and some facilities at once: the same links either way', async () => {
    const before = await allLinks(incremental.database.db);
    const facilities = demoFacilities.filter((_, i) => i % 17 === 3).map((record) => {
      const [latKey] = coordinateKeys(record);
      return { ...record, data: { ...record.data!, [latKey]: Number(record.data![latKey]) - 0.01 } };
    });
    const projects = demoProjects.filter((p) => Number(p.id) % 7 === 1).map((record) => ({ ...record, longitude: Number(record.longitude) + 0.015 }));
    const links = await importBoth({ projects, facilities });
    expect(changed(before, links)).toBeGreaterThan(50);
  });

  it('after a rebuild, project_facilities has the columns, NOT NULLs, indexes, keys and triggers of a freshly migrated table', async () => {
    const db = rebuild.database.db;
    // The table was swapped (so this compares a rebuilt table, not the migrated one).
    expect(await linkTableOid(db)).not.toBe(freshOid);
    const shape = await linkTableShape(db);
    expect(shape).toEqual(freshShape);
    expect(shape.leftovers).toEqual([]);
    expect(shape.columns.map((c: Row) => [c.attname, c.type, c.attnotnull])).toEqual([
      ['project_id', 'integer', true],
      ['facility_id', 'integer', true],
      ['category', 'text', true],
      ['distance_m', 'double precision', true],
    ]);
    expect(shape.indexes.map((i: Row) => i.indexname)).toEqual(['project_facilities_facility', 'project_facilities_nearest', 'project_facilities_pkey']);
    expect(shape.constraints.filter((c: Row) => c.contype !== 'n').map((c: Row) => [c.conname, c.definition])).toEqual([
      ['project_facilities_facility_id_fkey', 'FOREIGN KEY (facility_id) REFERENCES facilities(id) ON DELETE CASCADE'],
      ['project_facilities_pkey', 'PRIMARY KEY (project_id, facility_id)'],
      ['project_facilities_project_id_fkey', 'FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE'],
    ]);

    // And they act: deleting a facility takes its links along, a link to nothing is refused.
    const [{ facility_id: facilityId }] = await allLinks(db);
    const outcome = await db
      .transaction()
      .execute(async (trx) => {
        await rows(trx, 'DELETE FROM facilities WHERE id = $1', [facilityId]);
        const left = await rows(trx, 'SELECT 1 FROM project_facilities WHERE facility_id = $1', [facilityId]);
        const dangling = await rows(trx, `INSERT INTO project_facilities VALUES (1, 2147483647, 'retail', 1)`).then(
          () => 'inserted',
          (error: { code?: string }) => error.code,
        );
        throw Object.assign(new Error('roll back'), { left, dangling });
      })
      .catch((error: { left: unknown[]; dangling: string }) => error);
    expect(outcome).toMatchObject({ left: [], dangling: '23503' });
    expect((await allLinks(db)).some((link) => link.facility_id === facilityId)).toBe(true);
  });

  it('a failing import after the rebuild leaves the old table intact; the next import rebuilds it', async () => {
    const db = rebuild.database.db;
    const links = await allLinks(db);
    const shape = await linkTableShape(db);
    const oid = await linkTableOid(db);
    const facilities = () => rows(db, 'SELECT id, data, latitude, longitude, updated_at FROM facilities ORDER BY id');
    const facilitiesBefore = await facilities();
    const moved = demoFacilities.slice(0, 30).map((record) => {
      const [latKey] = coordinateKeys(record);
      return { ...record, data: { ...record.data!, [latKey]: Number(record.data![latKey]) + 0.05 } };
    });
    const failAfterLinks = (step: string) => {
      if (step === 'facility links') throw new Error('stopped after the rebuild');
    };

    await expect(run(db, { facilities: moved }, { relinkStrategy: 'rebuild', onProgress: failAfterLinks })).rejects.toThrow('stopped after the rebuild');
    expect(await linkTableOid(db)).toBe(oid);
    expect(await allLinks(db)).toEqual(links);
    expect(await linkTableShape(db)).toEqual(shape);
    expect(await facilities()).toEqual(facilitiesBefore);

    await run(db, { facilities: moved }, { relinkStrategy: 'rebuild' });
    expect(await linkTableOid(db)).not.toBe(oid);
    const relinked = await allLinks(db);
    expect(changed(links, relinked)).toBeGreaterThan(50);
    expectSameLinks(relinked, await linksFromScratch(db));
    expect(await linkTableShape(db)).toEqual(freshShape);
  });
});
