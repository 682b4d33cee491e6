import { AREA_ID_BY_NAME } from './areas.js';
import type { Row } from './bundle-record.js';
import { DEMO_AGENCY_ID, SECOND_AGENCY_ID } from './notable-records.js';
import { ts } from './timestamps.js';

/*
 * The agencies' CRM reference data and a few existing clients, so that applications sent through the API
 * have stages to land in and known people to be matched against.
 */

export function generateCrmRecords(): { boardStages: Row<'board_stages'>[]; offerStatuses: Row<'offer_statuses'>[]; clients: Row<'clients'>[] } {
  const boardStages: Row<'board_stages'>[] = [
    ...['New lead', 'Contacted', 'Viewing', 'Offer', 'Won', 'Lost'].map((name, position) => ({ id: position + 1, company_id: DEMO_AGENCY_ID, name, position })),
    ...['New', 'Qualified', 'Negotiation', 'Closed'].map((name, position) => ({ id: position + 7, company_id: SECOND_AGENCY_ID, name, position })),
  ];
  const offerStatuses: Row<'offer_statuses'>[] = [
    { id: 1, name: 'Draft' },
    { id: 2, name: 'Sent' },
    { id: 3, name: 'Accepted' },
    { id: 4, name: 'Rejected' },
  ];
  const clients: Row<'clients'>[] = [
    {
      id: 1, company_id: DEMO_AGENCY_ID, first_name: 'James', last_name: 'Whitfield', email: 'james.whitfield@mail.example',
      mobile_number: '+971 50 123 4567', landline_number: '+971 4 399 8812', address_line1: 'Villa 14, Street 7', address_line2: 'Arabian Ranches 2',
      city: 'Dubai', country: 'United Arab Emirates', postcode: '00000', social_links: { instagram: 'jwhitfield', x: 'jwhitfield' },
      property_types: [1, 4], preferred_area_ids: [AREA_ID_BY_NAME.get('Dubai Marina')!, AREA_ID_BY_NAME.get('Palm Jumeirah')!],
      property_features: ['Sea View', 'High Floor'], created_at: ts(-120), updated_at: ts(-60),
    },
    {
      id: 2, company_id: DEMO_AGENCY_ID, first_name: 'Aisha', last_name: 'Al Nuaimi', email: 'aisha.alnuaimi@mail.example',
      mobile_number: '+971 55 987 6543', city: 'Abu Dhabi', country: 'United Arab Emirates', social_links: { instagram: 'aisha.n' },
      property_types: [2, 3], preferred_area_ids: [AREA_ID_BY_NAME.get('Saadiyat Island')!, AREA_ID_BY_NAME.get('Yas Island')!],
      property_features: ['Private Pool', "Maid's Room"], created_at: ts(-90), updated_at: ts(-90),
    },
    {
      id: 3, company_id: DEMO_AGENCY_ID, first_name: 'Dmitri', last_name: 'Sokolov', email: 'd.sokolov@mail.example',
      mobile_number: '+7 916 555 0142', address_line1: 'Tverskaya 12', city: 'Moscow', country: 'Russia', postcode: '125009',
      social_links: { x: 'dsokolov' }, property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Business Bay')!],
      property_features: ['Burj Khalifa View'], created_at: ts(-60), updated_at: ts(-30),
    },
    {
      id: 4, company_id: DEMO_AGENCY_ID, first_name: 'Priya', last_name: 'Nair', email: null,
      mobile_number: '+971 52 444 1020', city: 'Dubai', country: 'United Arab Emirates', social_links: {},
      property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Jumeirah Village Circle')!, AREA_ID_BY_NAME.get('Arjan')!],
      property_features: [], created_at: ts(-45), updated_at: ts(-45),
    },
    {
      id: 5, company_id: DEMO_AGENCY_ID, first_name: 'Lucas', last_name: 'Moreau', email: 'lucas.moreau@mail.example',
      mobile_number: null, city: 'Paris', country: 'France', postcode: '75008', social_links: { instagram: 'lucas.moreau', tiktok: 'lucasmoreau', facebook: 'lucas.moreau.75' },
      property_types: [4], preferred_area_ids: [AREA_ID_BY_NAME.get('Downtown Dubai')!], property_features: ['Private Pool', 'High Floor'],
      created_at: ts(-20), updated_at: ts(-20),
    },
    // The same person as client 1, known to the other agency: clients are matched per company.
    {
      id: 6, company_id: SECOND_AGENCY_ID, first_name: 'James', last_name: 'Whitfield', email: 'james.whitfield@mail.example',
      mobile_number: '+971 50 123 4567', city: 'Dubai', country: 'United Arab Emirates', social_links: {},
      property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Dubai Creek Harbour')!], property_features: [],
      created_at: ts(-15), updated_at: ts(-15),
    },
  ];
  return { boardStages, offerStatuses, clients };
}
