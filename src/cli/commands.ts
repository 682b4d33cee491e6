import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, type Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { EmbeddedDatabaseFailed } from '../db/pglite-engine.js';
import { BundleError } from '../import/bundle-error.js';
import { createApiKey, parseDomainList, validateKeyFields } from '../queries/api-key-admin.js';
import type { CommandIo, CommandRunner } from '../management/socket.js';
import { KeyAdminError, listKeys, updateKey, type KeyListing } from '../queries/api-keys.js';
import { WebhookAdminError } from '../queries/webhook-endpoints.js';
import { integer, UsageError, type CliContext } from './cli-context.js';
import { addWebhookCommands } from './webhook-commands.js';

/* The data and key commands of `npm run catalogue -- <command>` (where they run: cli-context.ts). */
export { integer, UsageError, type CliContext } from './cli-context.js';

// EmbeddedDatabaseFailed: its message names the cause (e.g. a full disk) in one line.
const userErrors = [UsageError, ConfigError, BundleError, KeyAdminError, WebhookAdminError, EmbeddedDatabaseFailed];

const number = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} must be a number`);
  return parsed;
};

/** Printed by `keys create`/`keys update` when a key has domains but not --private-applications: one line, on stderr. */
export const PRIVATE_APPLICATIONS_ADVICE =
  'note: a key with a domain list sits in web pages, where anyone can apply with any phone number or e-mail; add --private-applications (keys update ID --private-applications) so that the answer never shows a stored client';

function keyLine(key: KeyListing): string {
  const domains = key.allowed_domains?.length ? key.allowed_domains.join(',') : '(any)';
  const state = key.deleted ? 'deleted' : key.status === 0 ? 'active' : 'revoked';
  const applications = key.private_applications ? 'private' : 'full';
  return `${key.id}\t${key.key_prefix}…\tcompany ${key.company_id}\tauthor ${key.author_id}\t${state}\tprice_vector ${key.price_vector}\tdomains ${domains}\tapplications ${applications}\t${key.name}`;
}

/** The program with the data and key commands; `main.ts` adds `start` and `serve` when run directly. */
export function buildCli(context: CliContext): Command {
  const { io, config, withDatabase } = context;
  const print = (line: string) => io.stdout(`${line}\n`);
  // Progress of a long import, on stderr so that stdout keeps only the summary.
  // A key with a domain list is made for web pages, where anyone can send an application.
  const adviseOnBrowserKey = (key: KeyListing) => {
    if (key.allowed_domains?.length && !key.private_applications) io.stderr(`${PRIVATE_APPLICATIONS_ADVICE}\n`);
  };
  const printStep = (step: string, ms: number) => io.stderr(`  ${step}: ${(ms / 1000).toFixed(1)} s\n`);

  // Set before the commands are added, so that they inherit it: nothing here calls process.exit.
  const program = new Command('catalogue')
    .description('Catalogue API: server, data import, API keys and webhooks')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(async () => {
      await withDatabase(async () => print('schema is up to date'));
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
        bundle = JSON.parse(await readFile(resolve(context.cwd, path), 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
      }
      // Loaded by the commands that import only (~0.5 s of every command's start-up otherwise).
      const { importBundle } = await import('../import/import-bundle.js');
      await withDatabase(async ({ db }) => {
        const summary = await importBundle(db, bundle, {
          facilityLinkRadiusM: cfg.facilityLinkRadiusM,
          onProgress: options.verbose ? printStep : undefined,
          onWarning: (line) => io.stderr(`${line}\n`),
        });
        print(`imported ${path}: ${Object.entries(summary).map(([section, count]) => `${section} ${count}`).join(', ')}`);
      });
    });

  program
    .command('seed-demo')
    .description('import the generated demo catalogue (idempotent) and create a demo key')
    .option('--projects <n>', 'number of projects to generate', integer('--projects'))
    .option('--facilities <n>', 'number of facilities to generate (default: 10 per project)', integer('--facilities'))
    .option('--foreign-currencies <percent>', 'percent of the projects priced in currencies other than AED (default: the demo\'s 3 in 48)', integer('--foreign-currencies'))
    .option('--no-key', 'do not create a demo API key')
    .option('--verbose', 'print the duration of every import step')
    .action(async (options: { projects?: number; facilities?: number; foreignCurrencies?: number; key: boolean; verbose?: boolean }) => {
      const cfg = config();
      const { createDemoKey, seedDemo } = await import('../demo/seed-demo.js');
      await withDatabase(async ({ db }) => {
        const started = Date.now();
        const summary = await seedDemo(db, {
          facilityLinkRadiusM: cfg.facilityLinkRadiusM,
          projects: options.projects,
          facilities: options.facilities,
          foreignCurrencyPercent: options.foreignCurrencies,
          onProgress: options.verbose ? printStep : undefined,
        });
        print(`demo catalogue imported in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(summary).map(([s, c]) => `${s} ${c}`).join(', ')}`);
        if (options.key) print(`demo API key (shown once): ${await createDemoKey(db)}`);
      });
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('issue a key; the secret is printed once and only its SHA-256 is stored')
    // Commander lists required options like the others: the usage line and "(required)" say which.
    .usage('--company ID --author USER_ID --name LABEL [options]')
    .requiredOption('--company <id>', 'agency company id (required)', integer('--company'))
    .requiredOption('--author <userId>', 'issuing user, a member of the agency (required)', integer('--author'))
    .requiredOption('--name <label>', 'label of the integration (required)')
    .option('--price-vector <pct>', 'markup (+) or discount (-) in percent, > -100 and <= 100', number('--price-vector'))
    .option('--domains <list>', 'comma-separated hosts allowed as Origin/Referer')
    .option('--private-applications', 'application responses show only what the request sent and the unit derived, never a stored client (for keys in web pages)')
    .action(async (options: { company: number; author: number; name: string; priceVector?: number; domains?: string; privateApplications?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const { secret, key } = await createApiKey(db, {
          companyId: options.company,
          authorId: options.author,
          name: options.name,
          priceVector: options.priceVector,
          domains: options.domains === undefined ? null : parseDomainList(options.domains),
          privateApplications: options.privateApplications === true,
        });
        print(keyLine(key));
        adviseOnBrowserKey(key);
        print(`\nSecret (shown once; it cannot be recovered, only revoked and replaced):\n${secret}`);
      });
    });

  keys
    .command('list')
    .description('list keys (prefix only, never the secret)')
    .option('--company <id>', 'only this company', integer('--company'))
    .action(async (options: { company?: number }) => {
      await withDatabase(async ({ db }) => {
        const rows = await listKeys(db, options.company);
        if (rows.length === 0) print('no keys');
        for (const row of rows) print(keyLine(row));
      });
    });

  keys
    .command('update')
    .description('change name, price vector, domains, private applications or status')
    .argument('<id>', 'key id', integer('id'))
    .option('--name <label>', 'new label')
    .option('--price-vector <pct>', 'new price vector', number('--price-vector'))
    .option('--domains <list>', 'new comma-separated domain list ("" removes the restriction)')
    .option('--private-applications', 'application responses show only what the request sent and the unit derived')
    .option('--no-private-applications', 'application responses are the specified ones (with the stored client)')
    .option('--status <status>', '0 active, 1 revoked', (value: string) => {
      if (value !== '0' && value !== '1') throw new InvalidArgumentError('--status must be 0 or 1');
      return Number(value);
    })
    .action(async (id: number, options: { name?: string; priceVector?: number; domains?: string; privateApplications?: boolean; status?: number }) => {
      const changes = {
        name: options.name,
        priceVector: options.priceVector,
        domains: options.domains === undefined ? undefined : parseDomainList(options.domains),
        privateApplications: options.privateApplications,
        status: options.status,
      };
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new UsageError('nothing to update: give --name, --price-vector, --domains, --[no-]private-applications or --status');
      }
      validateKeyFields(changes);
      await withDatabase(async ({ db }) => {
        const key = await updateKey(db, id, changes);
        if (!key) throw new UsageError(`key ${id} does not exist`);
        print(keyLine(key));
        adviseOnBrowserKey(key);
      });
    });

  keys
    .command('revoke')
    .description('revoke a key: it answers 401 invalid api key from then on')
    .argument('<id>', 'key id', integer('id'))
    .action(async (id: number) => {
      await withDatabase(async ({ db }) => {
        const key = await updateKey(db, id, { status: 1 });
        if (!key) throw new UsageError(`key ${id} does not exist`);
        print(keyLine(key));
      });
    });

  addWebhookCommands(program, context);
  return program;
}

/**
 * Runs `argv` (the words after `catalogue`) on `program` and returns the exit code: 0, or 1 after a
 * one-line message for a user's error (a stack for a bug), or commander's own code (help, bad option).
 * `passThrough` errors are rethrown: the caller hands the command to the serving process.
 */
export async function runCli(program: Command, argv: string[], io: CommandIo, passThrough?: (error: unknown) => boolean): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (passThrough?.(error)) throw error;
    if (error instanceof CommanderError) return error.exitCode;
    if (userErrors.some((type) => error instanceof type)) io.stderr(`error: ${(error as Error).message}\n`);
    else io.stderr(`${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

/** How the serving process runs a command passed through its management socket: on its own database. */
export function servedCommands(config: () => Config): (database: Database) => CommandRunner {
  return (database) => (request, io) => {
    const context: CliContext = {
      config,
      io,
      cwd: request.cwd,
      async withDatabase(work) {
        await migrateToLatest(database.db);
        return work(database);
      },
    };
    return runCli(buildCli(context), request.argv, io);
  };
}
