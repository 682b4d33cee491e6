import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as initial from './migrations/0001_initial.js';
import * as projectNearestFacility from './migrations/0002_project_nearest_facility.js';
import * as projectsListingIndex from './migrations/0003_projects_listing_index.js';
import * as unitTagIds from './migrations/0004_unit_tag_ids.js';
import * as facilityJson from './migrations/0005_facility_json.js';
import * as projectUnitSummary from './migrations/0006_project_unit_summary.js';
import * as changeSignals from './migrations/0007_change_signals.js';
import * as changesFeed from './migrations/0008_changes_feed.js';
import * as privateApplicationsAndFeedVisibility from './migrations/0009_private_applications_and_feed_visibility.js';
import * as codeNames from './migrations/0011_code_names.js';
import * as webhooks from './migrations/0012_webhooks.js';
// Numbered after 0012: it was written before 0011 and 0012 but landed after them, and databases migrated
// meanwhile hold 0011 and 0012 (Kysely refuses a migration inserted before executed ones).
import * as currencyRates from './migrations/0013_currency_rates.js';
import * as webhookProbes from './migrations/0014_webhook_probes.js';
import * as webhookLeases from './migrations/0015_webhook_leases.js';
import * as webhookOwnChanges from './migrations/0016_webhook_own_changes.js';

// Migrations are imported statically so they ship with the code, whatever runs it (tsx, a bundle, a test).
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_project_nearest_facility': projectNearestFacility,
  '0003_projects_listing_index': projectsListingIndex,
  '0004_unit_tag_ids': unitTagIds,
  '0005_facility_json': facilityJson,
  '0006_project_unit_summary': projectUnitSummary,
  '0007_change_signals': changeSignals,
  '0008_changes_feed': changesFeed,
  '0009_private_applications_and_feed_visibility': privateApplicationsAndFeedVisibility,
  '0011_code_names': codeNames,
  '0012_webhooks': webhooks,
  '0013_currency_rates': currencyRates,
  '0014_webhook_probes': webhookProbes,
  '0015_webhook_leases': webhookLeases,
  '0016_webhook_own_changes': webhookOwnChanges,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to (and including) the named migration; for tests of a migration on existing data. */
export async function migrateTo(db: Kysely<any>, name: keyof typeof migrations): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Brings the schema up to date; safe to call on every start and from several processes at once. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
