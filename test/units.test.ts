import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, DEV_DELETED, DEV_NO_CONTRACT, DEV_PENDING, TS, withRecords, type Bundle } from './helpers/fixtures.js';
import { openApiValidator } from './helpers/openapi.js';

const NAKHEEL = 15;
const BASE = 'https://static.example.com';
const LATER = '2026-02-03T04:05:06.789Z';

const file = (id: number, path: string, mime = 'application/pdf') => ({
  id, path, original_name: path.split('/').pop(), storage_name: `s${id}`, mime_type: mime, size: 3_000_000_000 + id, created_at: TS, updated_at: LATER,
});

const bundle: Bundle = withRecords(baseBundle(), {
  files: [file(70, 'units/1/plan.pdf'), file(71, 'projects/1/floor.pdf'), file(72, 'projects/1/brochure.pdf'), file(73, 'projects/1/master.pdf'), file(74, 'companies/15/logo.svg', 'image/svg+xml')],
  companies: [
    {
      id: NAKHEEL, company_type: 3, company_name: 'Nakheel', legal_name: 'Nakheel PJSC', trade_license_code: 'TL-15', rera_license_code: 'RERA-15',
      preferred_contact_email: 'sales@nakheel.example', preferred_contact_phone: '+971 4 000 0000', office_address: 'Palm Jumeirah',
      po_box_number: '12345', logo_file_id: 74, organisation_description: 'Master developer.', specialisation: 2,
      project_portfolio_url: 'https://nakheel.example/portfolio', trade_license_document_verified: true, rera_certificate_verified: true,
      identification_document_verified: false, status: 1, created_at: TS, updated_at: LATER,
    },
  ],
  users: [
    { id: 120, name: 'Noor Author', email: 'noor@nakheel.example', status: 1, type: 2, created_at: TS, updated_at: LATER },
    { id: 121, name: 'Former Author', email: 'former@nakheel.example', deleted: true },
  ],
  contracts: [{ agency_id: 1, developer_id: NAKHEEL, status: 'approved' }],
  projects: [
    {
      id: 1, company_id: NAKHEEL, author_id: 120, area_id: 2, name: 'Palm Views', description: 'On the Palm.', type: 4, status: 2,
      development_status: 3, readiness_progress: 80, total_floors: 22, developer_registration_id: 'DR', trakheesi_project_id: 'TR',
      escrow_account: 'ESC', oqood_registration: 'OQ', launch_date: '2025-05-01T08:00:00Z', launch_time: '08:00', resale_conditions: 'None',
      floors_formula: 'G+22', is_branded: true, service_charge: 21.75, floor_plan_file_id: 71, brochure_file_id: 72, general_plan_file_id: 73,
      created_at: TS, updated_at: LATER,
    },
    { id: 2, company_id: DEV, name: 'Plain Project' },
    { id: 3, company_id: NAKHEEL, author_id: 121, name: 'Orphan Project' },
    { id: 4, company_id: DEV, name: 'Draft', is_draft: true },
    { id: 5, company_id: DEV, name: 'Deleted', deleted: true },
    { id: 6, company_id: DEV_NO_CONTRACT, name: 'Uncontracted' },
    { id: 7, company_id: DEV_PENDING, name: 'Pending' },
    { id: 8, company_id: DEV_DELETED, name: 'Gone developer' },
  ],
  units: [
    {
      id: 1, project_id: 1, unit_number: 'PV-1201', bedrooms: 2, status: 4, furnishing: 3, parking: 2, floor: 12, price: 1234567.89,
      unit_area: 110.25, plan_file_id: 70, tag_ids: [2, 1], created_at: TS, updated_at: LATER,
    },
    { id: 2, project_id: 2, unit_number: 'S-1' },
    { id: 3, project_id: 1, unit_number: 'PV-0001', price: 1, deleted: true },
    { id: 4, project_id: 4, unit_number: 'X', price: 1 },
    { id: 5, project_id: 5, unit_number: 'X', price: 1 },
    { id: 6, project_id: 6, unit_number: 'X', price: 1 },
    { id: 7, project_id: 7, unit_number: 'X', price: 1 },
    { id: 8, project_id: 8, unit_number: 'X', price: 1 },
    { id: 9, project_id: 3, unit_number: 'O-1', price: 100 },
  ],
});

const FILE_KEYS = ['created_at', 'id', 'mime_type', 'original_name', 'path', 'size', 'storage_name', 'updated_at', 'url'];
const UNIT_KEYS = [
  'bedrooms', 'created_at', 'floor', 'furnishing', 'id', 'parking', 'plan_file', 'plan_file_id', 'preferences', 'price', 'project',
  'project_id', 'status', 'unit_area', 'unit_number', 'updated_at',
];
const PROJECT_KEYS = [
  'CreatedAt', 'UpdatedAt', 'area', 'area_id', 'author', 'author_id', 'brochure_file', 'brochure_file_id', 'company', 'company_id',
  'description', 'developer_registration_id', 'development_status', 'escrow_account', 'floor_plan_file', 'floor_plan_file_id',
  'floors_formula', 'general_plan_file', 'general_plan_file_id', 'id', 'is_branded', 'is_draft', 'launch_date', 'launch_time', 'name',
  'oqood_registration', 'readiness_progress', 'resale_conditions', 'service_charge', 'status', 'total_floors', 'trakheesi_project_id', 'type',
];
const COMPANY_KEYS = [
  'ID', 'CompanyType', 'CompanyName', 'LegalName', 'TradeLicenseCode', 'ReraLicenseCode', 'PreferredContactEmail', 'PreferredContactPhone',
  'OfficeAddress', 'POBoxNumber', 'LogoFileID', 'LogoFile', 'OrganisationDescription', 'Specialisation', 'ProjectPortfolioURL',
  'TradeLicenseDocumentVerified', 'ReraCertificateVerified', 'IdentificationDocumentVerified', 'Status', 'CreatedAt', 'UpdatedAt',
];
const AUTHOR_KEYS = ['ID', 'Name', 'Email', 'Status', 'Type', 'CreatedAt', 'UpdatedAt', 'DeletedAt'];

const keysOf = (value: object) => Object.keys(value).sort();

describe.each(drivers)('GET /units/{id} (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;

  useTestApp(driver, bundle, (started) => ({ t, key, assertDocumented } = started), { env: { STATIC_BASE_URL: BASE }, key: { priceVector: -7.3 }, documented: true });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  it('returns the unit as the data model gives it, with the exact key sets', async () => {
    const res = await get('/units/1');
    expect(res.statusCode).toBe(200);
    assertDocumented('GET', '/units/{id}', 200, res.json());
    const unit = res.json().data;
    expect(keysOf(unit)).toEqual([...UNIT_KEYS].sort());
    expect(keysOf(unit.project)).toEqual([...PROJECT_KEYS].sort());
    expect(keysOf(unit.project.company)).toEqual([...COMPANY_KEYS].sort());
    expect(keysOf(unit.project.author)).toEqual([...AUTHOR_KEYS].sort());
    expect(keysOf(unit.project.area)).toEqual(['city', 'created_at', 'id', 'name', 'updated_at']);
    for (const f of [unit.plan_file, unit.project.floor_plan_file, unit.project.brochure_file, unit.project.general_plan_file, unit.project.company.LogoFile]) {
      expect(keysOf(f)).toEqual(FILE_KEYS);
    }
    for (const link of unit.preferences) {
      expect(keysOf(link)).toEqual(['created_at', 'id', 'preference', 'preference_id', 'unit_id', 'updated_at']);
      expect(keysOf(link.preference)).toEqual(['created_at', 'id', 'name', 'updated_at']);
    }
  });

  it('carries the values, price in the key\u2019s prices and links from the static base', async () => {
    const unit = (await get('/units/1')).json().data;
    const { project, preferences, ...own } = unit;
    expect(own).toEqual({
      id: 1,
      project_id: 1,
      unit_number: 'PV-1201',
      bedrooms: 2,
      status: 4,
      furnishing: 3,
      parking: 2,
      floor: 12,
      // 1234567.89 × 0.927 = 1144444.43403
      price: 1144444.43,
      unit_area: 110.25,
      plan_file_id: 70,
      plan_file: { ...file(70, 'units/1/plan.pdf'), url: `${BASE}/units/1/plan.pdf` },
      created_at: TS,
      updated_at: LATER,
    });
    expect(preferences.map((link: { preference_id: number; unit_id: number; preference: { name: string } }) => [link.unit_id, link.preference_id, link.preference.name]).sort()).toEqual([
      [1, 1, 'Sea View'],
      [1, 2, 'Corner Unit'],
    ]);
    const { company, author, area, ...rest } = project;
    expect(rest).toEqual({
      id: 1,
      company_id: NAKHEEL,
      author_id: 120,
      area_id: 2,
      name: 'Palm Views',
      description: 'On the Palm.',
      developer_registration_id: 'DR',
      trakheesi_project_id: 'TR',
      escrow_account: 'ESC',
      oqood_registration: 'OQ',
      type: 4,
      status: 2,
      development_status: 3,
      readiness_progress: 80,
      total_floors: 22,
      launch_date: '2025-05-01T08:00:00.000Z',
      launch_time: '08:00',
      resale_conditions: 'None',
      floors_formula: 'G+22',
      is_draft: false,
      is_branded: true,
      service_charge: 21.75,
      floor_plan_file_id: 71,
      brochure_file_id: 72,
      general_plan_file_id: 73,
      floor_plan_file: { ...file(71, 'projects/1/floor.pdf'), url: `${BASE}/projects/1/floor.pdf` },
      brochure_file: { ...file(72, 'projects/1/brochure.pdf'), url: `${BASE}/projects/1/brochure.pdf` },
      general_plan_file: { ...file(73, 'projects/1/master.pdf'), url: `${BASE}/projects/1/master.pdf` },
      CreatedAt: TS,
      UpdatedAt: LATER,
    });
    expect(company).toEqual({
      ID: NAKHEEL,
      CompanyType: 3,
      CompanyName: 'Nakheel',
      LegalName: 'Nakheel PJSC',
      TradeLicenseCode: 'TL-15',
      ReraLicenseCode: 'RERA-15',
      PreferredContactEmail: 'sales@nakheel.example',
      PreferredContactPhone: '+971 4 000 0000',
      OfficeAddress: 'Palm Jumeirah',
      POBoxNumber: '12345',
      LogoFileID: 74,
      LogoFile: { ...file(74, 'companies/15/logo.svg', 'image/svg+xml'), url: `${BASE}/companies/15/logo.svg` },
      OrganisationDescription: 'Master developer.',
      Specialisation: 2,
      ProjectPortfolioURL: 'https://nakheel.example/portfolio',
      TradeLicenseDocumentVerified: true,
      ReraCertificateVerified: true,
      IdentificationDocumentVerified: false,
      Status: 1,
      CreatedAt: TS,
      UpdatedAt: LATER,
    });
    expect(author).toEqual({ ID: 120, Name: 'Noor Author', Email: 'noor@nakheel.example', Status: 1, Type: 2, CreatedAt: TS, UpdatedAt: LATER, DeletedAt: null });
    expect(area).toMatchObject({ id: 2, name: 'Business Bay', city: 'Dubai' });
  });

  it('gives nulls for a unit without price, plan or tags, and a project without author or area', async () => {
    const res = await get('/units/2');
    assertDocumented('GET', '/units/{id}', 200, res.json());
    const unit = res.json().data;
    expect(unit).toMatchObject({ price: null, plan_file_id: null, plan_file: null, preferences: [], bedrooms: 0, status: 1, furnishing: 1 });
    expect(unit.project).toMatchObject({ author_id: null, author: null, area_id: null, area: null, floor_plan_file: null, launch_date: null, service_charge: null });
    expect(unit.project.company).toMatchObject({ ID: DEV, CompanyName: 'Emaar Properties', LogoFileID: 2 });
    expect(unit.project.company.LogoFile.url).toBe(`${BASE}/companies/10/logo.png`);
  });

  it('shows a deleted author with DeletedAt', async () => {
    const unit = (await get('/units/9')).json().data;
    expect(unit.project.author).toMatchObject({ ID: 121, Name: 'Former Author' });
    expect(new Date(unit.project.author.DeletedAt).toISOString()).toBe(unit.project.author.DeletedAt);
  });

  it.each([
    [3, 'deleted unit'],
    [4, 'draft project'],
    [5, 'deleted project'],
    [6, 'developer without contract'],
    [7, 'developer with a pending contract'],
    [8, 'deleted developer'],
    [999999, 'unknown unit'],
  ])('answers 404 unit not found for unit %i (%s)', async (id) => {
    const res = await get(`/units/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'error', message: 'unit not found' });
    assertDocumented('GET', '/units/{id}', 404, res.json());
  });

  it.each(['0', 'abc', '-3', '2.5'])('answers 400 for /units/%s', async (id) => {
    const res = await get(`/units/${id}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'id must be a positive integer' });
    assertDocumented('GET', '/units/{id}', 400, res.json());
  });

  // A positive integer is an id by the specification's rule, even beyond what storage holds (32 bits).
  it.each(['2147483648', '4294967296', '99999999999999999999'])('answers 404 unit not found for /units/%s', async (id) => {
    const res = await get(`/units/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'error', message: 'unit not found' });
    assertDocumented('GET', '/units/{id}', 404, res.json());
  });
});

describe.each(drivers)('GET /units/{id} without STATIC_BASE_URL (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, bundle, (started) => ({ t, key } = started));

  it('gives url equal to path', async () => {
    const unit = (await t.app.inject({ method: 'GET', url: '/units/1', headers: { 'x-api-key': key } })).json().data;
    expect(unit.price).toBe(1234567.89);
    for (const f of [unit.plan_file, unit.project.floor_plan_file, unit.project.brochure_file, unit.project.general_plan_file, unit.project.company.LogoFile]) {
      expect(f.url).toBe(f.path);
    }
  });
});
