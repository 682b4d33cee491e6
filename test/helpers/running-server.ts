import { loadConfig } from '../../src/config/config.js';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/queries/api-key-admin.js';
import { serveDatabase, type RunningServer } from '../../src/service/server.js';
import { createTestDatabase, type Driver } from './databases.js';
import { AGENCY, OWNER, type Bundle } from './fixtures.js';

export interface TestServer {
  server: RunningServer;
  /** Issues a key for the fixture agency and returns the secret. */
  key(): Promise<string>;
  /** Stops the server (if the test has not) and drops its database. */
  close(): Promise<void>;
}

/**
 * The whole service as `serve` starts it (listeners, metrics, shutdown; signals aside), on 127.0.0.1
 * port 0, on a fresh embedded database in memory or a fresh PostgreSQL database, loaded with `bundle`.
 */
export async function startTestServer(driver: Driver, bundle: Bundle, env: Record<string, string> = {}): Promise<TestServer> {
  // A migrated copy (PGlite) or database (PostgreSQL); the server closes it when it stops.
  const { database, drop } = await createTestDatabase(driver);
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
  const server = await serveDatabase(config, database);
  await importBundle(server.database.db, bundle, { facilityLinkRadiusM: config.facilityLinkRadiusM });
  await server.search.refresh();
  return {
    server,
    key: async () => (await createApiKey(server.database.db, { companyId: AGENCY, authorId: OWNER, name: 'test key' })).secret,
    async close() {
      await server.stop({ graceMs: 1_000 });
      await drop();
    },
  };
}
