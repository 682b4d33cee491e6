import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { importBundle, type ImportOptions, type ImportSummary } from '../import/import-bundle.js';
import { createApiKey } from '../queries/api-key-admin.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, generateDemoBundle } from './demo-bundle.js';

export async function catalogueIsEmpty(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('projects').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Loads the demo catalogue through the bundle importer, like any other data. */
export async function seedDemo(
  db: Kysely<DB>,
  options: { facilityLinkRadiusM: number; projects?: number; facilities?: number; foreignCurrencyPercent?: number; onProgress?: ImportOptions['onProgress'] },
): Promise<ImportSummary> {
  const bundle = generateDemoBundle({ projects: options.projects, facilities: options.facilities, foreignCurrencyPercent: options.foreignCurrencyPercent });
  return importBundle(db, bundle, { facilityLinkRadiusM: options.facilityLinkRadiusM, onProgress: options.onProgress });
}

/**
 * A new key of the demo agency. Private applications unless asked otherwise: the key `npm start` prints
 * ends up in tutorials and web pages, where whoever sends an application must not be shown the stored
 * client of a phone number or e-mail they typed.
 */
export async function createDemoKey(db: Kysely<DB>, options: { privateApplications?: boolean } = {}): Promise<string> {
  const { secret } = await createApiKey(db, { companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, name: 'Demo website', privateApplications: options.privateApplications ?? true });
  return secret;
}
