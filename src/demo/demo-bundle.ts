import { generateCurrencyRates } from './currency-rates.js';
import { generateApiKeys, generateContracts } from './agency-access.js';
import { ALL_AREAS, AREAS } from './areas.js';
import type { Bundle } from '../import/bundle-schema.js';
import type { Row } from './bundle-record.js';
import { generateCompanies } from './companies.js';
import { generateUsersAndMembers } from './company-members.js';
import { generateCrmRecords } from './crm-records.js';
import { generateFacilities } from './facilities.js';
import { fileRegistry } from './file-records.js';
import { DEFAULT_DEMO_PROJECTS } from './notable-records.js';
import { generateProjects } from './projects.js';
import { DEVELOPMENT_STATUSES, PROJECT_FEATURES, PROJECT_TYPES, UNIT_TAGS } from './reference-lists.js';
import { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';
import { generateUnits } from './units.js';

/*
 * The demo catalogue, generated as a catalogue bundle (../shared/spec/catalogue-bundle.md) and loaded
 * through the importer like any other data. Deterministic: a seeded PRNG (mulberry32) and timestamps
 * fixed relative to 2026-01-01T00:00:00Z, so the same options always give the same bundle.
 *
 * Default size: 48 projects (~1,750 units, 480 facilities). `projects: N` scales linearly: ~38 units per
 * project below 1,000 projects, ~50 from 1,000 on, and ~10 facilities per project (at least 40 per
 * category). Special records repeat every 48 projects (see SLOT_ROLES), so their share stays the same.
 *
 * Notable records (default options):
 *   companies 1 demo agency (licence approved), 2 second agency (licence pending), 3..13 developers;
 *   9 Binghatti has no contract with the demo agency, 10 Danube Properties only a pending one
 *   (both still have published projects, invisible to the demo agency's keys);
 *   users 1 demo agency owner (author of the demo key), 2 broker, 3 manager, 4 second agency owner;
 *   projects 3 has no units, 6/30 belong to Binghatti, 8/32 in USD, 12 draft, 14 units without price,
 *   18/42 belong to Danube, 20 in EUR, 24 deleted, 38 without coordinates.
 *
 * Codes used here: src/domain/catalogue-codes.ts (the specification's, and those the demo gives a
 * meaning where the specification gives none).
 *
 * This module puts the bundle together; each table comes from a module of its own in this folder
 * (companies, company-members, projects, units, facilities, …), drawing on one seeded stream.
 */

export {
  DEFAULT_DEMO_PROJECTS,
  DEMO_AGENCY_ID,
  DEMO_AUTHOR_ID,
  DEMO_PROJECTS,
  NON_CONTRACTED_DEVELOPER_ID,
  PENDING_CONTRACT_DEVELOPER_ID,
  SECOND_AGENCY_AUTHOR_ID,
  SECOND_AGENCY_ID,
} from './notable-records.js';

export const DEFAULT_DEMO_SEED = 20260101;

export interface DemoBundleOptions {
  /** Number of projects (default 48). */
  projects?: number;
  /** PRNG seed (default DEFAULT_DEMO_SEED). */
  seed?: number;
  /**
   * Total facilities, spread evenly over the 8 categories (at least 30 each). Default: ~10 per project,
   * at least 40 per category. The geography is fixed, so facility density (and the importer's
   * project-facility links within FACILITY_LINK_RADIUS_M) grows with this number: lower it for big runs.
   */
  facilities?: number;
  /**
   * Percent of the projects priced in other currencies than AED (USD, EUR, GBP, RUB, INR, CNY, in turn);
   * default 0: only the demo's USD and EUR projects (3 in 48). For the bench's mixed-currency catalogue.
   */
  foreignCurrencyPercent?: number;
}

export function generateDemoBundle(options: DemoBundleOptions = {}): Bundle {
  const projectCount = Math.max(0, Math.floor(options.projects ?? DEFAULT_DEMO_PROJECTS));
  const rng = new Rng(options.seed ?? DEFAULT_DEMO_SEED);
  // Beyond the default size the catalogue spreads over the further communities too. The default demo
  // (and every catalogue up to its size) is unchanged by this, record for record.
  const scale = projectCount > DEFAULT_DEMO_PROJECTS;
  const areaList = scale ? ALL_AREAS : AREAS;

  const { files, addFile } = fileRegistry(rng);

  // Reference lists -------------------------------------------------------------------------------
  const refCreated = ts(-730);
  const areas: Row<'areas'>[] = areaList.map((a, i) => ({ id: i + 1, name: a.name, city: a.city, created_at: refCreated, updated_at: refCreated }));
  const unitTags: Row<'unit_tags'>[] = UNIT_TAGS.map((name, i) => ({ id: i + 1, name, created_at: refCreated, updated_at: refCreated }));
  const projectFeatures: Row<'project_features'>[] = PROJECT_FEATURES.map(([name, type], i) => ({ id: i + 1, name, type, created_at: refCreated, updated_at: refCreated }));

  // The stages draw from the one seeded stream in this order; reordering them changes the bundle.
  const companies = generateCompanies(rng, addFile);
  const { users, members, developerAuthors } = generateUsersAndMembers(rng, addFile);
  const contracts = generateContracts();
  const apiKeys = generateApiKeys();
  const { projects, infos } = generateProjects(rng, addFile, projectCount, scale, developerAuthors, options.foreignCurrencyPercent);
  const units = generateUnits(rng, addFile, infos, projectCount);
  const facilities = generateFacilities(rng, infos, areaList, projectCount, options.facilities);
  const { boardStages, offerStatuses, clients } = generateCrmRecords();

  return {
    files,
    areas,
    unit_tags: unitTags,
    project_features: projectFeatures,
    project_types: PROJECT_TYPES.map((name, i) => ({ id: i + 1, name })),
    development_statuses: DEVELOPMENT_STATUSES.map((name, id) => ({ id, name })),
    companies,
    users,
    company_members: members,
    contracts,
    api_keys: apiKeys,
    projects,
    units,
    facilities,
    currency_rates: generateCurrencyRates(),
    board_stages: boardStages,
    offer_statuses: offerStatuses,
    clients,
  };
}
