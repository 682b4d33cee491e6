import type { ChangeSignal } from '../changes/change-signal.js';
import type { Config } from '../config/config.js';
import type { LinkBuilder } from '../contract/links.js';
import type { Database } from '../db/database.js';
import type { Lifecycle } from './lifecycle.js';
import type { ApplicationIntake } from '../queries/application-intake.js';
import type { SearchModel } from '../search/search-model.js';
import type { DetailCaches } from '../details/detail-caches.js';
import type { CompanyContacts } from '../details/company-contacts.js';

/*
 * What the routes are given by the app (src/http/app.ts registers each route plugin with it). A module
 * of its own so that the routes do not import the app that imports them.
 */

/** What the routes need from the outside world. */
export interface AppDeps {
  database: Database;
  config: Config;
  links: LinkBuilder;
  /** The in-memory catalogue search (GET /projects, /projects/list, /companies). */
  search: SearchModel;
  /** Committed changes seen by this process (src/changes/); absent in tests that build a bare app. */
  changes?: ChangeSignal;
  /** The process's shutdown state: /health/ready answers 503 while it drains. */
  lifecycle: Lifecycle;
  /** What the detail routes keep per snapshot, within DETAIL_CACHE_MB (detail-caches.ts). */
  details: DetailCaches;
  /** GET /projects/{id}/contacts's answers, kept per developer until the next change (company-contacts.ts). */
  contacts: CompanyContacts;
  /** Applications, whichever door they come in by (REST or MCP): one set of write slots per process. */
  applications: ApplicationIntake;
}
