import { linkBuilder } from '../src/contract/links.js';
import { SearchModel } from '../src/search/search-model.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildApp, type App } from '../src/http/app.js';

export type OpenApiDocument = Record<string, any>;

/** The document exactly as the service publishes it at GET /openapi.json. */
export async function fetchOpenApiDocument(app: App): Promise<OpenApiDocument> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
  return response.json() as OpenApiDocument;
}

/**
 * Builds the app in-process on an empty in-memory database (migrated, so that anything the app reads
 * at start-up exists) with the default configuration, and returns its published OpenAPI document.
 * No server, no data: the document comes from the route schemas alone.
 */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    await migrateToLatest(database.db);
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const search = await SearchModel.create(database.db, { links: linkBuilder(config.staticBaseUrl) });
    const app = await buildApp({ database, config, search, logger: false });
    try {
      await app.ready();
      return await fetchOpenApiDocument(app);
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
