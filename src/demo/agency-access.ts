import { generateApiKey } from '../domain/api-key.js';
import type { Row } from './bundle-record.js';
import { DEVELOPERS } from './developers.js';
import { DEMO_AGENCY_ID, NON_CONTRACTED_DEVELOPER_ID, PENDING_CONTRACT_DEVELOPER_ID, SECOND_AGENCY_AUTHOR_ID, SECOND_AGENCY_ID } from './notable-records.js';
import { ts } from './timestamps.js';

/*
 * What each agency may read: contracts with developers (approved, pending, rejected or missing) and the
 * one stored API key. The mix is deliberate, so the access checks have something to refuse.
 */

export function generateContracts(): Row<'contracts'>[] {
  const contracts: Row<'contracts'>[] = [];
  for (const d of DEVELOPERS) {
    if (d.id === NON_CONTRACTED_DEVELOPER_ID) continue;
    contracts.push({ agency_id: DEMO_AGENCY_ID, developer_id: d.id, status: d.id === PENDING_CONTRACT_DEVELOPER_ID ? 'pending' : 'approved' });
  }
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 3, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: NON_CONTRACTED_DEVELOPER_ID, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 12, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 4, status: 'rejected' });
  return contracts;
}

/**
 * Only the second agency's key; the demo agency's key is created (and printed) at start-up. Its secret
 * is drawn from a secure random source at every generation, never derived from anything in the
 * source: approving that agency's licence on a database where the demo was loaded must not open a key
 * anyone can compute. Nobody needs it (it is there for the access checks to refuse), so it is not printed.
 */
export function generateApiKeys(): Row<'api_keys'>[] {
  return [
    {
      id: 1,
      company_id: SECOND_AGENCY_ID,
      author_id: SECOND_AGENCY_AUTHOR_ID,
      name: 'Blue Creek website',
      key: generateApiKey(),
      price_vector: 3.5,
      status: 0,
      allowed_domains: ['bluecreek.example', 'www.bluecreek.example'],
      // A key of a web page: whoever fills in its form must not learn what the CRM stores.
      private_applications: true,
      created_at: ts(-20),
      updated_at: ts(-20),
    },
  ];
}
