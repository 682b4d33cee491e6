import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { ApplicationRejected } from '../domain/application-merge.js';
import { IDEMPOTENCY_TTL_HOURS } from '../domain/idempotency.js';

/*
 * The idempotency_keys rows behind the Idempotency-Key header of POST /units/{id}/applications: the
 * reservation, the replay of an earlier response, the sweep of expired rows and the storing of the
 * response. Everything runs inside the application's transaction, so it holds with any number of API
 * processes: the row is inserted first with ON CONFLICT DO NOTHING; a duplicate arriving while the first
 * request runs waits for it (up to IN_FLIGHT_WAIT_MS) and then replays its committed response.
 */

/** How long a duplicate Idempotency-Key waits for the request holding it before answering 409. */
export const IN_FLIGHT_WAIT_MS = 5_000;
/** Expired idempotency rows of the key removed per request, so the table does not grow for ever. */
const IDEMPOTENCY_SWEEP = 100;

/** A response committed earlier under the same key, to be answered again as it was. */
export interface StoredResponse {
  statusCode: number;
  response: unknown;
}

const expiredSql = sql<boolean>`created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

/**
 * Reserves (api key, Idempotency-Key) for this transaction, or answers from an earlier request. The
 * reservation commits with the business rows, so a stored row always carries its response; a row that
 * is not visible yet belongs to a request still running, and the insert waits for it.
 */
export async function reserveIdempotencyKey(
  trx: Transaction<DB>,
  apiKeyId: number,
  idempotency: { key: string; requestHash: string },
): Promise<StoredResponse | undefined> {
  const { rows } = await sql<{ lock_timeout: string }>`SELECT current_setting('lock_timeout') AS lock_timeout`.execute(trx);
  const previousLockTimeout = rows[0]?.lock_timeout ?? '0';
  await sql`SELECT set_config('lock_timeout', ${`${IN_FLIGHT_WAIT_MS}ms`}, true)`.execute(trx);

  try {
    // A row can vanish or expire between our statements; a few rounds always settle it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await trx
        .insertInto('idempotency_keys')
        .values({ api_key_id: apiKeyId, key: idempotency.key, request_hash: idempotency.requestHash })
        .onConflict((oc) => oc.columns(['api_key_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted) {
        await sql`SELECT set_config('lock_timeout', ${previousLockTimeout}, true)`.execute(trx);
        await sweepExpiredKeys(trx, apiKeyId, idempotency.key);
        return undefined;
      }

      const stored = await trx
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'status_code', 'response', expiredSql.as('expired')])
        .where('api_key_id', '=', apiKeyId)
        .where('key', '=', idempotency.key)
        .executeTakeFirst();
      if (!stored) continue;
      if (stored.expired) {
        await trx
          .deleteFrom('idempotency_keys')
          .where('api_key_id', '=', apiKeyId)
          .where('key', '=', idempotency.key)
          .where(expiredSql)
          .execute();
        continue;
      }
      if (stored.request_hash !== idempotency.requestHash) throw new ApplicationRejected({ code: 'idempotency_mismatch' });
      if (stored.status_code === null || stored.response === null) throw new ApplicationRejected({ code: 'idempotency_in_flight' });
      return { statusCode: stored.status_code, response: stored.response };
    }
    throw new Error('idempotency key reservation did not settle');
  } catch (error) {
    if (isLockTimeout(error)) throw new ApplicationRejected({ code: 'idempotency_in_flight' });
    throw error;
  }
}

/** Stores the response on the reserved row; it commits (and becomes replayable) with the transaction. */
export async function storeIdempotentResponse(
  trx: Transaction<DB>,
  apiKeyId: number,
  key: string,
  statusCode: number,
  response: unknown,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response: JSON.stringify(response) })
    .where('api_key_id', '=', apiKeyId)
    .where('key', '=', key)
    .execute();
}

/** Drops a few expired rows of this API key; rows another transaction holds are skipped, not waited for. */
async function sweepExpiredKeys(trx: Transaction<DB>, apiKeyId: number, currentKey: string): Promise<void> {
  await sql`
    DELETE FROM idempotency_keys
    WHERE (api_key_id, key) IN (
      SELECT api_key_id, key FROM idempotency_keys
      WHERE api_key_id = ${apiKeyId} AND key <> ${currentKey} AND ${expiredSql}
      LIMIT ${IDEMPOTENCY_SWEEP}
      FOR UPDATE SKIP LOCKED)`.execute(trx);
}

function isLockTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '55P03';
}
