import type { Static } from '@sinclair/typebox';
import { mcpExamples } from './mcp-endpoint.js';
import { messages } from '../../domain/error-catalogue.js';
import type { ApplicationBody, ApplicationResult } from '../../contract/schemas/applications.js';
import type { ChangesPage } from '../../contract/schemas/changes.js';
import type { FileObject, FlatProjectList, ProjectContacts, ProjectDetail, ProjectsPageSchema } from '../../contract/schemas/projects.js';
import type { UnitModel } from '../../contract/schemas/units.js';

/*
 * Examples of the OpenAPI document: one realistic value for every parameter, request body and
 * response, attached to the generated document by openapi-http.ts. Typed with the schemas they
 * illustrate where those are exported, and validated against the schemas of the document itself by
 * test/openapi-examples.test.ts, so an example that drifts from its schema fails the build.
 * The data is a project of the demo catalogue (`npm start`), as the demo key sees it; every example request
 * is sent to that catalogue by test/openapi-examples-run.test.ts and gets its documented status.
 */
type Json = Record<string, unknown>;

const TS = '2026-03-02T09:15:00.000Z';
const UPDATED = '2026-10-18T14:02:11.000Z';
const BASE = 'https://cdn.example-agency.ae';

const file = (id: number, path: string, mime: string, size: number): FileObject => ({
  id,
  original_name: path.split('/').pop() ?? path,
  storage_name: `${id}-${path.split('/').pop()}`,
  mime_type: mime,
  path,
  url: `${BASE}/${path}`,
  size,
  created_at: TS,
  updated_at: TS,
});

const company = { id: 3, name: 'Skyline Developments', logo: `${BASE}/companies/3/logo.png` };
const paymentPlans = [
  { type: 1 as const, percent: 20 },
  { type: 2 as const, percent: 40 },
  { type: 3 as const, percent: 40 },
];
const preferences = {
  features: [{ id: 4, name: 'Smart home', type: 1 as const }],
  amenities: [
    { id: 14, name: 'Gym', type: 2 as const },
    { id: 17, name: 'Swimming pool', type: 2 as const },
  ],
};
const logo = `${BASE}/projects/34/cover.jpg`;

const projectsPage: Static<typeof ProjectsPageSchema> = {
  total: 57,
  items: [
    {
      id: 34,
      name: 'Marina Vista Residences',
      status: 3,
      development_status: 1,
      is_branded: false,
      is_resale: false,
      is_escrow: true,
      handover_date: '2028-06-30T00:00:00.000Z',
      price_from: 1250000,
      size_from: 68.5,
      currency: 'AED',
      logo,
      company,
      payment_plans: paymentPlans,
      preferences,
      // With match=true: the units the unit-level filters keep ("from AED 1,315,000 · 4 units").
      match: { units: 4, price_from: 1315000, size_from: 74.5 },
    },
  ],
};

const flatList: Static<typeof FlatProjectList> = {
  items: [
    { id: 34, name: 'Marina Vista Residences', logo },
    { id: 57, name: 'Palm Crest Villas', logo: null },
  ],
};

const cover = file(901, 'projects/34/cover.jpg', 'image/jpeg', 482113);
const brochure = file(905, 'projects/34/brochure.pdf', 'application/pdf', 5120334);

const projectDetail: Static<typeof ProjectDetail> = {
  id: 34,
  name: 'Marina Vista Residences',
  description: 'A 45-storey waterfront tower with marina views, two minutes from the tram.',
  type: 1,
  status: 3,
  development_status: 1,
  is_draft: false,
  is_branded: false,
  is_resale: false,
  is_escrow: true,
  area_name: 'Dubai Marina',
  area_city: 'Dubai',
  handover_date: '2028-06-30T00:00:00.000Z',
  launch_date: '2026-02-15T00:00:00.000Z',
  launch_time: '10:00 GST',
  readiness_progress: 35,
  total_floors: 45,
  developer_registration_id: 'DLD-10452',
  trakheesi_project_id: '71234',
  escrow_account: 'ESC-2026-0042',
  oqood_registration: 'OQ-88231',
  resale_conditions: 'Resale allowed after 40 % paid',
  floors_formula: 'G+P+45',
  price_from: 1250000,
  size_from: 68.5,
  logo,
  company,
  location: { area_id: 1, area_name: 'Dubai Marina', area_city: 'Dubai', address: 'Al Marsa Street', latitude: 25.0805, longitude: 55.1403 },
  cost: { currency: 'AED', commission_type: 1, service_charge: 18.5 },
  payment_plans: paymentPlans,
  media: {
    images: [{ id: 901, position: 0, file: cover }],
    tours: ['https://tours.example.com/marina-vista'],
    presentations: [],
    floor_plan_file: null,
    brochure_file: brochure,
    general_plan_file: null,
  },
  units: [
    { id: 1201, unit_number: 'A-1204', bedrooms: 1, status: 4, furnishing: 1, price: 1250000, unit_area: 68.5 },
    { id: 1202, unit_number: 'A-1206', bedrooms: 2, status: 4, furnishing: 2, price: 2140000.5, unit_area: 112 },
  ],
  preferences,
  nearby_facilities: {
    airports_ports: [],
    education: [
      {
        distance: 850.4,
        facility: { source_id: 'EDU-1077', name: 'Marina Heights School', curriculum: 'British', khda_rating: 'Very good', asset_latitude: 25.0781, asset_longitude: 55.1432 },
      },
    ],
    employment: [],
    healthcare: [],
    lifestyle: [],
    retail: [],
    transport: [{ distance: 240.1, facility: { source_id: 'TR-22', name: 'Dubai Marina Tram Station', asset_latitude: 25.0799, asset_longitude: 55.1421 } }],
    tourism: [],
  },
  created_at: TS,
  updated_at: UPDATED,
};

const contacts: Static<typeof ProjectContacts> = {
  company: { id: 3, name: 'Skyline Developments', avatar: `${BASE}/companies/3/logo.png` },
  workers: [
    {
      user_id: 31,
      name: 'Layla Haddad',
      email: 'layla.haddad@skyline.example',
      role: 'broker',
      avatar: null,
      contact_phone: '+971 50 123 4567',
      social_links: { telegram: '', instagram: 'layla.homes', linkedin: '', facebook: '', twitter: '', whatsapp: '+971501234567', website: '' },
      languages: ['en', 'ar'],
      bio: 'Off-plan specialist for Dubai Marina.',
    },
  ],
};

const unit: Static<typeof UnitModel> = {
  id: 1201,
  project_id: 34,
  unit_number: 'A-1204',
  bedrooms: 1,
  status: 4,
  furnishing: 1,
  parking: 1,
  floor: 12,
  price: 1250000,
  unit_area: 68.5,
  plan_file_id: null,
  plan_file: null,
  preferences: [
    { id: 5521, unit_id: 1201, preference_id: 2, preference: { id: 2, name: 'Sea View', created_at: TS, updated_at: TS }, created_at: TS, updated_at: TS },
  ],
  project: {
    id: 34,
    company_id: 3,
    author_id: 31,
    area_id: 1,
    company: {
      ID: 3,
      CompanyType: 3,
      CompanyName: 'Skyline Developments',
      LegalName: 'Skyline Developments LLC',
      TradeLicenseCode: 'TL-778812',
      ReraLicenseCode: 'RERA-1187',
      PreferredContactEmail: 'sales@skyline.example',
      PreferredContactPhone: '+971 4 555 0101',
      OfficeAddress: 'Sheikh Zayed Road, Dubai',
      POBoxNumber: '112233',
      LogoFileID: 300,
      LogoFile: file(300, 'companies/3/logo.png', 'image/png', 20480),
      OrganisationDescription: 'Residential developer since 2009.',
      Specialisation: 1,
      ProjectPortfolioURL: 'https://skyline.example/projects',
      TradeLicenseDocumentVerified: true,
      ReraCertificateVerified: true,
      IdentificationDocumentVerified: true,
      Status: 1,
      CreatedAt: TS,
      UpdatedAt: UPDATED,
    },
    author: { ID: 31, Name: 'Layla Haddad', Email: 'layla.haddad@skyline.example', Status: 1, Type: 2, CreatedAt: TS, UpdatedAt: TS, DeletedAt: null },
    area: { id: 1, name: 'Dubai Marina', city: 'Dubai', created_at: TS, updated_at: TS },
    name: 'Marina Vista Residences',
    description: 'A 45-storey waterfront tower with marina views, two minutes from the tram.',
    developer_registration_id: 'DLD-10452',
    trakheesi_project_id: '71234',
    escrow_account: 'ESC-2026-0042',
    oqood_registration: 'OQ-88231',
    type: 1,
    status: 3,
    development_status: 1,
    readiness_progress: 35,
    total_floors: 45,
    launch_date: '2026-02-15T00:00:00.000Z',
    launch_time: '10:00 GST',
    resale_conditions: 'Resale allowed after 40 % paid',
    floors_formula: 'G+P+45',
    is_draft: false,
    is_branded: false,
    service_charge: 18.5,
    floor_plan_file_id: null,
    brochure_file_id: 905,
    general_plan_file_id: null,
    floor_plan_file: null,
    brochure_file: brochure,
    general_plan_file: null,
    CreatedAt: TS,
    UpdatedAt: UPDATED,
  },
  created_at: TS,
  updated_at: UPDATED,
};

// A contact the demo CRM does not hold: the example is what a newcomer sends first, with the demo key.
const applicationBody: ApplicationBody = {
  client: {
    first_name: 'Jane',
    last_name: 'Doe',
    email: 'jane.doe@example.com',
    mobile_number: '+971 58 555 0199',
    city: 'Dubai',
    country: 'United Arab Emirates',
    social_links: { instagram: '@jane.doe' },
  },
  preferences: { based_on_unit: true, preference_ids: [2], min_budget: 1000000, max_budget: 1500000 },
  message: 'Interested in a one-bedroom with sea view; available for a call after 5 pm.',
  language: 'en',
  currency: 'AED',
};

const applicationResult: ApplicationResult = {
  client: {
    id: 5012,
    first_name: 'Jane',
    last_name: 'Doe',
    email: 'jane.doe@example.com',
    mobile_number: '+971 58 555 0199',
    property_types: [1],
    preferred_area_ids: [1],
    property_features: ['Sea View'],
    created: true,
    created_at: '2026-11-20T10:31:02.000Z',
  },
  opportunity: {
    id: 8810,
    name: 'Jane Doe \u2014 Marina Vista Residences, unit A-1204',
    stage: { id: 1, name: 'New lead', position: 0 },
    investment_type: null,
    currency: 'AED',
    min_budget: 1000000,
    max_budget: 1500000,
    position: 3,
    preferences: [{ id: 2, name: 'Sea View' }],
    project_preferences: preferences,
    created_at: '2026-11-20T10:31:02.000Z',
  },
  offer: {
    id: 7304,
    uuid: '0b8f3c1e-5d2a-4f7e-9a61-3c2d8e4b7f10',
    offer_status: { id: 1, name: 'Draft' },
    unit: { id: 1201, unit_number: 'A-1204', project_id: 34, project_name: 'Marina Vista Residences' },
    price: 1250000,
    language: 'en',
    currency: 'AED',
    measure_units: 1,
    advisor_name: 'Omar Khalil',
    advisor_email: 'omar.khalil@agency.example',
    advisor_phone: '+971 4 555 0199',
    is_sent: false,
    created_at: '2026-11-20T10:31:02.000Z',
    price_conversion: null,
  },
};

const success = (data: unknown) => ({ status: 'success', data });
const error = (message: string) => ({ status: 'error', message });

export interface OperationExamples {
  parameters?: Record<string, unknown>;
  requestBody?: unknown;
  /** Success responses; errors come from errorExamples unless given here. */
  responses: Record<string, unknown>;
}

/** The error envelope of each status, as the service words it. */
export const errorExamples: Record<string, unknown> = {
  400: error('limit must be an integer of at least 1'),
  401: error(messages.invalidApiKey),
  403: error(messages.originNotAllowed),
  404: error(messages.routeNotFound),
  409: error(messages.idempotencyMismatch),
  410: error(messages.cursorExpired),
  429: error('rate limit exceeded, retry in 12 seconds'),
  500: error(messages.internal),
  503: error(messages.unavailable),
};

const id = { id: 34 };

// A later page of a mirror's feed: a price changed (the unit and its project), a unit was sold and deleted.
const changesPage: ChangesPage = {
  items: [
    { type: 'project', id: 34, change: 'upsert', changed_at: UPDATED },
    { type: 'unit', id: 1201, project_id: 34, change: 'upsert', changed_at: UPDATED },
    { type: 'unit', id: 1207, project_id: 34, change: 'removed', changed_at: UPDATED },
  ],
  next_cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2IjowLCJhdCI6MTI4LCJyYW5rIjoyLCJpZCI6MCwidGhyb3VnaCI6MTE5fQ.2vQm3oZ0sTz4b1Yw',
  has_more: false,
  catalogue_version: 128,
};

// Every filter of GET /projects, as a search page of a map might send them.
const projectsParameters = {
  search: 'marina',
  developer_ids: '3,5',
  unit_types: '1,2',
  development_status: '1,2',
  bedrooms: '1,2',
  statuses: '3,4',
  price_min: 800000,
  price_max: 2500000,
  price_per_ft2_min: 1200,
  price_per_ft2_max: 2600,
  price_per_m2_min: 13000,
  price_per_m2_max: 28000,
  size_min: 60,
  size_max: 150,
  parking_min: 1,
  is_branded: false,
  is_resale: false,
  is_escrow: true,
  handover_from: '2027-01-01',
  handover_to: '2028-12-31',
  payment_max_pre_handover: 60,
  payment_min_after_handover: 40,
  payment_only_post_handover: true,
  lat: 25.0805,
  lng: 55.1403,
  radius_km: 5,
  bbox: '55.12,25.06,55.16,25.10',
  polygon: '55.128,25.072,55.146,25.068,55.152,25.086,55.134,25.094',
  near_airport: false,
  near_education: true,
  near_employment: false,
  near_healthcare: false,
  near_lifestyle: false,
  near_retail: false,
  near_transport: true,
  near_tourism: false,
  preference_ids: '14,17',
  unit_preference_ids: '2',
  limit: 20,
  offset: 0,
  sort: '-price_from',
  facets: 'bedrooms,developer,area',
  match: true,
};
const { limit: _limit, offset: _offset, sort: _sort, facets: _facets, ...projectFilters } = projectsParameters;

export const operationExamples: Record<string, OperationExamples> = {
  health: { responses: { 200: success({ database: 'up', driver: 'postgres', catalogue_version: 42, change_signal: 'listening', search: { catalogue_version: 42, built_at: '2026-11-25T09:30:00.000Z', build_ms: 2180 } }), 503: error(messages.databaseDown) } },
  healthLive: { responses: { 200: success({ uptime_s: 3600.4 }) } },
  healthReady: { responses: { 200: success({ database: 'up', search_catalogue_version: 42 }), 503: error(messages.shuttingDown) } },
  whoAmI: {
    responses: {
      200: success({
        api_key: { id: 7, name: 'Agency website', key_prefix: 'ck_3f9a1c', status: 0, price_vector: 2.5, price_factor: 1.025 },
        company: { id: 1, company_type: 2, name: 'Gulf Homes Realty', logo: `${BASE}/companies/1/logo.png` },
        author: { id: 1, name: 'Omar Khalil', email: 'omar.khalil@agency.example' },
      }),
    },
  },
  listDevelopers: { responses: { 200: success({ items: [company, { id: 5, name: 'Crescent Properties', logo: null }] }) } },
  listAreas: {
    parameters: { city: 'Dubai' },
    responses: { 200: success([{ id: 1, name: 'Dubai Marina', city: 'Dubai', created_at: TS, updated_at: TS }]) },
  },
  listUnitTags: { responses: { 200: success([{ id: 2, name: 'Sea View', created_at: TS, updated_at: TS }]) } },
  listProjectTypes: { responses: { 200: success([{ id: 1, name: 'Apartments' }, { id: 2, name: 'Villas' }]) } },
  listDevelopmentStatuses: { responses: { 200: success([{ id: 1, name: 'Off-plan' }, { id: 3, name: 'Ready' }]) } },
  listCurrencies: {
    responses: {
      200: success({
        items: [
          { currency: 'AED', aed_per_unit: 1, minor_unit: 2, as_of: null },
          { currency: 'EUR', aed_per_unit: 4.241, minor_unit: 2, as_of: '2026-11-20T12:00:00Z' },
          { currency: 'USD', aed_per_unit: 3.6725, minor_unit: 2, as_of: '2026-11-20T12:00:00Z' },
        ],
      }),
    },
  },
  listProjectFeatures: { parameters: { type: 2 }, responses: { 200: success({ features: [], amenities: preferences.amenities }) } },
  listProjects: {
    parameters: projectsParameters,
    responses: { 200: success(projectsPage) },
  },
  searchProjects: {
    // A community boundary with a lake cut out, drawn on a map: too long for a request line when detailed.
    requestBody: {
      bedrooms: '2',
      sort: 'price_from',
      limit: 20,
      fields: 'id,name,logo,price_from,currency',
      polygon: {
        type: 'Polygon',
        coordinates: [
          [[55.128, 25.072], [55.146, 25.068], [55.152, 25.086], [55.134, 25.094], [55.128, 25.072]],
          [[55.138, 25.078], [55.142, 25.078], [55.142, 25.082], [55.138, 25.082], [55.138, 25.078]],
        ],
      },
    },
    responses: { 200: success(projectsPage) },
  },
  listProjectClusters: {
    parameters: { ...projectFilters, bbox: '54.9,24.8,55.6,25.4', zoom: 11 },
    responses: {
      200: success({
        total: 37,
        zoom: 11,
        grid_zoom: 11,
        clusters: [
          {
            tile: '11/1337/876',
            count: 36,
            centroid: { lat: 25.0791, lng: 55.1412 },
            bounds: { west: 55.0987, south: 25.0412, east: 55.1749, north: 25.1196 },
            price_from: 1103560,
            currency: 'AED',
            project: null,
            match: { units: 212, price_from: 1175000, currency: 'AED', size_from: 61.2 },
          },
          {
            tile: '11/1339/874',
            count: 1,
            centroid: { lat: 25.1972, lng: 55.2744 },
            bounds: { west: 55.2744, south: 25.1972, east: 55.2744, north: 25.1972 },
            price_from: 2450000,
            currency: 'AED',
            project: { id: 34, name: 'Marina Crest Residences', logo: `${BASE}/projects/34/logo.png` },
            match: { units: 3, price_from: 2450000, currency: 'AED', size_from: 142 },
          },
        ],
      }),
    },
  },
  listAllProjects: { responses: { 200: success(flatList) } },
  getProject: { parameters: id, responses: { 200: success(projectDetail), 404: error(messages.projectNotFound) } },
  getProjectContacts: { parameters: id, responses: { 200: success(contacts), 404: error(messages.projectNotFound) } },
  getUnit: { parameters: { id: 1201 }, responses: { 200: success(unit), 404: error(messages.unitNotFound) } },
  listChanges: {
    parameters: { cursor: 'eyJ2IjoxLCJrZXkiOjcsInB2IjowLCJhdCI6MTE5LCJyYW5rIjoyLCJpZCI6MCwidGhyb3VnaCI6MTE5fQ.Jb8o1c6kQm0tP2Xr', limit: 100 },
    responses: { 200: success(changesPage), 400: error(messages.badCursor) },
  },
  submitApplication: {
    parameters: { id: 1201, 'idempotency-key': '5f0c2a8e-1b7d-4c3e-9f21-8a6d4e2b9c70' },
    requestBody: applicationBody,
    responses: { 201: success(applicationResult), 400: error(messages.contactRequired), 404: error(messages.unitNotFound) },
  },
  mcp: mcpExamples,
};

/** The If-None-Match header every keyed GET accepts. */
export const ifNoneMatchExample = '"Yk3qGJ0c1l0mJ9o1F1dZ7fXq0Vd5cKx8oZb2m4pQe1w-gzip"';

export type { Json };
