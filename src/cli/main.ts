#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { catalogueIsEmpty, createDemoKey, seedDemo } from '../demo/seed-demo.js';
import { BundleError, importBundle } from '../import/import-bundle.js';
import { createApiKey, parseDomainList, validateKeyFields } from '../keys.js';
import { KeyAdminError, listKeys, updateKey, type KeyListing } from '../queries/api-keys.js';
import { startServer, stopOnSignals } from '../server.js';

/*
 * `npm run catalogue -- <command>`: the operator's entry point. Errors a user can fix print one line
 * and exit 1; anything else is a bug and prints its stack.
 */
class UsageError extends Error {}

const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return Number(value);
};
const number = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} must be a number`);
  return parsed;
};

/** Progress of a long import, on stderr so that stdout keeps only the summary. */
const printStep = (step: string, ms: number) => console.error(`  ${step}: ${(ms / 1000).toFixed(1)} s`);

async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

function printKey(key: KeyListing): void {
  const domains = key.allowed_domains?.length ? key.allowed_domains.join(',') : '(any)';
  const state = key.deleted ? 'deleted' : key.status === 0 ? 'active' : 'revoked';
  console.log(`${key.id}\t${key.key_prefix}…\tcompany ${key.company_id}\tauthor ${key.author_id}\t${state}\tprice_vector ${key.price_vector}\tdomains ${domains}\t${key.name}`);
}

function curlHint(url: string, secret: string): string {
  return [
    `  API key (shown once, keep it): ${secret}`,
    '',
    '  Try it:',
    `    curl -s -H 'X-API-Key: ${secret}' ${url}/whoIAm`,
    `    curl -s -H 'X-API-Key: ${secret}' '${url}/projects?bedrooms=2&price_max=3000000&limit=5'`,
    '',
    `  Docs: ${url}/docs   OpenAPI: ${url}/openapi.yaml`,
  ].join('\n');
}

export function buildCli(): Command {
  const program = new Command('catalogue').description('Catalogue API: server, data import and API keys').showHelpAfterError();
  const config = () => loadConfig();

  program
    .command('start')
    .description('migrate, load the demo catalogue when the catalogue is empty, and serve (npm start)')
    .action(async () => {
      const cfg = config();
      let demoKey: string | undefined;
      const server = await startServer(cfg, async ({ db }) => {
        if (await catalogueIsEmpty(db)) {
          console.log('Empty catalogue: loading the demo catalogue…');
          const summary = await seedDemo(db, { facilityLinkRadiusM: cfg.facilityLinkRadiusM });
          console.log(`Demo catalogue loaded: ${summary.projects ?? 0} projects, ${summary.units ?? 0} units, ${summary.facilities ?? 0} facilities.`);
          demoKey = await createDemoKey(db);
        }
      });
      stopOnSignals(server);
      console.log(`\nCatalogue API listening on ${server.url} (${server.database.driver}${cfg.databaseUrl ? '' : `, data in ${cfg.dataDir}`})`);
      if (demoKey) console.log(curlHint(server.url, demoKey));
      else console.log(`  Create a key: npm run catalogue -- keys create --company <agency id> --author <user id> --name "My website"\n  Docs: ${server.url}/docs`);
    });

  program
    .command('serve')
    .description('migrate and serve; never loads data')
    .action(async () => {
      const server = await startServer(config());
      stopOnSignals(server);
      console.log(`Catalogue API listening on ${server.url}`);
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(async () => {
      await withDatabase(config(), async () => console.log('schema is up to date'));
    });

  program
    .command('import')
    .description('import a catalogue bundle (JSON) in one transaction')
    .argument('<bundle>', 'path to the bundle JSON file')
    .option('--verbose', 'print the duration of every import step')
    .action(async (path: string, options: { verbose?: boolean }) => {
      const cfg = config();
      let bundle: unknown;
      try {
        bundle = JSON.parse(await readFile(path, 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
      }
      await withDatabase(cfg, async ({ db }) => {
        const summary = await importBundle(db, bundle, { facilityLinkRadiusM: cfg.facilityLinkRadiusM, onProgress: options.verbose ? printStep : undefined });
        console.log(`imported ${path}: ${Object.entries(summary).map(([section, count]) => `${section} ${count}`).join(', ')}`);
      });
    });

  program
    .command('seed-demo')
    .description('import the generated demo catalogue (idempotent) and create a demo key')
    .option('--projects <n>', 'number of projects to generate', integer('--projects'))
    .option('--facilities <n>', 'number of facilities to generate (default: 10 per project)', integer('--facilities'))
    .option('--no-key', 'do not create a demo API key')
    .option('--verbose', 'print the duration of every import step')
    .action(async (options: { projects?: number; facilities?: number; key: boolean; verbose?: boolean }) => {
      const cfg = config();
      await withDatabase(cfg, async ({ db }) => {
        const started = Date.now();
        const summary = await seedDemo(db, {
          facilityLinkRadiusM: cfg.facilityLinkRadiusM,
          projects: options.projects,
          facilities: options.facilities,
          onProgress: options.verbose ? printStep : undefined,
        });
        console.log(`demo catalogue imported in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(summary).map(([s, c]) => `${s} ${c}`).join(', ')}`);
        if (options.key) console.log(`demo API key (shown once): ${await createDemoKey(db)}`);
      });
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('issue a key; the secret is printed once and only its SHA-256 is stored')
    .requiredOption('--company <id>', 'agency company id', integer('--company'))
    .requiredOption('--author <userId>', 'issuing user (a member of the agency)', integer('--author'))
    .requiredOption('--name <label>', 'label of the integration')
    .option('--price-vector <pct>', 'markup (+) or discount (-) in percent, > -100 and <= 100', number('--price-vector'))
    .option('--domains <list>', 'comma-separated hosts allowed as Origin/Referer')
    .action(async (options: { company: number; author: number; name: string; priceVector?: number; domains?: string }) => {
      await withDatabase(config(), async ({ db }) => {
        const { secret, key } = await createApiKey(db, {
          companyId: options.company,
          authorId: options.author,
          name: options.name,
          priceVector: options.priceVector,
          domains: options.domains === undefined ? null : parseDomainList(options.domains),
        });
        printKey(key);
        console.log(`\nSecret (shown once; it cannot be recovered, only revoked and replaced):\n${secret}`);
      });
    });

  keys
    .command('list')
    .description('list keys (prefix only, never the secret)')
    .option('--company <id>', 'only this company', integer('--company'))
    .action(async (options: { company?: number }) => {
      await withDatabase(config(), async ({ db }) => {
        const rows = await listKeys(db, options.company);
        if (rows.length === 0) console.log('no keys');
        rows.forEach(printKey);
      });
    });

  keys
    .command('update')
    .description('change name, price vector, domains or status')
    .argument('<id>', 'key id', integer('id'))
    .option('--name <label>', 'new label')
    .option('--price-vector <pct>', 'new price vector', number('--price-vector'))
    .option('--domains <list>', 'new comma-separated domain list ("" removes the restriction)')
    .option('--status <status>', '0 active, 1 revoked', (value: string) => {
      if (value !== '0' && value !== '1') throw new InvalidArgumentError('--status must be 0 or 1');
      return Number(value);
    })
    .action(async (id: number, options: { name?: string; priceVector?: number; domains?: string; status?: number }) => {
      const changes = {
        name: options.name,
        priceVector: options.priceVector,
        domains: options.domains === undefined ? undefined : parseDomainList(options.domains),
        status: options.status,
      };
      if (Object.values(changes).every((value) => value === undefined)) throw new UsageError('nothing to update: give --name, --price-vector, --domains or --status');
      validateKeyFields(changes);
      await withDatabase(config(), async ({ db }) => {
        const key = await updateKey(db, id, changes);
        if (!key) throw new UsageError(`key ${id} does not exist`);
        printKey(key);
      });
    });

  keys
    .command('revoke')
    .description('revoke a key: it answers 401 invalid api key from then on')
    .argument('<id>', 'key id', integer('id'))
    .action(async (id: number) => {
      await withDatabase(config(), async ({ db }) => {
        const key = await updateKey(db, id, { status: 1 });
        if (!key) throw new UsageError(`key ${id} does not exist`);
        printKey(key);
      });
    });

  return program;
}

const userErrors = [UsageError, ConfigError, BundleError, KeyAdminError];

buildCli()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (userErrors.some((type) => error instanceof type)) console.error(`error: ${(error as Error).message}`);
    else console.error(error);
    process.exit(1);
  });
