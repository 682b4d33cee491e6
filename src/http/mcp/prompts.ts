/*
 * Prompts an assistant's user can pick ("find homes for a client brief"): each spells out the tool
 * sequence and the rules that matter (agency prices, ids from list_reference, confirmation before an
 * application).
 */

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  text(args: Record<string, string>): string;
}

export const PROMPTS: PromptDefinition[] = [
  {
    name: 'find_homes_for_client',
    title: 'Find homes for a client brief',
    description: 'Turns a client\u2019s brief (budget, bedrooms, area, handover, payment plan) into searches and a shortlist in the agency\u2019s prices.',
    arguments: [
      { name: 'brief', description: 'The client\u2019s brief in their own words, e.g. "2-bed in Dubai Marina under 3M AED, handover by 2027, post-handover plan".', required: true },
      { name: 'shortlist_size', description: 'How many projects to shortlist (default 5).', required: false },
    ],
    text: ({ brief, shortlist_size: size }) =>
      [
        `A client of our agency has this brief: "${brief}".`,
        `Find up to ${size || '5'} projects that fit it, using the catalogue tools:`,
        '1. Map every named place, developer, feature, amenity or unit tag to its id with list_reference (areas, developers, features, amenities, unit_tags). Never guess ids.',
        '2. Call search_projects with the matching filters (bedrooms, price_max/price_min in the agency\u2019s prices, area via facets, handover_to, payment filters, preference ids). Ask for facets (e.g. "bedrooms,area") to see where the matches are, and set match: true so that each project says how many of its units fit the unit filters and the cheapest of them; if nothing matches, relax one constraint at a time and say which.',
        '3. For the best candidates call get_project and pick the units that fit (bedrooms, price, status "on sale" preferred).',
        '4. Present the shortlist: project name, developer, area, handover, payment plan, and for each unit its number, bedrooms, size in m² and price exactly as given (the agency\u2019s prices), with the project and unit ids.',
        'Do not submit any application; offer to prepare one if the client is interested.',
      ].join('\n'),
  },
  {
    name: 'prepare_application',
    title: 'Prepare a client application',
    description: 'Collects the client\u2019s details for one unit, has the user confirm them, then files the application with submit_application.',
    arguments: [
      { name: 'unit_id', description: 'The unit the client wants to apply for.', required: true },
      { name: 'client', description: 'What is known about the client (name, e-mail, mobile, budget, wishes).', required: false },
    ],
    text: ({ unit_id: unitId, client }) =>
      [
        `Prepare an application of a client for unit ${unitId}.`,
        client ? `Known about the client: ${client}` : 'Ask for the client\u2019s details.',
        '1. Call get_unit to show the unit (project, number, bedrooms, size, price as given).',
        '2. Collect at least the first name and an e-mail or mobile number (with country code); optional: last name, budget, preferred areas, a message.',
        '3. Show the user exactly what will be sent and ask for an explicit yes.',
        '4. Only after that yes, call submit_application once with a new UUID as idempotency_key; if the call fails with a network error or 5xx, retry with the same idempotency_key and the same arguments.',
        '5. Report the client, opportunity and offer numbers from the answer.',
      ].join('\n'),
  },
];

export const PROMPTS_BY_NAME = new Map(PROMPTS.map((prompt) => [prompt.name, prompt]));
