import type { ColumnType, Generated } from 'kysely';
import type { FacilityCategory } from '../domain/catalogue-codes.js';

/*
 * Kysely's view of the tables created by the migrations. Numeric and bigint columns are parsed to
 * JavaScript numbers and timestamps to ISO strings by the drivers (see database.ts), so that is what
 * the types say.
 */
type Timestamp = ColumnType<string, string | undefined, string>;
type NullableTimestamp = ColumnType<string | null, string | null | undefined, string | null>;
type Json<T> = ColumnType<T, string, string>;

/**
 * The catalogue version and time of the last change of the row (migration 0008, GET /changes); set by
 * a trigger on every write, so writers never give them.
 */
interface ChangeStamp {
  changed_version: Generated<number>;
  changed_at: Generated<string>;
}

/** The version of the last change of what the row itself shows, not its updated_at alone (migration 0016; null: none since). */
interface OwnStamp {
  own_version: Generated<number | null>;
}

export interface FilesTable {
  id: number;
  path: string;
  original_name: string | null;
  storage_name: string | null;
  mime_type: string | null;
  size: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CompaniesTable extends ChangeStamp, OwnStamp {
  id: number;
  company_type: number;
  company_name: string;
  legal_name: string | null;
  trade_license_code: string | null;
  rera_license_code: string | null;
  preferred_contact_email: string | null;
  preferred_contact_phone: string | null;
  office_address: string | null;
  po_box_number: string | null;
  logo_file_id: number | null;
  organisation_description: string | null;
  specialisation: number | null;
  project_portfolio_url: string | null;
  trade_license_document_verified: Generated<boolean>;
  rera_certificate_verified: Generated<boolean>;
  identification_document_verified: Generated<boolean>;
  status: Generated<number>;
  licence_status: 'approved' | 'pending' | 'rejected' | null;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: number;
  name: string;
  email: string;
  status: Generated<number>;
  type: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SocialLinks {
  [network: string]: string | undefined;
}

export interface CompanyMembersTable {
  company_id: number;
  user_id: number;
  role: string;
  contact_phone: string | null;
  avatar_file_id: number | null;
  social_links: Json<SocialLinks>;
  languages: string[] | null;
  bio: string | null;
}

/** Migration 0009: when a row was created, and when what decides its visibility last changed (GET /changes). */
export interface VisibilityStamp {
  created_version: Generated<number>;
}

export interface ContractsTable extends ChangeStamp, VisibilityStamp, OwnStamp {
  opens_version: Generated<number>;
  agency_id: number;
  developer_id: number;
  status: 'approved' | 'pending' | 'rejected';
}

export interface ApiKeysTable {
  id: Generated<number>;
  company_id: number;
  author_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  price_vector: ColumnType<number, number | undefined, number>;
  status: Generated<number>;
  allowed_domains: string[] | null;
  /** Migration 0009: the application response shows only what the request sent and the unit derived. */
  private_applications: Generated<boolean>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AreasTable extends ChangeStamp, OwnStamp {
  id: number;
  name: string;
  city: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UnitTagsTable {
  id: number;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectFeaturesTable {
  id: number;
  name: string;
  type: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectsTable extends ChangeStamp, VisibilityStamp {
  published_version: Generated<number>;
  id: number;
  company_id: number;
  author_id: number | null;
  area_id: number | null;
  name: string;
  description: Generated<string>;
  type: Generated<number>;
  status: Generated<number>;
  development_status: Generated<number>;
  readiness_progress: Generated<number>;
  total_floors: Generated<number>;
  developer_registration_id: Generated<string>;
  trakheesi_project_id: Generated<string>;
  escrow_account: Generated<string>;
  oqood_registration: Generated<string>;
  launch_date: NullableTimestamp;
  launch_time: string | null;
  handover_date: NullableTimestamp;
  resale_conditions: string | null;
  floors_formula: string | null;
  is_draft: Generated<boolean>;
  is_branded: Generated<boolean>;
  is_resale: Generated<boolean>;
  service_charge: number | null;
  currency: Generated<string>;
  commission_type: number | null;
  latitude: number | null;
  longitude: number | null;
  address: string | null;
  floor_plan_file_id: number | null;
  brochure_file_id: number | null;
  general_plan_file_id: number | null;
  tours: Generated<string[]>;
  presentations: Generated<string[]>;
  deleted_at: NullableTimestamp;
  /** Metres to the nearest linked facility of each category (migration 0002; kept by the importer). */
  nearest_airports_ports_m: number | null;
  nearest_education_m: number | null;
  nearest_employment_m: number | null;
  nearest_healthcare_m: number | null;
  nearest_lifestyle_m: number | null;
  nearest_retail_m: number | null;
  nearest_transport_m: number | null;
  nearest_tourism_m: number | null;
  /**
   * Live units by bedroom bucket (element b + 1 is bucket b; 5 = five or more): lowest and highest base
   * price, and bit b set when the bucket has a unit (migration 0006; kept by triggers on units).
   */
  unit_min_prices: Generated<(string | null)[]>;
  unit_max_prices: Generated<(string | null)[]>;
  unit_bedroom_mask: Generated<number>;
  /** The version of the last change of the project's own answer (migration 0016; null: none since). */
  own_version: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectPaymentPlansTable {
  project_id: number;
  position: number;
  type: number;
  percent: number;
}

export interface ProjectImagesTable {
  project_id: number;
  position: number;
  file_id: number;
}

export interface ProjectFeatureLinksTable {
  project_id: number;
  feature_id: number;
}

export interface UnitsTable extends ChangeStamp, VisibilityStamp {
  live_version: Generated<number>;
  project_version: Generated<number>;
  id: number;
  project_id: number;
  unit_number: string;
  bedrooms: Generated<number>;
  status: Generated<number>;
  furnishing: Generated<number>;
  parking: Generated<number>;
  floor: Generated<number>;
  price: number | null;
  unit_area: Generated<number>;
  plan_file_id: number | null;
  deleted_at: NullableTimestamp;
  /** Copy of the unit's tag ids (sorted, unique) for the unit filters; unit_tag_links is the record. */
  tag_ids: Generated<number[]>;
  /** The version of the last change of the unit's own answer, and of its own answer besides price, status and listing (migration 0016). */
  own_version: Generated<number | null>;
  details_version: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UnitTagLinksTable {
  id: Generated<number>;
  unit_id: number;
  tag_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type { FacilityCategory };

export interface FacilitiesTable extends ChangeStamp {
  id: Generated<number>;
  category: FacilityCategory;
  source_id: string;
  data: Json<Record<string, unknown>>;
  /** The facility object as served: `data` with `source_id` added when missing, as JSON text (migration 0005). */
  facility_json: string;
  latitude: number | null;
  longitude: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectFacilitiesTable {
  project_id: number;
  facility_id: number;
  category: FacilityCategory;
  distance_m: number;
}

export interface ClientsTable {
  id: Generated<number>;
  company_id: number;
  first_name: string;
  last_name: string | null;
  email: string | null;
  mobile_number: string | null;
  mobile_digits: ColumnType<string, never, never>;
  landline_number: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  country: string | null;
  postcode: string | null;
  social_links: Json<SocialLinks>;
  property_types: ColumnType<number[], number[] | undefined, number[]>;
  preferred_area_ids: ColumnType<number[], number[] | undefined, number[]>;
  property_features: ColumnType<string[], string[] | undefined, string[]>;
  notes: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BoardStagesTable {
  id: Generated<number>;
  company_id: number;
  name: string;
  position: number;
}

/** A project type's name (migration 0011): `id` is the value of a project's `type`. */
export interface ProjectTypesTable {
  id: number;
  name: string;
}

/** A development status's name (migration 0011): `id` (0 to 3) is the value of a project's `development_status`. */
export interface DevelopmentStatusesTable {
  id: number;
  name: string;
}

export interface OfferStatusesTable {
  id: number;
  name: string;
}

export interface OpportunitiesTable {
  id: Generated<number>;
  company_id: number;
  client_id: number;
  stage_id: number;
  author_id: number;
  api_key_id: number | null;
  unit_id: number | null;
  name: string;
  investment_type: number | null;
  currency: string;
  min_budget: number | null;
  max_budget: number | null;
  position: number;
  notes: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OpportunityTagsTable {
  opportunity_id: number;
  tag_id: number;
}

export interface OpportunityProjectFeaturesTable {
  opportunity_id: number;
  feature_id: number;
}

export interface OffersTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  author_id: number;
  unit_id: number;
  offer_status_id: number;
  price: number | null;
  language: string;
  currency: string;
  measure_units: number;
  advisor_name: string;
  advisor_email: string | null;
  advisor_phone: string | null;
  is_sent: Generated<boolean>;
  /** Set when the offer's currency differs from the unit's (migration 0013): what was converted, and at which rate. */
  unit_currency: string | null;
  unit_price: number | null;
  /** Offer currency per unit currency; null when no rate allowed a conversion. */
  exchange_rate: number | null;
  rate_as_of: NullableTimestamp;

  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OfferOpportunitiesTable {
  offer_id: number;
  opportunity_id: number;
}

export interface IdempotencyKeysTable {
  api_key_id: number;
  key: string;
  request_hash: string;
  status_code: number | null;
  response: Json<unknown> | null;
  created_at: Timestamp;
}

/** One row (id 1): the catalogue version, bumped once per committing catalogue writer (migration 0007). */
/** AED for one unit of a currency (migration 0013); AED itself has no row. */
export interface CurrencyRatesTable {
  currency: string;
  aed_per_unit: number;
  as_of: Timestamp;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
}

export interface CatalogueStateTable {
  id: Generated<number>;
  version: Generated<number>;
  changed_at: Timestamp;
  /** The version rows were stamped with by migration 0008: the oldest position GET /changes answers from. */
  feed_horizon: number;
}

export interface DB {
  files: FilesTable;
  companies: CompaniesTable;
  users: UsersTable;
  company_members: CompanyMembersTable;
  contracts: ContractsTable;
  api_keys: ApiKeysTable;
  areas: AreasTable;
  unit_tags: UnitTagsTable;
  project_features: ProjectFeaturesTable;
  projects: ProjectsTable;
  project_payment_plans: ProjectPaymentPlansTable;
  project_images: ProjectImagesTable;
  project_feature_links: ProjectFeatureLinksTable;
  units: UnitsTable;
  unit_tag_links: UnitTagLinksTable;
  facilities: FacilitiesTable;
  project_facilities: ProjectFacilitiesTable;
  clients: ClientsTable;
  board_stages: BoardStagesTable;
  offer_statuses: OfferStatusesTable;
  project_types: ProjectTypesTable;
  development_statuses: DevelopmentStatusesTable;
  opportunities: OpportunitiesTable;
  opportunity_tags: OpportunityTagsTable;
  opportunity_project_features: OpportunityProjectFeaturesTable;
  offers: OffersTable;
  offer_opportunities: OfferOpportunitiesTable;
  idempotency_keys: IdempotencyKeysTable;
  catalogue_state: CatalogueStateTable;
  currency_rates: CurrencyRatesTable;
  change_tombstones: ChangeTombstonesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_unit_before: WebhookUnitBeforeTable;
}

/** Hard-deleted projects, units and contracts, for GET /changes (migration 0008). */
export interface ChangeTombstonesTable {
  entity: 'project' | 'unit' | 'contract';
  /** The project's or unit's id; for a contract, the developer's. */
  id: number;
  agency_id: number;
  project_id: number | null;
  developer_id: number;
  changed_version: number;
  changed_at: Timestamp;
}

/** Webhook endpoints of API keys (migration 0012). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  api_key_id: number;
  url: string;
  event_types: string[];
  /** `whsec_<base64>`; the previous one is also used until previous_secret_until (a rotation). */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: NullableTimestamp;
  enabled: Generated<boolean>;
  /** Why the service disabled the endpoint (410, 72 h of failures); null when enabled or disabled by hand. */
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One event for one endpoint; `id` is the webhook-id header, `body` the exact bytes signed. */
export interface WebhookMessagesTable {
  id: string;
  endpoint_id: number;
  event_type: string;
  body: string;
  created_at: Timestamp;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed' | 'dropped';

/** The delivery queue and log: `next_attempt_at` is the retry time and, while an attempt runs, its lease. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  message_id: string;
  endpoint_id: number;
  state: ColumnType<WebhookDeliveryState, WebhookDeliveryState | undefined, WebhookDeliveryState>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_attempt_at: NullableTimestamp;
  last_status: number | null;
  last_error: string | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
  /** The delivery probing the endpoint while it does not answer; this one waits for it (migration 0014). */
  waits_for_probe: number | null;
  /** While an attempt runs, the end of its lease; NULL once its outcome is written (migration 0015). */
  leased_until: NullableTimestamp;
}

/** A unit's price, status and listing before the transaction `version` changed them (units' triggers). */
export interface WebhookUnitBeforeTable {
  version: number;
  unit_id: number;
  existed: boolean;
  price: number | null;
  status: number | null;
  listed: boolean | null;
  /** Where it was and its area (migration 0016): a project's unit summary before the transaction. */
  project_id: number | null;
  unit_area: number | null;
}
