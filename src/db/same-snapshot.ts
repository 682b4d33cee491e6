import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * Starts `read` on another connection of `db`, in a REPEATABLE READ transaction that sees exactly what
 * `trx` sees (PostgreSQL's snapshot export: pg_export_snapshot, then SET TRANSACTION SNAPSHOT; standbys
 * export from version 10 on). The export is valid while `trx` is open, which its caller's await of the
 * read ensures. The read's promise rejects when the second transaction cannot start (no
 * free connection within the pool's wait, or a connection that reached another server than `trx`'s):
 * the caller reads on `trx` instead.
 */
export async function inSnapshotOf<T>(trx: Kysely<DB>, db: Kysely<DB>, read: (other: Kysely<DB>) => Promise<T>): Promise<{ rows: Promise<T> }> {
  // Not in a savepoint: PostgreSQL exports no snapshot from a subtransaction. A failure here (a
  // standby before version 10) fails the build, and the previous snapshot stays in service.
  const id = (await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(trx)).rows[0].id;
  const started = db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (other) => {
      await sql`SET TRANSACTION SNAPSHOT ${sql.lit(id)}`.execute(other);
      return read(other);
    });
  // Awaited by the caller after its own read: a failure meanwhile is not left unhandled.
  started.catch(() => {});
  return { rows: started };
}
