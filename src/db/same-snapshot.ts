import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * Starts `read` on another connection of `db`, in a REPEATABLE READ transaction that sees exactly what
 * `trx` sees (PostgreSQL's snapshot export: pg_export_snapshot, then SET TRANSACTION SNAPSHOT; standbys
 * export too). The export is valid while `trx` is open, which its caller's await of the read ensures.
 */
export async function inSnapshotOf<T>(trx: Kysely<DB>, db: Kysely<DB>, read: (other: Kysely<DB>) => Promise<T>): Promise<{ rows: Promise<T> }> {
  const { rows } = await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(trx);
  const id = rows[0].id;
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
