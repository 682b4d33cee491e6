import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DisplayCurrencyParam } from './currencies.js';
import { EARTH_RADIUS_M } from '../../domain/geo.js';
import { INT32_MAX as Int32 } from '../../domain/record-ids.js';
import { DEFAULT_LIMIT, FACET_NAMES, MAX_LIMIT, MAX_OFFSET, MAX_POLYGON_VERTICES, SORT_VALUES } from '../../domain/project-filters.js';
import { FACILITY_CATEGORIES, type FacilityCategory } from '../../domain/catalogue-codes.js';
import { CreatedAt, DateTime, FeatureType, Link, UpdatedAt } from './reference.js';
import { fieldsParameter } from '../field-selection.js';
import { fieldSelectable } from './field-selected.js';
import { MAX_NEARBY_LIMIT, NEARBY_FORMS, SUMMARY_FACILITY_FIELDS } from '../nearby-facilities.js';

export { CreatedAt, Timestamp, UpdatedAt } from './reference.js';

export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

const ProjectFeature = Type.Object(
  {
    id: Type.Integer({ description: 'Feature/amenity id (GET /project-preferences; usable in `preference_ids`).' }),
    name: Type.String({ description: 'Feature/amenity name.' }),
    type: FeatureType,
  },
  { description: 'A project feature (type 1) or amenity (type 2).' },
);

// ---------------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------------

export const FileObject = Type.Object(
  {
    id: Type.Integer({ description: 'File id.' }),
    original_name: Nullable(Type.String(), 'Name of the file when it was uploaded.'),
    storage_name: Nullable(Type.String(), 'Name of the file in storage.'),
    mime_type: Nullable(Type.String(), 'MIME type, e.g. `image/jpeg`.'),
    path: Type.String({ description: 'Relative storage path.' }),
    url: Type.String({ description: 'Ready-to-use link: STATIC_BASE_URL + `/` + path (the path alone when no base is configured). Fetched without a key.' }),
    size: Nullable(Type.Integer({ format: 'int64' }), 'Size in bytes (64-bit).'),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'A stored file, given as a link (the service does not serve files).' },
);
export type FileObject = Static<typeof FileObject>;

export const PaymentPlan = Type.Object(
  {
    type: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
      description: '1 = down payment, 2 = during construction, 3 = on completion (due at or after handover).',
    }),
    percent: Type.Number({ description: 'Share of the price, percent (0 to 100).' }),
  },
  { description: 'One part of the payment plan; parts are listed in plan order.' },
);

export const ProjectPreferences = Type.Object(
  {
    features: Type.Array(ProjectFeature, { description: 'Features (type 1) selected by the developer, sorted by name.' }),
    amenities: Type.Array(ProjectFeature, { description: 'Amenities (type 2) selected by the developer, sorted by name.' }),
  },
  { description: 'The project\u2019s own features and amenities (see GET /project-preferences).' },
);

const CompanyRef = Type.Object(
  {
    id: Type.Integer({ description: 'Developer company id (usable in `developer_ids`).' }),
    name: Type.String({ description: 'Developer company name.' }),
    logo: Link,
  },
  { description: 'The developer that owns the project.' },
);

const DevelopmentStatus = Type.Integer({ minimum: 0, maximum: 3, description: 'Development status, 0 to 3 (meaning defined by the agency platform).' });
const PriceFrom = Nullable(Type.Number(), 'Lowest price among the project\u2019s units, in the key\u2019s prices; null when no unit has a price.');
const SizeFrom = Nullable(Type.Number(), 'Smallest unit area among the project\u2019s units, m²; null when the project has no units.');
const ProjectLogo = Nullable(Type.String(), 'Link to the project\u2019s first image; null when it has none.');
const HandoverDate = Nullable(DateTime, 'Planned (or actual) handover date.');

// ---------------------------------------------------------------------------------------------------
// GET /projects
// ---------------------------------------------------------------------------------------------------

const csv = (description: string) => Type.String({ description: `${description} Comma-separated, any number of items.` });
const amount = (description: string) => Type.Number({ minimum: 0, description });
const flag = (description: string) => Type.Boolean({ description: `${description} \`true\` or \`false\`.` });
const near = (category: string) =>
  Type.Boolean({
    description:
      `\`true\`: only projects with a linked ${category} facility closer than the server\u2019s AMENITIEST_RADIUS (any linked one, i.e. within ` +
      'the import link radius, when it is not set). `false` sets no constraint (it does not mean "far from").',
  });

export const ProjectsQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive substring of the project name or of its developer\u2019s name (`%` and `_` are literal); leading and trailing white space is ignored. Blank: no filter.' }),
    ),
    developer_ids: Type.Optional(csv('Developer company ids (GET /companies); the project belongs to one of them.')),
    unit_types: Type.Optional(csv('Project `type` values (positive integers); the project has one of them.')),
    development_status: Type.Optional(csv('Project development statuses, 1 to 3; the project has one of them.')),
    bedrooms: Type.Optional(csv('Unit bedrooms, 0 to 5: 0 = studio, 5 = five or more. Unit-level: some unit of the project has one of these.')),
    statuses: Type.Optional(csv('Unit statuses, 1 to 5 (1 announced, 2 EOI, 3 start of sales, 4 on sale, 5 out of stock). Unit-level.')),
    price_min: Type.Optional(amount('Minimum unit price, in the key\u2019s prices, compared with exactly the price shown (inclusive). Unit-level; units without a price never match.')),
    price_max: Type.Optional(amount('Maximum unit price, in the key\u2019s prices, compared with exactly the price shown (inclusive). Unit-level; units without a price never match, however large the bound.')),
    price_per_ft2_min: Type.Optional(amount('Minimum unit price (key\u2019s prices) divided by its area in ft² (1 m² = 10.7639104 ft²), inclusive. Unit-level; units without price or area never match.')),
    price_per_ft2_max: Type.Optional(amount('Maximum price per ft² (key\u2019s prices), inclusive. Unit-level.')),
    price_per_m2_min: Type.Optional(amount('Minimum unit price (key\u2019s prices) divided by its area in m², inclusive. Unit-level; units without price or area never match.')),
    price_per_m2_max: Type.Optional(amount('Maximum price per m² (key\u2019s prices), inclusive. Unit-level.')),
    size_min: Type.Optional(amount('Minimum unit area, m², inclusive. Unit-level.')),
    size_max: Type.Optional(amount('Maximum unit area, m², inclusive. Unit-level.')),
    parking_min: Type.Optional(Type.Integer({ minimum: 0, maximum: Int32, description: 'Minimum number of parking spaces of the unit. Unit-level.' })),
    is_branded: Type.Optional(flag('Branded projects only (`true`) or unbranded only (`false`).')),
    is_resale: Type.Optional(flag('Resale projects only (`true`) or non-resale only (`false`).')),
    is_escrow: Type.Optional(flag('Projects with an escrow account (`true`) or without one (`false`).')),
    handover_from: Type.Optional(
      Type.String({ maxLength: 64, description: 'Handover on or after this bound: RFC 3339 date-time, or YYYY-MM-DD meaning 00:00 UTC that day. Projects without a handover date never match.' }),
    ),
    handover_to: Type.Optional(
      Type.String({ maxLength: 64, description: 'Handover on or before this bound: RFC 3339 date-time (inclusive), or YYYY-MM-DD meaning the whole of that day (UTC). Projects without a handover date never match.' }),
    ),
    payment_max_pre_handover: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description:
          'Maximum percent due before handover: the sum of the percents of the payment-plan parts of type 1 (down payment) and 2 (during construction) is at most this value. Projects without a payment plan never match.',
      }),
    ),
    payment_min_after_handover: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: 'Minimum percent due after handover: the sum of the percents of the payment-plan parts of type 3 (on completion) is at least this value. Projects without a payment plan never match.',
      }),
    ),
    payment_only_post_handover: Type.Optional(
      flag('`true`: only projects whose payment plan has a part of type 3 (on completion) with a percent above 0. `false` sets no constraint.'),
    ),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90, description: 'Latitude of the search centre, degrees. `lat`, `lng` and `radius_km` must be given together.' })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180, description: 'Longitude of the search centre, degrees. `lat`, `lng` and `radius_km` must be given together.' })),
    radius_km: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: `Search radius, km: great-circle (haversine, Earth radius ${EARTH_RADIUS_M} m) distance from the centre to the project\u2019s coordinates, inclusive. Projects without coordinates never match.`,
      }),
    ),
    bbox: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Viewport: `west,south,east,north` in degrees (GeoJSON order: longitudes and latitudes of the south-west and north-east corners). ' +
          'Only projects whose coordinates lie in the box, its edges and corners included. west <= east and south <= north: a box ' +
          'across the antimeridian is not supported. Projects without coordinates never match. Combines with every other filter ' +
          '(including `lat`/`lng`/`radius_km` and `polygon`) by AND.',
      }),
    ),
    polygon: Type.Optional(
      Type.String({
        description:
          'A drawn area: a ring\'s vertices as `lng,lat,lng,lat,...` in degrees (GeoJSON order), at least 3, in either direction; ' +
          'closing the ring (repeating the first vertex last) is optional. `;` starts a hole in the current polygon and `|` starts ' +
          'another polygon: `outer;hole;hole|outer` is a GeoJSON MultiPolygon in one line. At most ' +
          `${MAX_POLYGON_VERTICES} vertices in all rings together. Edges are ` +
          'straight lines between vertices in longitude/latitude (as drawn on a web map), not great circles. Only projects whose ' +
          'coordinates lie inside an outer ring (even-odd rule) or exactly on its edge or vertex, and not strictly inside one of ' +
          'its holes (a hole\'s edge belongs to the area, as every boundary does); polygons may overlap (their union counts) and ' +
          'a hole outside its outer ring removes nothing. Each ring must be simple (no edge crossing or touching another) with a ' +
          'non-zero area, else 400 naming the ring (`polygon 2, hole 1: ...`). Note that the whole ' +
          'request line is limited (16 KiB by default), some 700 vertices with 6 decimals. Combines with every other filter by AND.',
      }),
    ),
    near_airport: Type.Optional(near('airports and ports')),
    near_education: Type.Optional(near('education')),
    near_employment: Type.Optional(near('employment')),
    near_healthcare: Type.Optional(near('healthcare')),
    near_lifestyle: Type.Optional(near('lifestyle')),
    near_retail: Type.Optional(near('retail')),
    near_transport: Type.Optional(near('transport')),
    near_tourism: Type.Optional(near('tourism')),
    preference_ids: Type.Optional(csv('Project feature/amenity ids (GET /project-preferences); the project must have all of them.')),
    unit_preference_ids: Type.Optional(
      csv('Unit tag ids (GET /preferences): one single unit of the project must carry all of them and also satisfy every other unit-level filter.'),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, default: DEFAULT_LIMIT, description: `Page size, default ${DEFAULT_LIMIT}, at least 1; values above ${MAX_LIMIT} are capped at ${MAX_LIMIT}.` }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OFFSET,
        default: 0,
        description: `Number of projects skipped, default 0, at most ${MAX_OFFSET} (2^53\u22121). Past the last match the page is empty and \`total\` is still the number of matches.`,
      }),
    ),
    currency: DisplayCurrencyParam,
    sort: Type.Optional(
      Type.Union(
        SORT_VALUES.map((value) => Type.Literal(value)),
        {
          description:
            'Order of the items, default `name`. `name`, `price_from` (lowest unit price by its value in AED at the catalogue\u2019s rates, so a mixed catalogue is compared by value; the order is the same for every price vector and every `currency`; a project whose currency has no rate counts as having no price), ' +
            '`size_from` (smallest unit area), `handover_date`, `newest` (creation time, newest first) and `distance` (from `lat`/`lng`; ' +
            'only with them) ascend; a leading `-` descends (`-newest` is oldest first). Projects without a value (no priced unit, no unit, ' +
            'no handover date) come last in both directions; ties are broken by id, ascending.',
          'x-error-message': `must be one of: ${SORT_VALUES.join(', ')}`,
        },
      ),
    ),
    match: Type.Optional(
      Type.Boolean({
        description:
          '`true` (an addition): each item also carries `match`, what matched inside the project: the number of its units that satisfy ' +
          'every unit-level filter of the request (`bedrooms`, `statuses`, `price_*`, `price_per_ft2_*`, `price_per_m2_*`, `size_*`, ' +
          '`parking_min`, `unit_preference_ids`), their lowest price and their smallest area, so a card can read "2-bed from AED 1,103,560 · ' +
          '4 units" where `price_from` is the lowest price of all units. Without unit-level filters it holds the project\u2019s own figures. ' +
          'On GET /projects/clusters each cluster gets it over its projects. `false` or absent: no `match` (the answer as without it).',
      }),
    ),
    facets: Type.Optional(
      Type.String({
        description:
          `Comma-separated facet names (${FACET_NAMES.map((name) => `\`${name}\``).join(', ')}). When given, \`facets\` in the response holds, ` +
          'per facet, the number of matching projects per value, each facet counted under every filter except its own (as if its own ' +
          'filter asked for that value alone). Not given: no `facets` in the response.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProjectsQuery = Static<typeof ProjectsQuery>;

/** `match=true`: what matched inside a project (src/search/what-matched.ts computes it, the SQL reference too). */
export const ProjectMatch = Type.Object(
  {
    units: Type.Integer({
      minimum: 0,
      description:
        'The project\u2019s units that satisfy every unit-level filter of the request (one and the same unit satisfying all of them, as for the ' +
        'search itself); without unit-level filters, all its units. At least 1 when the request has unit-level filters (the project matched ' +
        'through them); 0 only for a project without units.',
    }),
    price_from: Nullable(
      Type.Number(),
      'The lowest price among those units, shown exactly as the item\u2019s `price_from` is (the key\u2019s prices; with `currency=`, that currency ' +
        'unless the project\u2019s has no rate), in the item\u2019s `currency`; null when none of them has a price (e.g. every matching 2-bedroom unit ' +
        'is "price on request"). Without unit-level filters, the item\u2019s `price_from`.',
    ),
    size_from: Nullable(
      Type.Number(),
      'The smallest unit area among those units, m²; null when there are none. Without unit-level filters, the item\u2019s `size_from`.',
    ),
  },
  {
    description:
      'Only with `match=true`: the units of the project that satisfy the request\u2019s unit-level filters, e.g. for `bedrooms=2`, its 2-bedroom units: ' +
      'how many, from which price and from which size.',
    examples: [{ units: 4, price_from: 1103560, size_from: 74.5 }],
  },
);
export type ProjectMatch = Static<typeof ProjectMatch>;

export const ProjectListItem = Type.Object(
  {
    id: Type.Integer({ description: 'Project id.' }),
    name: Type.String({ description: 'Project name.' }),
    status: Type.Integer({ description: 'Free-form status of the agency platform; no defined meaning.' }),
    development_status: DevelopmentStatus,
    is_branded: Type.Boolean({ description: 'Branded residence.' }),
    is_resale: Type.Boolean({ description: 'Resale (secondary market) project.' }),
    is_escrow: Type.Boolean({ description: 'The project has an escrow account.' }),
    handover_date: HandoverDate,
    price_from: PriceFrom,
    size_from: SizeFrom,
    currency: Type.String({ description: 'Currency of the prices shown, e.g. `AED`: the project\u2019s own, or with `currency=` the one asked for (unless the project\u2019s currency has no rate).' }),
    logo: ProjectLogo,
    company: CompanyRef,
    payment_plans: Type.Array(PaymentPlan, { description: 'The payment plan, in plan order; empty when none.' }),
    preferences: ProjectPreferences,
    match: Type.Optional(ProjectMatch),
  },
  { description: 'A project in the paginated list.' },
);
export type ProjectListItem = Static<typeof ProjectListItem>;

/** The query of GET /projects: the filters, and `fields` to keep only some properties of each item. */
export const ListProjectsQuery = Type.Object(
  { ...ProjectsQuery.properties, fields: fieldsParameter(ProjectListItem, 'id,name,logo,price_from') },
  { additionalProperties: false },
);

/** A GeoJSON position: [longitude, latitude], an altitude if any ignored. */
const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 3 });
const Ring = Type.Array(Position, { minItems: 3 });

export const GeoJsonPolygon = Type.Object(
  {
    type: Type.Literal('Polygon', { description: 'Always `Polygon`.' }),
    coordinates: Type.Array(Ring, { minItems: 1, description: 'The outer ring, then any holes; each ring a list of positions `[lng, lat]`, closed or not.' }),
  },
  { additionalProperties: true, description: 'A GeoJSON Polygon (RFC 7946 \u00a73.1.6); other members such as `bbox` are ignored.' },
);
export const GeoJsonMultiPolygon = Type.Object(
  {
    type: Type.Literal('MultiPolygon', { description: 'Always `MultiPolygon`.' }),
    coordinates: Type.Array(Type.Array(Ring, { minItems: 1 }), { minItems: 1, description: 'Polygons, each its outer ring then any holes.' }),
  },
  { additionalProperties: true, description: 'A GeoJSON MultiPolygon (RFC 7946 \u00a73.1.7); other members such as `bbox` are ignored.' },
);

/**
 * The body of POST /projects/search: the query of GET /projects as a JSON object, where `polygon` may
 * also be a GeoJSON Polygon or MultiPolygon (for shapes beyond the request line's length).
 */
export const SearchProjectsBody = Type.Object(
  {
    ...ListProjectsQuery.properties,
    polygon: Type.Optional(
      Type.Union([ProjectsQuery.properties.polygon, GeoJsonPolygon, GeoJsonMultiPolygon], {
        'x-error-message': 'must be the one-line form lng,lat,... or a GeoJSON Polygon or MultiPolygon whose rings are lists of at least 3 positions [lng, lat]',
        description:
          'The `polygon` of GET /projects, either in its one-line form or as a GeoJSON Polygon or MultiPolygon geometry object (positions ' +
          '`[longitude, latitude]`). The same rule and limits: at most ' + `${MAX_POLYGON_VERTICES}` + ' vertices in all rings, each ring simple ' +
          'with a non-zero area, a hole\'s edge inside the area.',
      }),
    ),
  },
  { additionalProperties: false },
);

const facetCounts = (value: TSchema, description: string) =>
  Type.Optional(
    Type.Array(
      Type.Object({
        value,
        label: Type.Union([Type.String(), Type.Null()], {
          description:
            'The value\u2019s name, to show instead of the value (e.g. `Studio`, `Off-plan`, a developer\u2019s or area\u2019s name); null when the ' +
            'catalogue names no such code (project types and development statuses are named by GET /project-types and GET /development-statuses).',
        }),
        filterable: Type.Boolean({
          description:
            'Whether the facet\u2019s own filter takes this value: a link to the same search with that filter set to it answers 200. False for ' +
            'every `area` value (no area filter) and for `development_status` 0, which is counted but which the filter (1 to 3) refuses.',
        }),
        count: Type.Integer({ minimum: 1, description: 'Matching projects with this value, under every filter except the facet\u2019s own.' }),
      }),
      { description: `${description} Values with at least one project, ascending.` },
    ),
  );

export const ProjectFacets = Type.Object(
  {
    bedrooms: facetCounts(Type.Integer({ minimum: 0, maximum: 5, description: 'Bedrooms, as the `bedrooms` filter takes it (5: five or more).' }), 'Per bedrooms value of the `bedrooms` filter (0 studio, 5 five or more): projects with one unit of it that satisfies every other unit-level filter.'),
    statuses: facetCounts(Type.Integer({ minimum: 1, maximum: 5, description: 'Unit status id, as the `statuses` filter takes it.' }), 'Per unit status: projects with one unit of it that satisfies every other unit-level filter.'),
    development_status: facetCounts(Type.Integer({ description: 'Development status id, as the `development_status` filter takes it.' }), 'Per development status.'),
    developer: facetCounts(Type.Integer({ description: 'Developer company id.' }), 'Per developer company id (`developer_ids`).'),
    unit_types: facetCounts(Type.Integer({ description: 'Project type id, as the `unit_types` filter takes it.' }), 'Per project type (`unit_types`).'),
    area: facetCounts(Type.Integer({ description: 'Area id.' }), 'Per area id (GET /areas); projects without an area are not counted.'),
    is_branded: facetCounts(Type.Boolean({ description: 'Whether the project is branded.' }), 'Branded or not.'),
    is_resale: facetCounts(Type.Boolean({ description: 'Whether the project is a resale.' }), 'Resale or not.'),
    is_escrow: facetCounts(Type.Boolean({ description: 'Whether the project has an escrow account.' }), 'With an escrow account or not.'),
  },
  { description: 'Only with `facets`: the facets asked for, each as counts per value.' },
);
export type ProjectFacets = Static<typeof ProjectFacets>;

export const ProjectsPageSchema = Type.Object({
  total: Type.Integer({ format: 'int64', description: 'Number of projects matching the filters, regardless of limit and offset.' }),
  facets: Type.Optional(ProjectFacets),
  items: Type.Array(ProjectListItem, {
    description: 'The page, in the order of `sort` (default: project name, then id); stable: paging with the same filters and sort never repeats or skips a project.',
  }),
});
export type ProjectsPageSchema = Static<typeof ProjectsPageSchema>;

/** A list item whole, or with `fields` only the properties named (field-selected.ts). */
export const ProjectListItemSchemas = fieldSelectable(ProjectListItem, 'ProjectListItem');

/** The page as GET /projects and POST /projects/search document it: each item whole, or selected with `fields`. */
export const ProjectsPageResponse = Type.Object({
  ...ProjectsPageSchema.properties,
  items: Type.Array(ProjectListItemSchemas.payload, { description: ProjectsPageSchema.properties.items.description }),
});

// ---------------------------------------------------------------------------------------------------
// GET /projects/list
// ---------------------------------------------------------------------------------------------------

export const FlatProject = Type.Object(
  {
    id: Type.Integer({ description: 'Project id.' }),
    name: Type.String({ description: 'Project name.' }),
    logo: ProjectLogo,
  },
  { description: 'A published project (flat entry).' },
);

export type FlatProject = Static<typeof FlatProject>;

export const FlatProjectList = Type.Object({
  items: Type.Array(FlatProject, { description: 'Every published project visible to the key, sorted by name, then id.' }),
});

// ---------------------------------------------------------------------------------------------------
// GET /projects/{id}
// ---------------------------------------------------------------------------------------------------

export const Facility = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'The facility\u2019s master-data record as imported, unchanged (30 to 50 fields that differ per category, e.g. `curriculum` and ' +
      '`khda_rating` for schools, `specialty_type` and `emergency_24_7` for clinics, `retail_format` for retail). It always carries ' +
      '`source_id` (string), the stable identifier in the source dataset (added from the import when the record lacks it). Coordinates are ' +
      '`latitude`/`longitude` for airports_ports and `asset_latitude`/`asset_longitude` for every other category.',
  },
);

const NearbyEntry = Type.Object(
  {
    distance: Type.Number({ description: 'Great-circle distance from the project to the facility, metres, computed at import time.' }),
    facility: Facility,
  },
  { description: 'A facility near the project.' },
);

export const NearbyFacilities = Type.Object(
  Object.fromEntries(
    FACILITY_CATEGORIES.map((category) => [
      category,
      Type.Array(NearbyEntry, { description: `Nearby ${category.replace('_', ' and ')} facilities, nearest first (empty when none).` }),
    ]),
  ) as Record<FacilityCategory, ReturnType<typeof Type.Array<typeof NearbyEntry>>>,
  {
    description:
      'Facilities linked to the project, one array per category (all eight keys are always present), each sorted by distance. When the ' +
      'server sets AMENITIEST_RADIUS only facilities strictly closer than that many metres are listed; otherwise every facility linked at ' +
      'import time. Distinct from `preferences`.',
  },
);

const DetailUnit = Type.Object(
  {
    id: Type.Integer({ description: 'Unit id (GET /units/{id}).' }),
    unit_number: Type.String({ description: 'Unit number as given by the developer.' }),
    bedrooms: Type.Integer({ description: 'Bedrooms; 0 = studio.' }),
    status: Type.Integer({ minimum: 1, maximum: 5, description: '1 announced, 2 EOI, 3 start of sales, 4 on sale, 5 out of stock.' }),
    furnishing: Type.Integer({ minimum: 1, maximum: 4, description: '1 unfurnished, 2 partially furnished, 3 fully furnished, 4 premium.' }),
    price: Nullable(Type.Number(), 'Price in the key\u2019s prices; null when the unit has no price.'),
    unit_area: Type.Number({ description: 'Area, m².' }),
  },
  { description: 'A unit of the project.' },
);

const ProjectImage = Type.Object(
  {
    id: Type.Integer({ description: 'Id of the image file (same as `file.id`).' }),
    position: Type.Integer({ description: 'Position in the gallery; the lowest is the cover (the project `logo`).' }),
    file: FileObject,
  },
  { description: 'A gallery image.' },
);

export const ProjectDetail = Type.Object(
  {
    id: Type.Integer({ description: 'Project id.' }),
    name: Type.String({ description: 'Project name.' }),
    description: Type.String({ description: 'Description (may be empty).' }),
    type: Type.Integer({ description: 'Project (property) type, as used by the `unit_types` filter.' }),
    status: Type.Integer({ description: 'Free-form status of the agency platform; no defined meaning.' }),
    development_status: DevelopmentStatus,
    is_draft: Type.Literal(false, { description: 'Always false: drafts are not visible.' }),
    is_branded: Type.Boolean({ description: 'Branded residence.' }),
    is_resale: Type.Boolean({ description: 'Resale (secondary market) project.' }),
    is_escrow: Type.Boolean({ description: 'The project has an escrow account.' }),
    area_name: Nullable(Type.String(), 'Name of the project\u2019s area; null when no area is set.'),
    area_city: Nullable(Type.String(), 'City of the project\u2019s area; null when no area is set.'),
    handover_date: HandoverDate,
    launch_date: Nullable(DateTime, 'Launch date.'),
    launch_time: Nullable(Type.String(), 'Launch time as given by the developer (free text).'),
    readiness_progress: Type.Integer({ description: 'Construction progress, percent.' }),
    total_floors: Type.Integer({ description: 'Number of floors.' }),
    developer_registration_id: Type.String({ description: 'Developer registration number (may be empty).' }),
    trakheesi_project_id: Type.String({ description: 'Trakheesi permit id (may be empty).' }),
    escrow_account: Type.String({ description: 'Escrow account (empty when none).' }),
    oqood_registration: Type.String({ description: 'Oqood registration (may be empty).' }),
    resale_conditions: Nullable(Type.String(), 'Resale conditions (free text).'),
    floors_formula: Nullable(Type.String(), 'Floors formula as given by the developer, e.g. `G+P+20`.'),
    price_from: PriceFrom,
    size_from: SizeFrom,
    logo: ProjectLogo,
    company: CompanyRef,
    location: Type.Object(
      {
        area_id: Nullable(Type.Integer(), 'Area id (GET /areas).'),
        area_name: Nullable(Type.String(), 'Area name.'),
        area_city: Nullable(Type.String(), 'Area city.'),
        address: Nullable(Type.String(), 'Street address.'),
        latitude: Nullable(Type.Number(), 'Latitude, degrees; null when unknown.'),
        longitude: Nullable(Type.Number(), 'Longitude, degrees; null when unknown.'),
      },
      { description: 'Where the project is.' },
    ),
    cost: Type.Object(
      {
        currency: Type.String({ description: 'Currency of the prices shown, e.g. `AED`: the project\u2019s own, or with `currency=` the one asked for (unless the project\u2019s currency has no rate).' }),
        commission_type: Nullable(Type.Integer(), 'Commission type of the agency platform; null when not set.'),
        service_charge: Nullable(Type.Number(), 'Annual service charge per ft², in `currency` (converted with `currency=`, without the price vector), as given by the developer (a fee, not a sales price: the key\u2019s price vector does not apply); null when unknown.'),
      },
      { description: 'Money matters other than unit prices.' },
    ),
    payment_plans: Type.Array(PaymentPlan, { description: 'The payment plan, in plan order; empty when none.' }),
    media: Type.Object(
      {
        images: Type.Array(ProjectImage, { description: 'Gallery, by position.' }),
        tours: Type.Array(Type.String(), { description: 'Virtual tour links (plain links, not files).' }),
        presentations: Type.Array(Type.String(), { description: 'Presentation links (plain links, not files).' }),
        floor_plan_file: Nullable(FileObject, 'Floor plan document; null when none.'),
        brochure_file: Nullable(FileObject, 'Brochure; null when none.'),
        general_plan_file: Nullable(FileObject, 'General (master) plan; null when none.'),
      },
      { description: 'Images, tours, presentations and documents.' },
    ),
    units: Type.Array(DetailUnit, { description: 'The project\u2019s units (deleted ones left out), sorted by unit number, then id.' }),
    preferences: ProjectPreferences,
    nearby_facilities: NearbyFacilities,
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'A project with every block: location, cost, payment plan, media, units, preferences and nearby facilities.' },
);

/** The detail whole, or with `fields` only the properties named (field-selected.ts). */
export const ProjectDetailSchemas = fieldSelectable(ProjectDetail, 'ProjectDetail');

/** The query of GET /projects/{id}: additions only; without any the full, specified answer. */
export const ProjectDetailQuery = Type.Object(
  {
    fields: fieldsParameter(ProjectDetail, 'name,media,units'),
    currency: DisplayCurrencyParam,
    nearby_limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_NEARBY_LIMIT,
        examples: [3],
        description:
          `Keep only the nearest N facilities of each category of \`nearby_facilities\` (1 to ${MAX_NEARBY_LIMIT}; ties by distance in ` +
          'the same order as the full block). AMENITIEST_RADIUS still bounds the block first. Not given: every facility (an addition).',
      }),
    ),
    nearby: Type.Optional(
      Type.Union(
        NEARBY_FORMS.map((form) => Type.Literal(form)),
        {
          examples: ['summary'],
          description:
            'Form of each entry of `nearby_facilities`: `full` (default) carries the facility\u2019s master-data record; `summary` keeps ' +
            `only ${SUMMARY_FACILITY_FIELDS.map((field) => `\`${field}\``).join(', ')} of it (those the record has), with the ` +
            'distance, e.g. `nearby=summary&nearby_limit=3` for a project page (an addition).',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------------------------------------------
// GET /projects/{id}/contacts
// ---------------------------------------------------------------------------------------------------

export const SOCIAL_NETWORKS = ['telegram', 'instagram', 'linkedin', 'facebook', 'twitter', 'whatsapp', 'website'] as const;

const SocialLinks = Type.Object(
  Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, Type.String({ description: `${network} handle or link; empty string when not given.` })])) as Record<
    (typeof SOCIAL_NETWORKS)[number],
    ReturnType<typeof Type.String>
  >,
  { description: 'Every network is present; an empty string means the worker gave none.' },
);

export const ProjectContacts = Type.Object({
  company: Type.Object(
    {
      id: Type.Integer({ description: 'Developer company id.' }),
      name: Type.String({ description: 'Developer company name.' }),
      avatar: Nullable(Type.String(), 'Link to the company logo; null when none.'),
    },
    { description: 'The developer that owns the project.' },
  ),
  workers: Type.Array(
    Type.Object(
      {
        user_id: Type.Integer({ description: 'User id.' }),
        name: Type.String({ description: 'Full name.' }),
        email: Type.String({ description: 'E-mail address.' }),
        role: Type.String({ description: 'Legacy free-form role, e.g. `broker` or `manager`.' }),
        avatar: Nullable(Type.String(), 'Link to the avatar; null when none.'),
        contact_phone: Nullable(Type.String(), 'Contact phone; null when none.'),
        social_links: SocialLinks,
        languages: Nullable(Type.Array(Type.String()), 'Languages spoken; null when not given.'),
        bio: Nullable(Type.String(), 'Short biography; null when none.'),
      },
      { description: 'A member of the developer\u2019s staff.' },
    ),
    { description: 'The developer\u2019s staff, sorted by name then user id; members with the role `ceo` (any case) and deleted users are left out.' },
  ),
});
