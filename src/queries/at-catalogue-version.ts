import type { Kysely } from 'kysely';
import { readConsistently, type Database } from '../db/database.js';
import type { DB } from '../db/schema.js';

/**
 * `read` in one REPEATABLE READ transaction that first reads the catalogue version (it fixes the
 * transaction's snapshot, as the search snapshot is read), on a replica in service when there are.
 * A caller keeps what it read with a search snapshot only when `version` is the snapshot's.
 */
export function readAtCatalogueVersion<T>(database: Database, read: (trx: Kysely<DB>) => Promise<T>): Promise<{ version: number; value: T }> {
  return readConsistently(database, (db) =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const state = await trx.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirst();
        return { version: state?.version ?? 0, value: await read(trx) };
      }),
  );
}
