import { sql, type Kysely } from 'kysely';

/*
 * WAL positions (LSNs): how far a replica has caught up with its primary.
 *
 * A transaction committed on the primary is visible on a streaming replica once the replica has
 * replayed the WAL up to the commit record. So "does this replica show what I just committed?" is
 * answered by comparing positions: pg_current_wal_insert_lsn() read on the primary after the commit
 * (at or past the commit record), against pg_last_wal_replay_lsn() on the replica. Replaying is done
 * in WAL order, so a replica at or past the position shows that commit and everything committed
 * before it. The insert position, not pg_current_wal_lsn() (the write position): with
 * synchronous_commit = off a commit returns while its record may still be in the WAL buffers, behind
 * the write position, and a replica would be taken for caught up too early (seen in the scale-out test).
 */

/** An LSN as PostgreSQL prints it ("16/B374D848"): two hex halves of a 64-bit byte position. */
export type Lsn = string;

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The byte position of an LSN, for arithmetic (lag in bytes) and comparison. */
export function lsnToBigInt(lsn: Lsn): bigint {
  const match = LSN.exec(lsn);
  if (!match) throw new Error(`not a WAL position: "${lsn}"`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** The primary's current WAL insert position; read it after a commit to know where that commit ends. */
export async function currentWalLsn(primary: Kysely<any>): Promise<Lsn> {
  const { rows } = await sql<{ lsn: Lsn }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(primary);
  return rows[0].lsn;
}

/** How far the server behind `db` shows the primary's WAL: a replica's replay position, a primary's write position. */
const shownLsn = sql`CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END`;

/** The position the server behind `db` shows (see shownLsn); null on a standby that has replayed nothing yet. */
export async function replayedLsn(db: Kysely<any>): Promise<Lsn | null> {
  const { rows } = await sql<{ lsn: Lsn | null }>`SELECT (${shownLsn})::text AS lsn`.execute(db);
  return rows[0].lsn;
}

/**
 * True when the server behind `db` shows everything committed up to `lsn`: a replica that has replayed
 * that far, or a server that is not in recovery (a primary, which has written it).
 */
export async function hasReplayed(db: Kysely<any>, lsn: Lsn): Promise<boolean> {
  const { rows } = await sql<{ replayed: boolean | null }>`SELECT ${shownLsn} >= ${lsn}::pg_lsn AS replayed`.execute(db);
  return rows[0].replayed === true;
}
