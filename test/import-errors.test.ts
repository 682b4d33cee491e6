import { type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { isOriginAllowed } from '../src/domain/origin.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';
import { AGENCY, baseBundle, BROKER, DEV, DEV_NO_CONTRACT, OWNER, withRecords, type Bundle } from './helpers/fixtures.js';
import { expectRefused, facility, rows, run, secret, snapshot } from './helpers/import.js';

/*
 * The bundle importer against its contract (../shared/spec/catalogue-bundle.md, docs/bundle.md), this
 * file: how a bundle is refused: the message naming the record and field, and nothing written. Every
 * rule is checked on the stored rows and, where the API shows the data, over HTTP. Each describe block
 * owns its database; tests inside one share it and keep to their own ids (and, for anything with
 * coordinates, their own part of the globe, more than the link radius away from everyone else's).
 */
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
/** The key CLI's wording for a `--domains` entry that is no host (domainProblem, src/domain/origin.ts), which the importer warns with. */
const NOT_A_HOST = 'is not a domain name (give hosts only, e.g. www.agency.ae)';
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
    // Read back as the API reads every timestamp (src/db/type-parsers.mjs): the years 0001 to 0099 too,
    // which Date's legacy parser took for 1950 to 2049 and 1900 to 1949.
    const read = await db.selectFrom('areas').select(['id', 'created_at', 'updated_at']).where('id', 'in', [5, 6]).orderBy('id').execute();
    expect(read).toEqual([
      { id: 5, created_at: '0001-01-01T00:00:00.000Z', updated_at: '0001-01-01T01:59:59.000Z' },
      { id: 6, created_at: '9999-12-31T23:59:59.999Z', updated_at: '2025-12-31T18:01:00.000Z' },
    ]);
    await run(db, { areas: [{ id: 5, name: 'First instant', city: 'Nowhere', created_at: '0050-06-30T12:00:00+04:00' }] });
    expect(await db.selectFrom('areas').select('created_at').where('id', '=', 5).executeTakeFirstOrThrow()).toEqual({ created_at: '0050-06-30T08:00:00.000Z' });
    const [key] = await rows(db, 'SELECT status, price_vector, allowed_domains FROM api_keys WHERE id = 2');
    expect(key).toEqual({ status: 0, price_vector: 100, allowed_domains: null });
  });

  it('stores a key domain that is no host, as the contract allows, and warns naming each such entry', async () => {
    const key = { id: 2, company_id: AGENCY, author_id: BROKER, name: 'Portal', key: secret('errors-2') };
    const domains = ['agency.ae', 'https://www.agency.ae/', 'agency.ae:8443', '*.agency.ae', ' '];
    const lines: string[] = [];
    await run(db, { api_keys: [{ ...key, allowed_domains: domains }] }, { onWarning: (line) => lines.push(line) });
    expect(await rows(db, 'SELECT allowed_domains FROM api_keys WHERE id = 2')).toEqual([{ allowed_domains: domains }]);
    const never = "; it never equals a request's host, so browser requests with this key get 403";
    expect(lines).toEqual([
      `warning: api_keys[0].allowed_domains[1]: "https://www.agency.ae/" ${NOT_A_HOST}${never}`,
      `warning: api_keys[0].allowed_domains[2]: "agency.ae:8443" ${NOT_A_HOST}${never}`,
      `warning: api_keys[0].allowed_domains[3]: "*.agency.ae" ${NOT_A_HOST}${never}`,
      `warning: api_keys[0].allowed_domains[4]: " " ${NOT_A_HOST}${never}`,
    ]);
    // Such an entry indeed matches no request (the host of https://www.agency.ae is www.agency.ae).
    expect(isOriginAllowed(['https://www.agency.ae/', '*.agency.ae'], 'https://www.agency.ae', undefined)).toBe(false);
  });

  it('accepts every domain form the key CLI accepts: case, surrounding blanks and a final dot are the host\u2019s own; an empty list is no restriction', async () => {
    const key = { id: 2, company_id: AGENCY, author_id: BROKER, name: 'Portal', key: secret('errors-2') };
    const domains = ['WWW.Agency.AE.', ' agency.ae ', 'localhost', 'xn--mgbh0fb.example', '127.0.0.1'];
    const lines: string[] = [];
    await run(db, { api_keys: [{ ...key, allowed_domains: domains }] }, { onWarning: (line) => lines.push(line) });
    expect(lines).toEqual([]);
    expect(await rows(db, 'SELECT allowed_domains FROM api_keys WHERE id = 2')).toEqual([{ allowed_domains: domains }]);
    expect(isOriginAllowed(domains, 'https://www.agency.ae', undefined)).toBe(true);
    await run(db, { api_keys: [{ ...key, allowed_domains: [] }] });
    expect(await rows(db, 'SELECT allowed_domains FROM api_keys WHERE id = 2')).toEqual([{ allowed_domains: [] }]);
  });

  it('carries a key\u2019s private applications setting; left out, it is the specified default (issue 20)', async () => {
    const key = { id: 2, company_id: AGENCY, author_id: BROKER, name: 'Portal', key: secret('errors-2') };
    const stored = async () => (await rows<{ private_applications: boolean }>(db, 'SELECT private_applications FROM api_keys WHERE id = 2'))[0].private_applications;
    await run(db, { api_keys: [{ ...key, private_applications: true }] });
    expect(await stored()).toBe(true);
    await run(db, { api_keys: [key] });
    expect(await stored()).toBe(false);
    await expect(run(db, { api_keys: [{ ...key, private_applications: 'yes' }] })).rejects.toThrow(/api_keys\[0\]\.private_applications/);
  });
});
