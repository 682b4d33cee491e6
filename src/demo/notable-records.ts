/*
 * The records that tests, tools and docs refer to by id, and the slots that give projects their special
 * roles. Kept in one place so that the generator and its readers cannot drift apart.
 */

export const DEMO_AGENCY_ID = 1;
export const DEMO_AUTHOR_ID = 1;
export const SECOND_AGENCY_ID = 2;
export const SECOND_AGENCY_AUTHOR_ID = 4;
export const NON_CONTRACTED_DEVELOPER_ID = 9;
export const PENDING_CONTRACT_DEVELOPER_ID = 10;
export const DEFAULT_DEMO_PROJECTS = 48;

/** Project ids of the special records at default size (they repeat every 48 projects). */
export const DEMO_PROJECTS = {
  withoutUnits: 3,
  draft: 12,
  unpricedUnits: 14,
  deleted: 24,
  withoutCoordinates: 38,
  eur: 20,
  usd: [8, 32],
  nonContracted: [6, 30],
  pendingContract: [18, 42],
} as const;


export type SlotRole =
  | 'normal'
  | 'noUnits'
  | 'nonContracted'
  | 'pendingContract'
  | 'usd'
  | 'eur'
  | 'draft'
  | 'unpriced'
  | 'deleted'
  | 'noCoordinates';

/** Special project roles by index modulo 48 (the project id is index + 1). */
export const SLOT_ROLES: Readonly<Record<number, SlotRole>> = {
  2: 'noUnits',
  5: 'nonContracted',
  7: 'usd',
  11: 'draft',
  13: 'unpriced',
  17: 'pendingContract',
  19: 'eur',
  23: 'deleted',
  29: 'nonContracted',
  31: 'usd',
  37: 'noCoordinates',
  41: 'pendingContract',
};
export const SLOT_PERIOD = 48;
