import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { openChangeSignal, type ChangeSignal } from '../../src/changes/change-signal.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { buildApp, type App, type BuildAppOptions } from '../../src/http/app.js';
import { detailCaches, type DetailCaches } from '../../src/details/detail-caches.js';
import { detailCacheBounds } from '../../src/details/detail-cache-budget.js';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/queries/api-key-admin.js';
import { linkBuilder } from '../../src/contract/links.js';
import { SearchModel } from '../../src/search/search-model.js';
import { createTestDatabase, type Driver } from './databases.js';
import { AGENCY, OWNER, type Bundle } from './fixtures.js';
import { openApiValidator } from './openapi.js';

export interface TestApp {
  app: App;
  db: Kysely<DB>;
  database: Database;
  config: Config;
  changes: ChangeSignal;
  /** The app's in-memory search, built after the bundle was imported. */
  search: SearchModel;
  /** The app's detail caches (DETAIL_CACHE_MB of `env`), to look into what they keep. */
  details: DetailCaches;
  /**
   * Rebuilds the search model from the database now. Catalogue writes signal it by themselves (the
   * model follows `changes`); tests call this where they want the rebuild finished before going on.
   */
  refresh(): Promise<void>;
  /** Issues a key for the fixture agency (or another one) and returns the secret. */
  key(options?: { companyId?: number; authorId?: number; priceVector?: number; domains?: string[]; privateApplications?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real app on a real, freshly migrated database (PGlite or PostgreSQL), loaded with `bundle`
 * through the importer. `env` overrides configuration variables (e.g. AMENITIEST_RADIUS).
 */
export async function createTestApp(
  driver: Driver,
  bundle?: Bundle,
  env: Record<string, string> = {},
  appOptions: Pick<BuildAppOptions, 'requestTimeoutMs'> = {},
): Promise<TestApp> {
  const { database, drop } = await createTestDatabase(driver);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  if (bundle) await importBundle(database.db, bundle, { facilityLinkRadiusM: config.facilityLinkRadiusM });
  const changes = await openChangeSignal(database);
  const search = await SearchModel.create(database.db, {
    links: linkBuilder(config.staticBaseUrl),
    changes,
    nearbyInMemory: config.nearbyInMemory,
    // As the service does (src/service/server.ts): on PostgreSQL the units are read beside the projects.
    concurrentReads: database.driver === 'postgres',
  });
  const details = detailCaches(database, linkBuilder(config.staticBaseUrl), detailCacheBounds(config.detailCacheMb));
  const app = await buildApp({ database, config, search, logger: false, changes, details, ...appOptions });
  await app.ready();
  return {
    app,
    db: database.db,
    database,
    config,
    changes,
    search,
    details,
    refresh: () => search.refresh(),
    async key(options = {}) {
      const { secret } = await createApiKey(database.db, {
        companyId: options.companyId ?? AGENCY,
        authorId: options.authorId ?? OWNER,
        name: 'test key',
        priceVector: options.priceVector,
        domains: options.domains,
        privateApplications: options.privateApplications,
      });
      return secret;
    },
    async close() {
      await app.close();
      await changes.close();
      await drop();
    },
  };
}

/** What useTestApp starts for a suite. */
export interface StartedApp {
  t: TestApp;
  /** A key of the fixture agency (with UseTestAppOptions.key). */
  key: string;
  /** Checks an answer against the OpenAPI document; only with `documented`, else it throws. */
  assertDocumented: Awaited<ReturnType<typeof openApiValidator>>;
}

export interface UseTestAppOptions {
  /** Configuration variables (e.g. AMENITIEST_RADIUS), as createTestApp's `env`. */
  env?: Record<string, string>;
  /** The options of the suite's key, as TestApp.key's. */
  key?: Parameters<TestApp['key']>[0];
  /** Also build the OpenAPI validator of the app's answers (it reads the whole document, so opt-in). */
  documented?: boolean;
}

/**
 * The set-up most HTTP suites share, in one place: before the suite, the real app on a fresh database
 * loaded with `bundle`, a key, and (opt-in) the OpenAPI validator, handed to `ready`; after it, the app
 * and its database closed. `ready` may set up more (a second key); a promise it returns is awaited.
 * Suites keep their own variables, e.g.
 *
 *   let t: TestApp;
 *   let key: string;
 *   useTestApp(driver, bundle, (started) => ({ t, key } = started));
 */
export function useTestApp(driver: Driver, bundle: Bundle | undefined, ready: (started: StartedApp) => unknown, options: UseTestAppOptions = {}): void {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await createTestApp(driver, bundle, options.env);
    const key = await t.key(options.key);
    const assertDocumented: StartedApp['assertDocumented'] = options.documented
      ? await openApiValidator(t.app)
      : () => {
          throw new Error('useTestApp: pass { documented: true } to check answers against the OpenAPI document');
        };
    await ready({ t, key, assertDocumented });
  });
  afterAll(() => t?.close());
}
