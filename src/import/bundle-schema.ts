import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FACILITY_CATEGORIES } from '../domain/catalogue-codes.js';
import { INT32_MAX, INT32_MIN } from '../domain/record-ids.js';

/*
 * The catalogue bundle, as JSON Schema (TypeBox). This is the public import contract
 * (../shared/spec/catalogue-bundle.md): every record lists exactly the fields the contract names, and
 * an unknown field is an error everywhere except inside `facilities[].data`, which is the source's own
 * record kept as given.
 *
 * Optional fields also accept null, which means the same as leaving the field out: the column goes
 * back to its default (null, false, 0, '' or an empty list). Source systems export nulls freely and
 * refusing them would buy nothing.
 *
 * Integer ranges stop at the 32-bit bounds of the storage columns, so an out-of-range number is a
 * validation error naming the field rather than a database error.
 */

/** Read by the importer to word an error; ajv ignores it. */
const message = (text: string) => ({ 'x-error-message': text });

/** Plain JSON Schema of a TypeBox schema, without TypeBox's symbol keys, so it can be combined freely. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** `schema` or null (a single `type` array keeps ajv's error short: "must be integer,null"). */
function nullable<T extends TSchema>(schema: T) {
  const json = plain(schema);
  // An enum must list null too, or null would pass `type` and then fail `enum`.
  const values = Array.isArray(json.enum) ? { enum: [...(json.enum as unknown[]), null] } : {};
  return Type.Unsafe<Static<T> | null>({ ...json, type: [json.type, 'null'], ...values });
}

/** An optional field: may be left out or be null. */
const opt = <T extends TSchema>(schema: T) => Type.Optional(nullable(schema));

function oneOf<const V extends readonly (string | number)[]>(type: 'string' | 'integer', values: V) {
  return Type.Unsafe<V[number]>({ type, enum: [...values] });
}

function nullableOneOf<const V extends readonly (string | number)[]>(type: 'string' | 'integer', values: V) {
  return Type.Unsafe<V[number] | null>({ type: [type, 'null'], enum: [...values, null] });
}

const int = (minimum = INT32_MIN, maximum = INT32_MAX) => Type.Integer({ minimum, maximum });
const count = () => int(0);
const id = () => int(1);
const text = () => Type.String();
const flag = () => Type.Boolean();
const timestamp = () => Type.String({ format: 'date-time', 'x-storable-timestamp': true });
const latitude = () => Type.Number({ minimum: -90, maximum: 90 });
const longitude = () => Type.Number({ minimum: -180, maximum: 180 });
const textList = () => Type.Array(Type.String());
const idList = () => Type.Array(id(), { uniqueItems: true });

/** created_at / updated_at, on the records whose tables have them. */
const timestamps = {
  created_at: opt(timestamp()),
  updated_at: opt(timestamp()),
};

const record = <P extends Parameters<typeof Type.Object>[0]>(properties: P) =>
  Type.Object(properties, { additionalProperties: false });

export const FileRecord = record({
  id: id(),
  path: text(),
  original_name: opt(text()),
  storage_name: opt(text()),
  mime_type: opt(text()),
  size: opt(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  ...timestamps,
});

export const AreaRecord = record({
  id: id(),
  name: text(),
  city: text(),
  ...timestamps,
});

export const UnitTagRecord = record({
  id: id(),
  name: text(),
  ...timestamps,
});

export const ProjectFeatureRecord = record({
  id: id(),
  name: text(),
  type: oneOf('integer', [1, 2]),
  ...timestamps,
});

export const LICENCE_STATUSES = ['approved', 'pending', 'rejected'] as const;
export const CONTRACT_STATUSES = ['approved', 'pending', 'rejected'] as const;

export const CompanyRecord = record({
  id: id(),
  company_type: oneOf('integer', [2, 3]),
  company_name: text(),
  legal_name: opt(text()),
  trade_license_code: opt(text()),
  rera_license_code: opt(text()),
  preferred_contact_email: opt(text()),
  preferred_contact_phone: opt(text()),
  office_address: opt(text()),
  po_box_number: opt(text()),
  logo_file_id: opt(id()),
  organisation_description: opt(text()),
  specialisation: opt(int()),
  project_portfolio_url: opt(text()),
  trade_license_document_verified: opt(flag()),
  rera_certificate_verified: opt(flag()),
  identification_document_verified: opt(flag()),
  status: opt(int()),
  licence_status: Type.Optional(nullableOneOf('string', LICENCE_STATUSES)),
  deleted: opt(flag()),
  ...timestamps,
});

export const UserRecord = record({
  id: id(),
  name: text(),
  email: text(),
  status: opt(int()),
  type: opt(int(0, 3)),
  deleted: opt(flag()),
  ...timestamps,
});

const memberSocialLinks = record({
  telegram: opt(text()),
  instagram: opt(text()),
  linkedin: opt(text()),
  facebook: opt(text()),
  twitter: opt(text()),
  whatsapp: opt(text()),
  website: opt(text()),
});

export const CompanyMemberRecord = record({
  company_id: id(),
  user_id: id(),
  role: text(),
  contact_phone: opt(text()),
  avatar_file_id: opt(id()),
  social_links: opt(memberSocialLinks),
  languages: opt(textList()),
  bio: opt(text()),
});

export const ContractRecord = record({
  agency_id: id(),
  developer_id: id(),
  status: oneOf('string', CONTRACT_STATUSES),
});

export const ApiKeyRecord = record({
  id: id(),
  company_id: id(),
  author_id: id(),
  name: text(),
  key: Type.String({ pattern: '^ck_[0-9a-f]{64}$', ...message('must be ck_ followed by 64 lowercase hexadecimal characters') }),
  price_vector: opt(Type.Number({ exclusiveMinimum: -100, maximum: 100 })),
  status: opt(oneOf('integer', [0, 1])),
  allowed_domains: opt(textList()),
  private_applications: opt(flag()),
  deleted: opt(flag()),
  ...timestamps,
});

export const PaymentPlan = record({
  type: oneOf('integer', [1, 2, 3]),
  percent: Type.Number({ minimum: 0, maximum: 100 }),
});

export const ProjectRecord = record({
  id: id(),
  company_id: id(),
  name: text(),
  author_id: opt(id()),
  area_id: opt(id()),
  description: opt(text()),
  type: opt(int()),
  status: opt(int()),
  development_status: opt(int(0, 3)),
  readiness_progress: opt(int()),
  total_floors: opt(int()),
  developer_registration_id: opt(text()),
  trakheesi_project_id: opt(text()),
  escrow_account: opt(text()),
  oqood_registration: opt(text()),
  launch_date: opt(timestamp()),
  launch_time: opt(text()),
  handover_date: opt(timestamp()),
  resale_conditions: opt(text()),
  floors_formula: opt(text()),
  is_draft: opt(flag()),
  is_branded: opt(flag()),
  is_resale: opt(flag()),
  service_charge: opt(Type.Number()),
  currency: opt(text()),
  commission_type: opt(int()),
  latitude: opt(latitude()),
  longitude: opt(longitude()),
  address: opt(text()),
  floor_plan_file_id: opt(id()),
  brochure_file_id: opt(id()),
  general_plan_file_id: opt(id()),
  payment_plans: opt(Type.Array(PaymentPlan)),
  // The same file may appear twice in a gallery; positions keep the entries apart.
  image_file_ids: opt(Type.Array(id())),
  tours: opt(textList()),
  presentations: opt(textList()),
  feature_ids: opt(idList()),
  deleted: opt(flag()),
  ...timestamps,
});

export const UnitRecord = record({
  id: id(),
  project_id: id(),
  unit_number: text(),
  bedrooms: opt(count()),
  status: opt(int(1, 5)),
  furnishing: opt(int(1, 4)),
  parking: opt(int()),
  floor: opt(int()),
  // numeric(16, 2)
  price: opt(Type.Number({ minimum: 0, exclusiveMaximum: 1e14 })),
  unit_area: opt(Type.Number({ minimum: 0 })),
  plan_file_id: opt(id()),
  tag_ids: opt(idList()),
  deleted: opt(flag()),
  ...timestamps,
});

export const FacilityRecord = record({
  category: oneOf('string', FACILITY_CATEGORIES),
  // Source datasets use numeric or textual identifiers; either is stored as text.
  source_id: Type.Unsafe<string | number>({ type: ['string', 'integer'], minLength: 1 }),
  // The source's own record, 30 to 50 fields: kept exactly as given, unknown fields included.
  data: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
  ...timestamps,
});

export const BoardStageRecord = record({
  id: id(),
  company_id: id(),
  name: text(),
  position: count(),
});

export const OfferStatusRecord = record({
  id: id(),
  name: text(),
});

export const ProjectTypeRecord = record({
  id: id(),
  name: text(),
});

export const DevelopmentStatusRecord = record({
  id: int(0, 3),
  name: text(),
});

/** AED for one unit of a currency (the rule: src/domain/currency.ts). JSON has no infinity: a number is finite. */
export const CurrencyRateRecord = record({
  currency: Type.String({ pattern: '^(?!AED$)[A-Z]{3}$', ...message('must be an ISO 4217 code of three upper-case letters other than AED (AED is 1 by definition)') }),
  aed_per_unit: Type.Number({ exclusiveMinimum: 0 }),
  as_of: timestamp(),
});

const clientSocialLinks = record({
  instagram: opt(text()),
  tiktok: opt(text()),
  facebook: opt(text()),
  x: opt(text()),
});

export const ClientRecord = record({
  id: id(),
  company_id: id(),
  first_name: text(),
  last_name: opt(text()),
  email: opt(text()),
  mobile_number: opt(text()),
  landline_number: opt(text()),
  address_line1: opt(text()),
  address_line2: opt(text()),
  city: opt(text()),
  country: opt(text()),
  postcode: opt(text()),
  social_links: opt(clientSocialLinks),
  property_types: opt(Type.Array(int())),
  preferred_area_ids: opt(Type.Array(int())),
  property_features: opt(textList()),
  ...timestamps,
});

const section = <T extends TSchema>(item: T) => Type.Optional(Type.Array(item));

/** Sections in the order they are applied (each only refers to sections before it). */
export const BundleSchema = Type.Object(
  {
    files: section(FileRecord),
    areas: section(AreaRecord),
    unit_tags: section(UnitTagRecord),
    project_features: section(ProjectFeatureRecord),
    project_types: section(ProjectTypeRecord),
    development_statuses: section(DevelopmentStatusRecord),
    companies: section(CompanyRecord),
    users: section(UserRecord),
    company_members: section(CompanyMemberRecord),
    contracts: section(ContractRecord),
    api_keys: section(ApiKeyRecord),
    projects: section(ProjectRecord),
    units: section(UnitRecord),
    facilities: section(FacilityRecord),
    currency_rates: section(CurrencyRateRecord),
    board_stages: section(BoardStageRecord),
    offer_statuses: section(OfferStatusRecord),
    clients: section(ClientRecord),
  },
  { additionalProperties: false },
);

export type Bundle = Static<typeof BundleSchema>;
export type SectionName = keyof Bundle;
export type SectionRecord<S extends SectionName> = NonNullable<Bundle[S]>[number];

/** Every section, in the order the importer applies them. */
export const SECTIONS = Object.keys(BundleSchema.properties) as SectionName[];
