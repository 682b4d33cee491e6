import { EmbeddedDatabaseFailed } from './pglite-engine.js';
import { SlotWaitTimeout } from './pool-slots.js';

/*
 * Which failures mean "the database cannot be reached right now" rather than "this request hit a bug".
 * The difference matters to the caller: the first is answered 503 with Retry-After (the same request
 * will work once the database is back, and the pool reconnects by itself), the second 500.
 *
 * Mostly PostgreSQL (node-postgres) produces these. The embedded PGlite has no connection to lose;
 * when its engine is left unusable (a PANIC, e.g. a full disk, or its worker dying) every query fails
 * with EmbeddedDatabaseFailed until a new engine is open on the same directory (pglite-engine.ts),
 * which is the same condition: retry later.
 */

/** Socket-level failures while connecting to, or talking with, the server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/*
 * SQLSTATEs the server sends when it is going away or cannot take the session: class 08 (connection
 * exception), shutdown/restart (57P01..57P03) and too many connections (53300).
 */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/*
 * A full disk: the statement that needed space failed (PostgreSQL's disk_full, 53100, or the engine's
 * own "No space left on device"), nothing of it was written, and the same request works once space
 * is freed. Every write path answers it 503 with Retry-After, as an import's PANIC on the embedded
 * engine is (the engine is then reopened).
 */
const DISK_FULL_STATE = '53100';
const NO_SPACE = /no space left on device/i;

/*
 * node-postgres and pg-pool report lost or impossible connections with plain Errors and these
 * messages (no code): the socket closing mid-query, connectionTimeoutMillis, query_timeout, and a
 * client that already lost its connection being used again (e.g. Kysely's ROLLBACK after the loss).
 */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

export function isUnavailable(error: unknown): boolean {
  // Waiting too long for a pool slot is the same condition as waiting too long for a connection.
  if (error instanceof SlotWaitTimeout) return true;
  // The embedded engine broken by a PANIC, while a new one is opened (pglite-engine.ts).
  if (error instanceof EmbeddedDatabaseFailed) return true;
  return check(error, 0);
}

// AggregateError (several addresses tried) and `cause` chains are followed a few levels deep.
function check(error: unknown, depth: number): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_STATES.has(code) || code === DISK_FULL_STATE || code === 'ENOSPC' || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && (DRIVER_MESSAGES.some((pattern) => pattern.test(message)) || NO_SPACE.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => check(inner, depth + 1))) return true;
  return check(cause, depth + 1);
}
