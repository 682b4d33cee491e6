/*
 * The fixed lists the bundle ships as tables of their own; units and projects refer to their rows by id
 * (the id is the position in the list, from 1).
 */

export const UNIT_TAGS = [
  'Sea View', 'Burj Khalifa View', 'Marina View', 'Golf Course View', 'Park View', 'Lagoon View', 'Creek View', 'Canal View', 'Lake View',
  'Corner Unit', "Maid's Room", 'Private Pool', 'Balcony', 'Study Room', 'High Floor', 'Upgraded Kitchen',
  'Walk-in Wardrobe', 'Private Garden',
] as const;
const TAG_ID = new Map<string, number>(UNIT_TAGS.map((t, i) => [t, i + 1]));
export const tagId = (name: string): number => {
  const id = TAG_ID.get(name);
  if (id === undefined) throw new Error(`unknown unit tag ${name}`);
  return id;
};

export const PROJECT_FEATURES: readonly (readonly [string, 1 | 2])[] = [
  ['Smart Home', 1], ['Private Beach Access', 1], ['Waterfront', 1], ['Golf Course Frontage', 1], ['Freehold', 1],
  ['Branded Interiors', 1], ['Floor-to-Ceiling Windows', 1], ['Built-in Wardrobes', 1], ['Central A/C (Chiller-free)', 1],
  ['Private Lift Lobby', 1], ['LEED Certified', 1], ['Metro Access', 1],
  ['Swimming Pool', 2], ['Gym', 2], ['Kids Play Area', 2], ['Concierge', 2], ['Covered Parking', 2], ['24/7 Security', 2],
  ['Jogging Track', 2], ['BBQ Area', 2], ['Spa & Sauna', 2], ['Co-working Lounge', 2], ['Padel Court', 2],
  ['Infinity Pool', 2], ['Landscaped Gardens', 2], ['Cinema Room', 2],
];

/** Names of the project types the demo projects use (a project's `type`, bundle section `project_types`). */
export const PROJECT_TYPES = ['Apartments', 'Villas', 'Townhouses', 'Penthouses'] as const;

/** Names of the development statuses (a project's `development_status`, 0 to 3; bundle section `development_statuses`). */
export const DEVELOPMENT_STATUSES = ['Announced', 'Early construction', 'Advanced construction', 'Completed'] as const;
