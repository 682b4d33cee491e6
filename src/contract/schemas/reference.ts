import { Type } from '@sinclair/typebox';

export const DateTime = Type.String({ format: 'date-time' });
export const Link = Type.Union([Type.String(), Type.Null()], { description: 'Ready-to-use link: STATIC_BASE_URL + stored path (the path alone when no base is configured).' });

/** An RFC 3339 timestamp (UTC) with its own description. */
export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
export const CreatedAt = Timestamp('When the record was created (RFC 3339, UTC).');
export const UpdatedAt = Timestamp('When the record was last changed (RFC 3339, UTC).');

export const Area = Type.Object(
  {
    id: Type.Integer({ description: 'Area id (usable in `preferred_area_ids`).' }),
    name: Type.String({ description: 'Area name.' }),
    city: Type.String({ description: 'City.' }),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'An area.' },
);

export const UnitTag = Type.Object(
  {
    id: Type.Integer({ description: 'Unit tag id (usable in `unit_preference_ids` and `preference_ids` of an application).' }),
    name: Type.String({ description: 'Unit tag name.' }),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
  },
  { description: 'A unit tag (GET /preferences).' },
);

export const FeatureType = Type.Union([Type.Literal(1), Type.Literal(2)], { description: '1 feature, 2 amenity' });

export const ProjectFeature = Type.Object(
  {
    id: Type.Integer({ description: 'Feature/amenity id (usable in `preference_ids`).' }),
    name: Type.String({ description: 'Feature/amenity name.' }),
    type: FeatureType,
  },
  { description: 'A project feature (type 1) or amenity (type 2).' },
);

export const ProjectFeatureSections = Type.Object({
  features: Type.Array(ProjectFeature, { description: 'Features (type 1), sorted by name; empty when `type=2`.' }),
  amenities: Type.Array(ProjectFeature, { description: 'Amenities (type 2), sorted by name; empty when `type=1`.' }),
});

export const Developer = Type.Object(
  { id: Type.Integer({ description: 'Developer company id (usable in `developer_ids`).' }), name: Type.String({ description: 'Developer company name.' }), logo: Link },
  { description: 'A developer company (list item).' },
);
