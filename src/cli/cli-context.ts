import { InvalidArgumentError } from 'commander';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { CommandIo } from '../management/socket.js';

/*
 * What every command group of `npm run catalogue -- <command>` is given (commands.ts, webhook-commands.ts).
 * The commands run in one of two places, with the same output and exit codes: in the CLI's own
 * process on a database it opens (PostgreSQL, or an embedded directory nobody serves), or, when the
 * service holds the embedded directory, inside the service on its database (src/management/socket.ts).
 * What differs is given by the context.
 */
export interface CliContext {
  config: () => Config;
  io: CommandIo;
  /** The directory relative paths are resolved against (the caller's, also when passed through). */
  cwd: string;
  /** Runs `work` on the database, migrated; opened for the command or the serving process's own. */
  withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T>;
}

/** Errors a user can fix: one line, exit 1. Anything else is a bug and prints its stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return Number(value);
};
