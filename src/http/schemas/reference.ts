import { Type } from '@sinclair/typebox';

export const DateTime = Type.String({ format: 'date-time' });
export const Link = Type.Union([Type.String(), Type.Null()], { description: 'Ready-to-use link: STATIC_BASE_URL + stored path (the path alone when no base is configured).' });

export const Area = Type.Object(
  { id: Type.Integer(), name: Type.String(), city: Type.String(), created_at: DateTime, updated_at: DateTime },
  { description: 'An area.' },
);

export const UnitTag = Type.Object(
  { id: Type.Integer(), name: Type.String(), created_at: DateTime, updated_at: DateTime },
  { description: 'A unit tag (GET /preferences).' },
);

export const FeatureType = Type.Union([Type.Literal(1), Type.Literal(2)], { description: '1 feature, 2 amenity' });

export const ProjectFeature = Type.Object(
  { id: Type.Integer(), name: Type.String(), type: FeatureType },
  { description: 'A project feature (type 1) or amenity (type 2).' },
);

export const ProjectFeatureSections = Type.Object({
  features: Type.Array(ProjectFeature),
  amenities: Type.Array(ProjectFeature),
});

export const Developer = Type.Object(
  { id: Type.Integer(), name: Type.String(), logo: Link },
  { description: 'A developer company (list item).' },
);
