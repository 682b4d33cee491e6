import { Type } from '@sinclair/typebox';
import { CreatedAt, FileObject, Nullable, UpdatedAt } from './projects.js';
import { DateTime } from './reference.js';
import { fieldsParameter } from '../field-selection.js';
import { fieldSelectable } from './field-selected.js';
import { DisplayCurrencyParam } from './currencies.js';

/*
 * GET /units/{id}: the data model as it is. The unit and its project are snake_case, except the
 * project's CreatedAt/UpdatedAt; the project's company and author are PascalCase. Like every response
 * object, they are open in the document (new fields may appear); the serializer still sends exactly
 * the declared keys.
 */

const str = (description: string) => Nullable(Type.String(), description);

export const CompanyModel = Type.Object(
  {
    ID: Type.Integer({ description: 'Company id.' }),
    CompanyType: Type.Integer({ description: '2 = agency, 3 = developer.' }),
    CompanyName: Type.String({ description: 'Trading name.' }),
    LegalName: str('Legal name.'),
    TradeLicenseCode: str('Trade licence number.'),
    ReraLicenseCode: str('RERA licence number.'),
    PreferredContactEmail: str('Preferred contact e-mail.'),
    PreferredContactPhone: str('Preferred contact phone.'),
    OfficeAddress: str('Office address.'),
    POBoxNumber: str('P.O. box.'),
    LogoFileID: Nullable(Type.Integer(), 'Id of the logo file.'),
    LogoFile: Nullable(FileObject, 'The logo file; null when none.'),
    OrganisationDescription: str('Description of the company.'),
    Specialisation: Nullable(Type.Integer(), 'Specialisation code of the agency platform.'),
    ProjectPortfolioURL: str('Link to the project portfolio.'),
    TradeLicenseDocumentVerified: Type.Boolean({ description: 'The trade licence document was verified.' }),
    ReraCertificateVerified: Type.Boolean({ description: 'The RERA certificate was verified.' }),
    IdentificationDocumentVerified: Type.Boolean({ description: 'The identification document was verified.' }),
    Status: Type.Integer({ description: 'Company status of the agency platform.' }),
    CreatedAt: CreatedAt,
    UpdatedAt: UpdatedAt,
  },
  { description: 'The developer company (PascalCase keys, as in the data model).' },
);

export const UserModel = Type.Object(
  {
    ID: Type.Integer({ description: 'User id.' }),
    Name: Type.String({ description: 'Full name.' }),
    Email: Type.String({ description: 'E-mail address.' }),
    Status: Type.Integer({ description: 'User status of the agency platform.' }),
    Type: Type.Integer({ minimum: 0, maximum: 3, description: 'User type, 0 to 3.' }),
    CreatedAt: CreatedAt,
    UpdatedAt: UpdatedAt,
    DeletedAt: Nullable(DateTime, 'When the user was deleted; null while active.'),
  },
  { description: 'A user (PascalCase keys, as in the data model).' },
);

const AreaModel = Type.Object(
  {
    id: Type.Integer({ description: 'Area id.' }),
    name: Type.String({ description: 'Area name.' }),
    city: Type.String({ description: 'City.' }),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'The project\u2019s area.' },
);

export const UnitProjectModel = Type.Object(
  {
    id: Type.Integer({ description: 'Project id.' }),
    company_id: Type.Integer({ description: 'Developer company id.' }),
    author_id: Nullable(Type.Integer(), 'Id of the user who created the project; null when unknown.'),
    area_id: Nullable(Type.Integer(), 'Area id; null when no area is set.'),
    company: CompanyModel,
    author: Nullable(UserModel, 'The user who created the project; null when the project has no author.'),
    area: Nullable(AreaModel, 'The area; null when no area is set.'),
    name: Type.String({ description: 'Project name.' }),
    description: Type.String({ description: 'Description (may be empty).' }),
    developer_registration_id: Type.String({ description: 'Developer registration number (may be empty).' }),
    trakheesi_project_id: Type.String({ description: 'Trakheesi permit id (may be empty).' }),
    escrow_account: Type.String({ description: 'Escrow account (empty when none).' }),
    oqood_registration: Type.String({ description: 'Oqood registration (may be empty).' }),
    type: Type.Integer({ description: 'Project (property) type.' }),
    status: Type.Integer({ description: 'Free-form status of the agency platform.' }),
    development_status: Type.Integer({ minimum: 0, maximum: 3, description: 'Development status, 0 to 3.' }),
    readiness_progress: Type.Integer({ description: 'Construction progress, percent.' }),
    total_floors: Type.Integer({ description: 'Number of floors.' }),
    launch_date: Nullable(DateTime, 'Launch date.'),
    launch_time: str('Launch time as given by the developer (free text).'),
    resale_conditions: str('Resale conditions (free text).'),
    floors_formula: str('Floors formula, e.g. `G+P+20`.'),
    is_draft: Type.Boolean({ description: 'Always false: drafts are not visible.' }),
    is_branded: Type.Boolean({ description: 'Branded residence.' }),
    service_charge: Nullable(Type.Number(), 'Annual service charge per ft² as given by the developer (not affected by the key\u2019s price vector); null when unknown.'),
    floor_plan_file_id: Nullable(Type.Integer(), 'Id of the floor plan file.'),
    brochure_file_id: Nullable(Type.Integer(), 'Id of the brochure file.'),
    general_plan_file_id: Nullable(Type.Integer(), 'Id of the general plan file.'),
    floor_plan_file: Nullable(FileObject, 'Floor plan; null when none.'),
    brochure_file: Nullable(FileObject, 'Brochure; null when none.'),
    general_plan_file: Nullable(FileObject, 'General plan; null when none.'),
    CreatedAt: CreatedAt,
    UpdatedAt: UpdatedAt,
  },
  { description: 'The unit\u2019s project (snake_case keys except CreatedAt and UpdatedAt, as in the data model).' },
);

export const UnitTag = Type.Object(
  {
    id: Type.Integer({ description: 'Unit tag id.' }),
    name: Type.String({ description: 'Unit tag name.' }),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'The unit tag.' },
);

const UnitTagLink = Type.Object(
  {
    id: Type.Integer({ description: 'Id of the link between the unit and the tag.' }),
    unit_id: Type.Integer({ description: 'The unit.' }),
    preference_id: Type.Integer({ description: 'The unit tag (GET /preferences).' }),
    preference: UnitTag,
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'A tag carried by the unit.' },
);

export const UnitModel = Type.Object(
  {
    id: Type.Integer({ description: 'Unit id.' }),
    project_id: Type.Integer({ description: 'Project id.' }),
    unit_number: Type.String({ description: 'Unit number as given by the developer.' }),
    bedrooms: Type.Integer({ description: 'Bedrooms; 0 = studio.' }),
    status: Type.Integer({ minimum: 1, maximum: 5, description: '1 announced, 2 EOI, 3 start of sales, 4 on sale, 5 out of stock.' }),
    furnishing: Type.Integer({ minimum: 1, maximum: 4, description: '1 unfurnished, 2 partially furnished, 3 fully furnished, 4 premium.' }),
    parking: Type.Integer({ description: 'Parking spaces.' }),
    floor: Type.Integer({ description: 'Floor.' }),
    price: Nullable(Type.Number({ format: 'double' }), 'Price in the key\u2019s prices (base price \u00d7 price factor, rounded to 2 decimals); null when the unit has no price.'),
    currency: Type.Optional(
      Type.String({ description: 'Only with `currency=` (an addition): the currency of `price`, the one asked for (or the project\u2019s own when it has no rate).' }),
    ),
    unit_area: Type.Number({ format: 'double', description: 'Area, m².' }),
    plan_file_id: Nullable(Type.Integer(), 'Id of the unit plan file.'),
    plan_file: Nullable(FileObject, 'The unit plan; null when none.'),
    preferences: Type.Array(UnitTagLink, { description: 'The unit\u2019s tags, by link id.' }),
    project: UnitProjectModel,
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'A unit with its project, developer, area, plan and tags.' },
);

/** The unit whole, or with `fields` only the properties named (field-selected.ts). */
export const UnitModelSchemas = fieldSelectable(UnitModel, 'UnitDetail');

/** The query of GET /units/{id}: `fields` (an addition); without it the full, specified answer. */
export const UnitQuery = Type.Object(
  { fields: fieldsParameter(UnitModel, 'id,unit_number,price,plan_file'), currency: DisplayCurrencyParam },
  { additionalProperties: false },
);
