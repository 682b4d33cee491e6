import type { AreaDef } from './areas.js';

/*
 * The word lists and plans projects are assembled from, kept apart from the generation so they can be
 * read and extended at a glance. Area-specific name words live with the areas (AREA_NAME_LEADS).
 */

export const NAME_LEADS = [
  'Azure', 'Skyline', 'Emerald', 'Pearl', 'Coral', 'Ocean', 'Harbour', 'Sunset', 'Serene', 'Royal', 'Elara', 'Aurora', 'Avalon',
  'Sapphire', 'Horizon', 'Cedar', 'Amber', 'Oasis', 'Lagoon', 'Grove', 'Crest', 'Verde', 'Solace', 'Zenith', 'Nova', 'Luma',
  'Orchid', 'Palmera', 'Sereno', 'Celeste',
];
export const NAME_MIDDLES = [
  'Vista', 'Heights', 'Gate', 'View', 'Point', 'Edge', 'Square', 'Walk', 'Terraces', 'Sky', 'Rise', 'Place', 'Park', 'Bay', 'Gardens',
];
export const NAME_SUFFIXES: Readonly<Record<number, readonly string[]>> = {
  1: ['Residences', 'Tower', 'Apartments', 'Suites', 'Residence'],
  2: ['Villas', 'Estates', 'Mansions'],
  3: ['Townhouses', 'Mews', 'Townhomes'],
  4: ['Penthouses', 'Sky Residences', 'Sky Collection'],
};
export const TYPE_WORDS: Readonly<Record<number, string>> = { 1: 'apartment', 2: 'villa', 3: 'townhouse', 4: 'penthouse' };

/** Parts of a payment plan: [type (1 down payment, 2 during construction, 3 on completion), percent]. */
type Plan = readonly (readonly [1 | 2 | 3, number])[];
export const PAYMENT_PLANS: readonly (readonly [Plan, number])[] = [
  [[[1, 20], [2, 40], [3, 40]], 5],
  [[[1, 10], [2, 50], [3, 40]], 4],
  [[[1, 60], [2, 40]], 2],
  [[[1, 10], [2, 20], [3, 70]], 2],
  [[[1, 20], [2, 30], [3, 50]], 3],
  [[[1, 10], [2, 40], [3, 50]], 2],
  [[[1, 20], [2, 50], [3, 30]], 3],
  [[[1, 5], [2, 45], [3, 50]], 1],
  [[[1, 25], [2, 75]], 1],
  [[[1, 10], [2, 10], [2, 10], [2, 10], [2, 20], [3, 40]], 1],
  [[[1, 20], [2, 20], [2, 20], [3, 40]], 1],
];
export const READY_PLANS: readonly (readonly [Plan, number])[] = [
  [[[1, 100]], 2],
  [[[1, 30], [3, 70]], 2],
  [[[1, 50], [3, 50]], 1],
];

export const ESCROW_BANKS: Readonly<Record<AreaDef['city'], readonly string[]>> = {
  Dubai: ['Emirates NBD', 'Dubai Islamic Bank', 'Mashreq Bank', 'Commercial Bank of Dubai', 'Abu Dhabi Commercial Bank'],
  'Abu Dhabi': ['First Abu Dhabi Bank', 'Abu Dhabi Commercial Bank', 'Abu Dhabi Islamic Bank'],
  Sharjah: ['Sharjah Islamic Bank', 'Emirates Islamic', 'Bank of Sharjah'],
};
