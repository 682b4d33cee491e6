import type { Kysely } from 'kysely';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { buildApp, type App } from '../../src/http/app.js';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/keys.js';
import { createTestDatabase, type Driver } from './databases.js';
import { AGENCY, OWNER, type Bundle } from './fixtures.js';

export interface TestApp {
  app: App;
  db: Kysely<DB>;
  database: Database;
  config: Config;
  /** Issues a key for the fixture agency (or another one) and returns the secret. */
  key(options?: { companyId?: number; authorId?: number; priceVector?: number; domains?: string[] }): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real app on a real, freshly migrated database (PGlite or PostgreSQL), loaded with `bundle`
 * through the importer. `env` overrides configuration variables (e.g. AMENITIEST_RADIUS).
 */
export async function createTestApp(driver: Driver, bundle?: Bundle, env: Record<string, string> = {}): Promise<TestApp> {
  const { database, drop } = await createTestDatabase(driver);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  if (bundle) await importBundle(database.db, bundle, { facilityLinkRadiusM: config.facilityLinkRadiusM });
  const app = await buildApp({ database, config, logger: false });
  await app.ready();
  return {
    app,
    db: database.db,
    database,
    config,
    async key(options = {}) {
      const { secret } = await createApiKey(database.db, {
        companyId: options.companyId ?? AGENCY,
        authorId: options.authorId ?? OWNER,
        name: 'test key',
        priceVector: options.priceVector,
        domains: options.domains,
      });
      return secret;
    },
    async close() {
      await app.close();
      await drop();
    },
  };
}
