import { Type, type Static } from '@sinclair/typebox';

/*
 * The reference lists an assistant needs to turn a client's words into filter values ("Dubai Marina",
 * "sea view", "Emaar" into ids): what each list is, and which filter or field takes its ids. One table
 * for the list_reference tool, the catalogue:// resources and the model-facing descriptions.
 */
export const REFERENCE_LISTS = {
  areas: { title: 'Areas', usedBy: 'the `area` facet of search_projects and `preferences.preferred_area_ids` of submit_application', description: 'Every area with its city.' },
  unit_tags: { title: 'Unit tags', usedBy: '`unit_preference_ids` of search_projects and `preferences.preference_ids` of submit_application', description: 'Tags a unit can carry (views, layouts, ...).' },
  features: { title: 'Project features', usedBy: '`preference_ids` of search_projects (the project must have all of them)', description: 'Features a project can have.' },
  amenities: { title: 'Project amenities', usedBy: '`preference_ids` of search_projects (the project must have all of them)', description: 'Amenities a project can have.' },
  developers: { title: 'Developers', usedBy: '`developer_ids` of search_projects', description: 'Developers whose projects this key can see.' },
  project_types: {
    title: 'Project types',
    usedBy: '`unit_types` of search_projects',
    description: 'Every named project type (as GET /project-types), with the number of projects this key can see of it.',
  },
  development_statuses: {
    title: 'Development statuses',
    usedBy: '`development_status` of search_projects (values 1 to 3)',
    description: 'Every named development status (as GET /development-statuses; the filter takes 1 to 3), with the number of projects this key can see in it.',
  },
} as const;

export type ReferenceListName = keyof typeof REFERENCE_LISTS;
export const REFERENCE_LIST_NAMES = Object.keys(REFERENCE_LISTS) as ReferenceListName[];

export const ReferenceItem = Type.Object({
  id: Type.Integer({ description: 'The value the filter or field takes.' }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'Its name; null for a project type or development status value the catalogue does not name.' }),
  city: Type.Optional(Type.String({ description: 'Areas: the city.' })),
  projects: Type.Optional(Type.Integer({ description: 'Project types and development statuses: projects this key can see with this value (0: none).' })),
});
export type ReferenceItem = Static<typeof ReferenceItem>;
