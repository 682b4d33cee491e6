import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CURRENCIES, DEFAULT_LANGUAGE, OPPORTUNITY_NAME_MAX, type ApplicationRequest, type Currency } from '../../domain/application-merge.js';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_HOURS } from '../../domain/idempotency.js';
import { INT32_MAX as Int32 } from '../../domain/record-ids.js';
import { ProjectFeature, Timestamp } from './reference.js';

/*
 * Request and response of POST /units/{id}/applications. Bodies are not type-coerced and unknown
 * fields are rejected (validation.ts). Rules with a message of their own sit in an `allOf` next to the
 * length limits, so that `x-error-message` replaces the wording of that rule only.
 */

export const APPLICATION_BODY_LIMIT = 64 * 1024;
export const PREFERENCES_MAX_ITEMS = 100;

const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

const text = (maxLength: number, description: string) => Type.Optional(Nullable(Type.String({ maxLength }), description));

function rule(pattern: string, message: string) {
  return { pattern, 'x-error-message': message };
}

const Handle = Type.Optional(
  Nullable(
    Type.String({
      maxLength: 100,
      allOf: [rule('^@?[A-Za-z0-9._-]+$', 'must be a handle (letters, digits, `.`, `_`, `-`, optionally after `@`), not a URL')],
    }),
    'Handle only, no URL (e.g. `jane.doe` or `@jane.doe`); at most 100 characters.',
  ),
);

export const ApplicationClient = Type.Object(
  {
    first_name: Type.String({
      maxLength: 255,
      allOf: [rule('\\S', 'must not be blank')],
      description: 'Required, at most 255 characters, not blank. Surrounding whitespace is removed.',
    }),
    last_name: text(255, 'At most 255 characters. Surrounding whitespace is removed; blank means null.'),
    email: Type.Optional(
      Nullable(
        Type.String({ maxLength: 255, allOf: [rule('@', 'must contain @')] }),
        'At most 255 characters, must contain `@`; stored trimmed and lower-cased. At least one of `email` and `mobile_number` is required.',
      ),
    ),
    mobile_number: Type.Optional(
      Nullable(
        Type.String({ maxLength: 50, allOf: [rule('[0-9]', 'must contain at least one digit')] }),
        'At most 50 characters, including the country code; stored as given. Only its digits are compared when matching existing clients (`+971 50 123 4567` matches `971501234567`).',
      ),
    ),
    landline_number: text(50, 'At most 50 characters.'),
    address_line1: text(255, 'At most 255 characters.'),
    address_line2: text(255, 'At most 255 characters.'),
    city: text(255, 'At most 255 characters.'),
    country: text(255, 'At most 255 characters.'),
    postcode: text(50, 'At most 50 characters.'),
    social_links: Type.Optional(
      Type.Object(
        { instagram: Handle, tiktok: Handle, facebook: Handle, x: Handle },
        { additionalProperties: false, description: 'Social network handles (no URLs).' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The end client. An existing client of the agency with the same email (case-insensitive) or the same mobile digits is reused unchanged; otherwise a new client is created.',
  },
);

const idList = (description: string) =>
  Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: Int32 }), {
      maxItems: PREFERENCES_MAX_ITEMS,
      description: `${description} At most ${PREFERENCES_MAX_ITEMS} items; duplicates are ignored.`,
    }),
  );

const Budget = (description: string) => Type.Optional(Nullable(Type.Number({ minimum: 0 }), description));

export const ApplicationPreferences = Type.Object(
  {
    based_on_unit: Type.Optional(
      Type.Boolean({
        description:
          'Derive interests from the unit: the project\u2019s type and area, the unit\u2019s tags, the project\u2019s features and amenities, and the unit price (in the key\u2019s prices) for missing budget bounds. Added after the explicit values.',
      }),
    ),
    property_types: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: Int32 }), {
        maxItems: PREFERENCES_MAX_ITEMS,
        description: `Project \`type\` values; stored on a new client. At most ${PREFERENCES_MAX_ITEMS} items.`,
      }),
    ),
    preferred_area_ids: idList('Area ids (GET /areas); stored on a new client. An unknown id gives 400.'),
    property_features: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        maxItems: PREFERENCES_MAX_ITEMS,
        description: `Free-text tags for a new client\u2019s profile, at most 255 characters each and ${PREFERENCES_MAX_ITEMS} items; trimmed, empty ones dropped, de-duplicated case-insensitively (first spelling kept).`,
      }),
    ),
    preference_ids: idList('Unit tag ids (GET /preferences), linked to the opportunity. An unknown id gives 400.'),
    project_preference_ids: idList('Project feature and amenity ids (GET /project-preferences) in one list, linked to the opportunity. An unknown id gives 400.'),
    investment_type: Type.Optional(Nullable(Type.Integer({ minimum: -Int32 - 1, maximum: Int32 }), 'Free-form integer.')),
    min_budget: Budget('Lower budget bound, not negative, in `currency`. Greater than `max_budget` gives 400.'),
    max_budget: Budget('Upper budget bound, not negative, in `currency`.'),
  },
  { additionalProperties: false, description: 'The client\u2019s interests: listed explicitly, derived with `based_on_unit`, or both.' },
);

export const ApplicationBody = Type.Object(
  {
    client: ApplicationClient,
    preferences: Type.Optional(ApplicationPreferences),
    message: text(5000, 'At most 5000 characters; stored in the opportunity notes (client notes are unchanged).'),
    language: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: 10, allOf: [rule('^[A-Za-z0-9_-]+$', 'must be a language code such as en or en-GB')] }),
        `Offer language, at most 10 characters (letters, digits, \`-\`, \`_\`), stored lower-cased; default \`${DEFAULT_LANGUAGE}\`.`,
      ),
    ),
    currency: Type.Optional(
      Nullable(
        Type.Unsafe<Currency>({ type: 'string', enum: [...CURRENCIES], 'x-error-message': 'must be AED or USD' }),
        'Currency of the offer and of the opportunity budget: `AED` or `USD` (upper-case). Default: the project currency when it is AED or USD, otherwise AED. When it differs from the project currency and both have a rate (GET /currencies), the offer price and the budget bounds derived from the unit are converted; otherwise they are not, and `offer.price_conversion.converted` says so.',
      ),
    ),
  },
  { additionalProperties: false },
);
export type ApplicationBody = Static<typeof ApplicationBody>;

/*
 * The rules of the body (prepareApplication) are pure and sit in the domain, which does not see the
 * contract, so they declare their input as ApplicationRequest. This line does not compile unless that
 * type is exactly the schema's: the shape has one definition, the schema, and the domain's is checked.
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const bodyIsTheDomainsRequest: Same<ApplicationBody, ApplicationRequest> = true;

export const ApplicationHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      'x-error-message': 'must be 1 to 255 visible ASCII characters (no spaces)',
      description:
        `Optional. 1 to 255 visible ASCII characters, unique per attempt (e.g. a UUID). Repeating the key (per API key) with the same body within ${IDEMPOTENCY_TTL_HOURS} hours returns the first response again (same status and body) and writes nothing; with a different body, or the same key on another unit, it answers 409. A duplicate sent while the first is still running waits for it (up to a few seconds, then 409). Only successful responses are remembered. Without this header each call creates a new opportunity and offer.`,
    }),
  ),
});

// ---------------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------------

const NullableNumber = (description: string) => Nullable(Type.Number(), description);

export const ApplicationResult = Type.Object({
  client: Type.Object(
    {
      id: Type.Integer({ description: 'Client id in the agency CRM.' }),
      first_name: Type.String({ description: 'First name, trimmed.' }),
      last_name: Nullable(Type.String(), 'Null when not known.'),
      email: Nullable(Type.String(), 'Lower-cased.'),
      mobile_number: Nullable(Type.String(), 'As given, including the country code.'),
      property_types: Type.Array(Type.Integer(), { description: 'Project `type` values stored on the client.' }),
      preferred_area_ids: Type.Array(Type.Integer(), { description: 'Area ids stored on the client.' }),
      property_features: Type.Array(Type.String(), { description: 'Free-text tags stored on the client.' }),
      created: Type.Boolean({
        description:
          'False when an existing client was reused: its fields are unchanged and the arrays show what is stored, not what this application derived.',
      }),
      created_at: Timestamp('When the client was created (for a reused client: originally).'),
    },
    { description: 'The client the application was recorded for.' },
  ),
  opportunity: Type.Object(
    {
      id: Type.Integer({ description: 'Opportunity id in the agency CRM.' }),
      name: Type.String({ maxLength: OPPORTUNITY_NAME_MAX, description: '`<client> \u2014 <project>, unit <number>` (client = first and last name), cut to 255 characters.' }),
      stage: Type.Object(
        { id: Type.Integer({ description: 'Stage id.' }), name: Type.String({ description: 'Stage name.' }), position: Type.Integer({ description: 'Column order on the board.' }) },
        { description: 'The first stage (lowest position) of the agency\u2019s board.' },
      ),
      investment_type: Nullable(Type.Integer(), 'Free-form.'),
      currency: Type.String({ description: '`AED` or `USD`.' }),
      min_budget: NullableNumber('Lower budget bound, null when none.'),
      max_budget: NullableNumber('Upper budget bound, null when none.'),
      position: Type.Integer({ description: 'Position of the card in its column: the end of the column (0 in an empty one).' }),
      preferences: Type.Array(Type.Object({ id: Type.Integer({ description: 'Unit tag id.' }), name: Type.String({ description: 'Unit tag name.' }) }, { description: 'A linked unit tag.' }), {
        description: 'Linked unit tags: the explicit ones first, then those derived from the unit.',
      }),
      project_preferences: Type.Object(
        {
          features: Type.Array(ProjectFeature, { description: 'Linked features (type 1).' }),
          amenities: Type.Array(ProjectFeature, { description: 'Linked amenities (type 2).' }),
        },
        { description: 'Linked project features and amenities: the explicit ones first, then those derived from the unit.' },
      ),
      created_at: Timestamp('When the opportunity was created.'),
    },
    { description: 'The new opportunity (the client\u2019s interests), placed at the end of its stage column.' },
  ),
  offer: Type.Object(
    {
      id: Type.Integer({ description: 'Offer id in the agency CRM.' }),
      uuid: Type.String({ format: 'uuid', description: 'Public identifier for the client-facing link.' }),
      offer_status: Type.Object(
        { id: Type.Integer({ description: 'Offer status id.' }), name: Type.String({ description: 'Offer status name.' }) },
        { description: 'The first offer status (lowest id), a draft.' },
      ),
      unit: Type.Object(
        {
          id: Type.Integer({ description: 'Unit id.' }),
          unit_number: Type.String({ description: 'Unit number as given by the developer.' }),
          project_id: Type.Integer({ description: 'Project id.' }),
          project_name: Type.String({ description: 'Project name.' }),
        },
        { description: 'The unit the offer is for.' },
      ),
      price: NullableNumber('Unit price in the key\u2019s prices, in the offer currency (see `price_conversion`); null when the unit has no price.'),
      language: Type.String({ description: 'Lower-cased.' }),
      currency: Type.String({ description: '`AED` or `USD`.' }),
      measure_units: Type.Integer({ description: '1 = ft² (always 1 for offers created here).' }),
      advisor_name: Type.String({ description: 'The user who issued the API key.' }),
      advisor_email: Nullable(Type.String(), 'The key author\u2019s email.'),
      advisor_phone: Nullable(Type.String(), 'The key author\u2019s contact phone in the agency, null when none.'),
      is_sent: Type.Boolean({ description: 'Always false: the offer is a draft; the PDF is generated and sent by the main backend.' }),
      created_at: Timestamp('When the offer was created.'),
      price_conversion: Type.Union(
        [
          Type.Object(
            {
              unit_currency: Type.String({ description: 'The unit\u2019s (its project\u2019s) currency.' }),
              unit_price: NullableNumber('The unit price in the key\u2019s prices, in the unit\u2019s currency.'),
              converted: Type.Boolean({
                description: 'True: `price` is `unit_price` converted at `rate`. False: no rate for one of the currencies, so `price` is `unit_price` unconverted, as the specification has it.',
              }),
              rate: NullableNumber('Offer currency per unit of the unit\u2019s currency (12 significant digits; the price is computed from the exact AED rates of GET /currencies); null when not converted.'),
              rate_as_of: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the rate was taken (the older of the two when neither currency is AED); null when not converted.' }),
            },
            { description: 'What was converted.' },
          ),
          Type.Null(),
        ],
        {
          description:
            'An addition to the specification: null when the offer is in the unit\u2019s own currency (nothing converted); otherwise how the unit\u2019s price became the offer price. Stored with the offer.',
        },
      ),
    },
    { description: 'The new draft offer for the unit, linked to the opportunity.' },
  ),
});
export type ApplicationResult = Static<typeof ApplicationResult>;

/*
 * The answer to a key with `private_applications` (issue 20): a key in a web page answers whoever types
 * a phone number, so the answer must not tell them whether the contact is the agency's client, nor show
 * what is stored about it. It is built only from what the request sent and what the unit derived, the
 * same fields of the same objects as the specified answer, less every field read from or given by the
 * CRM: ids, `created`, timestamps, the stage, the card's position, the offer's uuid and status, the advisor.
 */
const stored = ApplicationResult.properties;
const PRIVATE_NOTE = 'Private applications: only what the request sent and what the unit derived; the same for a new and a known contact.';

export const PrivateApplicationResult = Type.Object(
  {
    client: Type.Object(
      {
        first_name: stored.client.properties.first_name,
        last_name: stored.client.properties.last_name,
        email: stored.client.properties.email,
        mobile_number: stored.client.properties.mobile_number,
        property_types: Type.Array(Type.Integer(), { description: 'Project `type` values this application sent and derived (not what is stored on a known client).' }),
        preferred_area_ids: Type.Array(Type.Integer(), { description: 'Area ids this application sent and derived (not what is stored on a known client).' }),
        property_features: Type.Array(Type.String(), { description: 'Free-text tags this application sent (not what is stored on a known client).' }),
      },
      { description: `The client as the request gave it (trimmed, e-mail lower-cased), never the stored record. ${PRIVATE_NOTE}` },
    ),
    opportunity: Type.Pick(stored.opportunity, ['name', 'investment_type', 'currency', 'min_budget', 'max_budget', 'preferences', 'project_preferences'], {
      description: `The interests recorded; \`name\` is made from the names the request sent. ${PRIVATE_NOTE}`,
    }),
    offer: Type.Pick(stored.offer, ['unit', 'price', 'language', 'currency', 'measure_units', 'is_sent'], { description: `The draft offer's terms. ${PRIVATE_NOTE}` }),
  },
  { title: 'Private application result', description: 'The answer to a key with private applications (`keys create --private-applications`).' },
);
export type PrivateApplicationResult = Static<typeof PrivateApplicationResult>;

/** What the 201 carries: the specified answer, or the private one for a key with that setting. */
export const ApplicationResponse = Type.Union([ApplicationResult, PrivateApplicationResult]);
export type ApplicationResponse = Static<typeof ApplicationResponse>;
