import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { importDuration } from '../metrics/instruments.js';
import { BundleError, inSection } from './bundle-error.js';
import { SECTIONS, type SectionName } from './bundle-schema.js';
import { projectCurrenciesWithoutRate } from '../queries/currency-rates.js';
import { checkBundle, keyDomainWarnings } from './check-bundle.js';
import type { RelinkStrategy } from './facility-links.js';
import { recordCatalogueEvents } from '../queries/webhook-events.js';
import { relinkAndTouch } from './relink-and-touch.js';
import { stepTimer, type ProgressReport } from './step-timer.js';
import { validateBundle } from './validate-bundle.js';
import { writeSections } from './write-sections.js';

export { BundleError } from './bundle-error.js';
export { validateBundle } from './validate-bundle.js';

/*
 * The catalogue bundle importer (contract: ../shared/spec/catalogue-bundle.md, summary: docs/bundle.md).
 *
 *   1. The bundle is validated against BundleSchema; the first problem becomes a BundleError naming
 *      section, index and field (validate-bundle.ts).
 *   2. In one transaction: duplicate keys, references (bundle + database) and unique rules are checked
 *      before anything is written, so errors name the record rather than a constraint (check-bundle.ts).
 *   3. Sections are written in dependency order with multi-row upserts (write-sections.ts; upsert.ts
 *      states what an omitted field or timestamp means), link lists are replaced, and the
 *      project-facility links of everything touched are recomputed (relink-and-touch.ts).
 *
 * This file runs those steps: the transaction, the progress report and the summary.
 */

export type ImportSummary = { [S in SectionName]?: number } & { facility_links: number };

export interface ImportOptions {
  /** Metres: a project is linked to every facility within this distance. */
  facilityLinkRadiusM: number;
  /** How the facility links are recomputed; by default chosen by the size of the import. */
  relinkStrategy?: RelinkStrategy;
  /** Called after each step (validation, checks, every section, facility links) with its duration. */
  onProgress?: ProgressReport;
  /** Called with one line when, after the import, live projects are priced in currencies without a rate. */
  onWarning?: (line: string) => void;
}

export async function importBundle(db: Kysely<DB>, bundle: unknown, options: ImportOptions): Promise<ImportSummary> {
  const done = importDuration.startTimer();
  try {
    const summary = await importAndVacuum(db, bundle, options);
    done({ outcome: 'success' });
    return summary;
  } catch (error) {
    done({ outcome: error instanceof BundleError ? 'invalid' : 'failed' });
    throw error;
  }
}

async function importAndVacuum(db: Kysely<DB>, bundle: unknown, options: ImportOptions): Promise<ImportSummary> {
  const step = stepTimer(options.onProgress);
  const valid = step('validate', () => validateBundle(bundle));
  const result = await db.transaction().execute(async (trx) => {
    // First: the import takes its catalogue version (migration 0007), which also queues it behind any
    // other catalogue writer, so versions follow commit order. The change signal goes out at commit.
    await sql`SELECT note_catalogue_change()`.execute(trx);
    await step('check references', () => checkBundle(trx, valid));
    const written = await writeSections(trx, valid, step);
    const links = await step('facility links', () =>
      inSection('facility links', [], () =>
        relinkAndTouch(trx, {
          projectIds: written.projectIds,
          facilityIds: written.facilityIds,
          radiusM: options.facilityLinkRadiusM,
          strategy: options.relinkStrategy,
        }),
      ),
    );
    if (options.onWarning) {
      for (const line of keyDomainWarnings(valid)) options.onWarning(line);
      const unrated = await projectCurrenciesWithoutRate(trx);
      if (unrated.length > 0) options.onWarning(unratedWarning(unrated));
    }
    // Last, so that they see every write: the webhook events of this import commit with it (or not at all).
    await step('webhook events', () => recordCatalogueEvents(trx));
    const summary: ImportSummary = { facility_links: 0 };
    for (const section of SECTIONS) {
      const list = valid[section];
      if (list) summary[section] = list.length;
    }
    // Listed last (object key order is what the CLI prints).
    delete (summary as Partial<ImportSummary>).facility_links;
    summary.facility_links = links;
    return summary;
  });
  const written = Object.values(result).reduce((sum, count) => sum + (count ?? 0), 0);
  if (written > VACUUM_THRESHOLD) {
    // After a bulk load the visibility map is empty, so "index-only" scans still visit every heap
    // page (measured: the near_* and unit filters of GET /projects ran 2x slower until a VACUUM), and
    // the statistics still describe the tables before the load. VACUUM cannot run inside the import
    // transaction; if it fails the data is committed all the same and autovacuum catches up later.
    await step('vacuum', () => sql`VACUUM (ANALYZE) projects, units, unit_tag_links, project_facilities, facilities`.execute(db)).catch(() => {});
  }
  return result;
}

/** One line: which currencies, how many projects each, and what it means for them. */
export function unratedWarning(unrated: { currency: string; projects: number }[]): string {
  const list = unrated.map(({ currency, projects }) => `${currency} (${projects} project${Number(projects) === 1 ? '' : 's'})`).join(', ');
  return `warning: no exchange rate for ${list}: their prices are not converted (currency_rates section)`;
}

/** Rows written above which the import vacuums the catalogue tables after committing. */
const VACUUM_THRESHOLD = 10_000;
