/*
 * A small, hand-written catalogue that tests extend. Everything goes in through the bundle importer,
 * exactly as production data does. Ids are chosen so a reader can tell records apart:
 *   companies 1 agency (licensed), 2 agency (licence pending), 10 developer (contracted),
 *   11 developer (no contract), 12 developer (pending contract), 13 developer (contracted, deleted)
 *   users 100 agency owner, 101 agency broker, 110 developer owner (ceo), 111 developer broker
 */
export const AGENCY = 1;
export const UNLICENSED_AGENCY = 2;
export const DEV = 10;
export const DEV_NO_CONTRACT = 11;
export const DEV_PENDING = 12;
export const DEV_DELETED = 13;
export const OWNER = 100;
export const BROKER = 101;

export const TS = '2026-01-01T00:00:00.000Z';

export type Bundle = Record<string, Record<string, unknown>[]>;

export function baseBundle(): Bundle {
  return {
    files: [
      { id: 1, path: 'companies/1/logo.png', original_name: 'logo.png', storage_name: 'a1.png', mime_type: 'image/png', size: 1024 },
      { id: 2, path: 'companies/10/logo.png', original_name: 'dev.png', storage_name: 'a2.png', mime_type: 'image/png', size: 2048 },
      { id: 3, path: 'users/110/avatar.jpg', original_name: 'me.jpg', storage_name: 'a3.jpg', mime_type: 'image/jpeg', size: 4096 },
    ],
    areas: [
      { id: 1, name: 'Dubai Marina', city: 'Dubai' },
      { id: 2, name: 'Business Bay', city: 'Dubai' },
      { id: 3, name: 'Yas Island', city: 'Abu Dhabi' },
    ],
    unit_tags: [
      { id: 1, name: 'Sea View' },
      { id: 2, name: 'Corner Unit' },
      { id: 3, name: 'Balcony' },
    ],
    project_features: [
      { id: 1, name: 'Smart Home', type: 1 },
      { id: 2, name: 'Private Beach', type: 1 },
      { id: 3, name: 'Swimming Pool', type: 2 },
      { id: 4, name: 'Gym', type: 2 },
    ],
    companies: [
      { id: AGENCY, company_type: 2, company_name: 'Gulf Homes Realty', logo_file_id: 1, licence_status: 'approved' },
      { id: UNLICENSED_AGENCY, company_type: 2, company_name: 'Pending Realty', licence_status: 'pending' },
      { id: DEV, company_type: 3, company_name: 'Emaar Properties', logo_file_id: 2 },
      { id: DEV_NO_CONTRACT, company_type: 3, company_name: 'Hidden Developments' },
      { id: DEV_PENDING, company_type: 3, company_name: 'Pending Developments' },
      { id: DEV_DELETED, company_type: 3, company_name: 'Gone Developments', deleted: true },
    ],
    users: [
      { id: OWNER, name: 'Amira Haddad', email: 'amira@gulfhomes.ae' },
      { id: BROKER, name: 'Omar Khan', email: 'omar@gulfhomes.ae' },
      { id: 102, name: 'Pending Owner', email: 'owner@pending.ae' },
      { id: 110, name: 'Dev Owner', email: 'ceo@emaar.example' },
      { id: 111, name: 'Sara Lee', email: 'sara@emaar.example' },
    ],
    company_members: [
      { company_id: AGENCY, user_id: OWNER, role: 'ceo', contact_phone: '+971 50 000 0001' },
      { company_id: AGENCY, user_id: BROKER, role: 'broker' },
      { company_id: UNLICENSED_AGENCY, user_id: 102, role: 'ceo' },
      { company_id: DEV, user_id: 110, role: 'ceo' },
      {
        company_id: DEV, user_id: 111, role: 'broker', contact_phone: '+971 55 123 4567', avatar_file_id: 3,
        social_links: { telegram: 'saralee', whatsapp: '+971551234567' }, languages: ['English', 'Arabic'], bio: 'Off-plan specialist.',
      },
    ],
    contracts: [
      { agency_id: AGENCY, developer_id: DEV, status: 'approved' },
      { agency_id: AGENCY, developer_id: DEV_PENDING, status: 'pending' },
      { agency_id: AGENCY, developer_id: DEV_DELETED, status: 'approved' },
      { agency_id: UNLICENSED_AGENCY, developer_id: DEV, status: 'approved' },
    ],
    offer_statuses: [
      { id: 1, name: 'Draft' },
      { id: 2, name: 'Sent' },
    ],
    board_stages: [
      { id: 1, company_id: AGENCY, name: 'New lead', position: 0 },
      { id: 2, company_id: AGENCY, name: 'Contacted', position: 1 },
    ],
  };
}

/** Merges sections: records of `extra` are appended to the base sections. */
export function withRecords(base: Bundle, extra: Bundle): Bundle {
  const merged: Bundle = { ...base };
  for (const [section, records] of Object.entries(extra)) merged[section] = [...(merged[section] ?? []), ...records];
  return merged;
}

/** baseBundle with one project (100, of DEV) and one priced 2-bedroom unit (1000): the operations suites' catalogue. */
export function oneUnitCatalogue(): Bundle {
  return withRecords(baseBundle(), {
    projects: [{ id: 100, company_id: DEV, name: 'Marina Heights', area_id: 1 }],
    units: [{ id: 1000, project_id: 100, unit_number: 'A-1', price: 1_000_000, bedrooms: 2 }],
  });
}
