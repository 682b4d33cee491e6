#!/usr/bin/env node
import { loadConfig, type Config } from '../config/config.js';
import { DataDirInUseError, type LockOwner } from '../db/data-dir-lock.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { ManagementUnavailableError, sendCommand, type CommandIo } from '../management/socket.js';
import type { RunningServer } from '../service/server.js';
import { buildCli, runCli, servedCommands, UsageError, type CliContext } from './commands.js';

/*
 * `npm run catalogue -- <command>`: the operator's entry point. The data and key commands open the
 * database themselves; when the service already holds the embedded data directory, they are passed
 * to it (src/management/socket.ts) and print what they would have printed here.
 */
const io: CommandIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
/** What `start` and `serve` print for people goes to stderr: their stdout is the JSON log lines. */
const banner = (text: string) => process.stderr.write(`${text}\n`);
const config = () => loadConfig();

function curlHint(url: string, secret: string): string {
  return [
    `  API key (shown once, keep it): ${secret}`,
    '',
    '  Try it:',
    `    curl -s -H 'X-API-Key: ${secret}' ${url}/whoIAm`,
    `    curl -s -H 'X-API-Key: ${secret}' '${url}/projects?bedrooms=2&price_max=3000000&limit=5'`,
    '',
    '  Applications sent with this key get the private answer (what the request sent, never a stored client),',
    '  as a key in a web page should; keys update ID --no-private-applications gives the full one.',
    '',
    `  Docs: ${url}/docs   OpenAPI: ${url}/openapi.yaml`,
  ].join('\n');
}

const directContext: CliContext = {
  config,
  io,
  cwd: process.cwd(),
  async withDatabase(work) {
    const cfg = config();
    // Administration, not requests: an import of a large catalogue may run queries of minutes.
    const database = await openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir, queryTimeoutMs: null });
    try {
      await migrateToLatest(database.db);
      return await work(database);
    } finally {
      await database.close();
    }
  },
};

const inUse = (dataDir: string, owner: LockOwner) =>
  `the data directory ${dataDir} is in use by the catalogue service (process ${owner.pid}, since ${owner.since}): ` +
  'stop it first, or serve from PostgreSQL with DATABASE_URL';

/** `start` and `serve`, then their management socket on an embedded directory. */
async function serve(cfg: Config, loadDemo: boolean): Promise<RunningServer> {
  let demoKey: string | undefined;
  let server: RunningServer;
  // Loaded by the commands that serve only: the HTTP app is half of a data command's start-up (~1.1 s of ~4.3 s).
  const { startServer, stopOnSignals } = await import('../service/server.js');
  const { catalogueIsEmpty, createDemoKey, seedDemo } = await import('../demo/seed-demo.js');
  try {
    server = await startServer(cfg, {
      beforeListen: loadDemo
        ? async ({ db }) => {
            if (!(await catalogueIsEmpty(db))) return;
            banner('Empty catalogue: loading the demo catalogue…');
            const summary = await seedDemo(db, { facilityLinkRadiusM: cfg.facilityLinkRadiusM });
            banner(`Demo catalogue loaded: ${summary.projects ?? 0} projects, ${summary.units ?? 0} units, ${summary.facilities ?? 0} facilities.`);
            demoKey = await createDemoKey(db);
          }
        : undefined,
      // Commands passed through by `catalogue <command>` run here, on this process's database.
      runCommand: servedCommands(config),
    });
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new UsageError(inUse(cfg.dataDir, error.owner));
    throw error;
  }
  stopOnSignals(server);
  if (!loadDemo) {
    banner(`Catalogue API listening on ${server.url}${server.metricsUrl ? ` (metrics: ${server.metricsUrl})` : ''}`);
    return server;
  }
  banner(`\nCatalogue API listening on ${server.url} (${server.database.driver}${cfg.databaseUrl ? '' : `, data in ${cfg.dataDir}`})`);
  if (demoKey) banner(curlHint(server.url, demoKey));
  else banner(`  Create a key: npm run catalogue -- keys create --company <agency id> --author <user id> --name "My website"\n  Docs: ${server.url}/docs`);
  return server;
}

const program = buildCli(directContext);
program
  .command('start')
  .description('migrate, load the demo catalogue when the catalogue is empty, and serve (npm start)')
  .action(async () => void (await serve(config(), true)));
program
  .command('serve')
  .description('migrate and serve; never loads data')
  .action(async () => void (await serve(config(), false)));

program
  .command('mcp')
  .description('MCP server on stdio for desktop assistants, passing every message to a running service\'s /mcp with an API key')
  .option('--base-url <url>', 'where the service is reached (env CATALOGUE_BASE_URL)', process.env.CATALOGUE_BASE_URL ?? 'http://localhost:8080')
  .option('--key <key>', 'the agency API key (env CATALOGUE_API_KEY, which keeps it out of process lists)')
  .action(async (options: { baseUrl: string; key?: string }) => {
    const apiKey = options.key ?? process.env.CATALOGUE_API_KEY;
    if (!apiKey) throw new UsageError('mcp needs an API key: --key or CATALOGUE_API_KEY');
    const { runStdioProxy } = await import('../http/mcp/stdio-proxy.js');
    try {
      const proxy = await runStdioProxy({ baseUrl: options.baseUrl, apiKey });
      // The assistant closes stdin to stop its server.
      process.stdin.once('end', () => void proxy.close().finally(() => process.exit(0)));
    } catch (error) {
      // stdout is the protocol channel: the reason goes to stderr, as one line.
      throw new UsageError(`mcp: cannot reach ${options.baseUrl}/mcp: ${error instanceof Error ? error.message : String(error)}`);
    }
  });

const argv = process.argv.slice(2);
const passThrough = (error: unknown) => error instanceof DataDirInUseError;

runCli(program, argv, io, passThrough)
  .catch(async (error: unknown) => {
    // The directory is served: the command runs in the service, which prints what it would print here.
    const owner = (error as DataDirInUseError).owner;
    const dataDir = (error as DataDirInUseError).dataDir;
    try {
      // Said once it runs there: the service finishes it (an import commits) whatever becomes of this CLI.
      const handedOver = () =>
        io.stderr(`note: the command runs in the catalogue service (process ${owner.pid}) that holds ${dataDir}; interrupting this CLI will not stop it\n`);
      return await sendCommand(dataDir, { argv, cwd: process.cwd() }, io, handedOver);
    } catch (failure) {
      if (!(failure instanceof ManagementUnavailableError)) throw failure;
      io.stderr(
        `error: the data directory ${dataDir} is in use by process ${owner.pid}, which does not take commands (${failure.message}): ` +
          'wait until it has started and try again, or stop it\n',
      );
      return 1;
    }
  })
  .then(
    (code) => {
      // Serving keeps the process alive; every other command ends here.
      if (code !== 0 || !['start', 'serve', 'mcp'].includes(argv[0] ?? '')) process.exitCode = code;
      if (code !== 0) process.exit(code);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
