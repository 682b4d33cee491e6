import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { encodeCursor, RANK, type ChangesCursor, type Rank } from '../domain/changes-cursor.js';
import type { ChangesPage } from '../contract/schemas/changes.js';
import { contractOpensSql, projectPublishedSql } from './visibility.js';

/*
 * GET /changes: one page of what changed for an agency's key, in ONE statement, so that the entries,
 * their visibility and the catalogue version come from one snapshot (even under READ COMMITTED).
 *
 * Every project and unit has an effective version: the latest catalogue version (migrations 0007,
 * 0008) of anything its response shows.
 *   project: greatest(project, developer company, the agency's contract with it, area)
 *   live unit: greatest(unit, its project's effective version): GET /units/{id} embeds the project,
 *     and a project that becomes visible again must bring its units back
 *   deleted unit: the unit's own (it was listed as removed once; its project's later changes do not concern it)
 * Entries are ordered by (effective version, projects before units, id). Versions are handed out in
 * commit order and the page reads catalogue_state.version in the same snapshot, so anything committed
 * after the page has a higher version than any position the page returns: it is listed later, never
 * skipped; an entity that changes again after being listed comes back with its new version.
 *
 * Only developers with which the agency has or had a contract row (or whose contract row was
 * deleted: a tombstone) are considered, so ids of unrelated developers' projects never appear.
 *
 * `removed` names only what the key could see at the cursor's position (issue 20): a draft, a project
 * of a developer whose contract is pending, a unit created and deleted since, are never named. `seen`
 * says whether the record may have been visible at the cursor's position, from the stamps of migration
 * 0009 (when it was created; when what decides its visibility last changed): it existed by then, and
 * every condition it fails now changed after what the client has read. A mirror holds exactly what was visible at its
 * position, so it is told of every removal it must apply, and of nothing it never held.
 * Units of a project the key cannot see are left to that project's `removed` entry, unless the unit
 * itself changed after the project (e.g. it moved there from a visible project).
 */

export interface ChangesRequest {
  agencyId: number;
  /** Undefined: from the beginning, only what is visible now. */
  cursor: ChangesCursor | undefined;
  limit: number;
}

interface EntryRow {
  catalogue_version: number;
  horizon: number;
  kind_rank: Rank | null;
  id: number | null;
  project_id: number | null;
  version: number | null;
  changed_at: string | null;
  visible: boolean | null;
}

export interface ChangesRead {
  catalogueVersion: number;
  /** The oldest version a cursor may stand at (migration 0008). */
  horizon: number;
  /** Up to limit + 1 entries: the one past the limit tells that there are more. */
  entries: { rank: Rank; id: number; projectId: number | null; version: number; changedAt: string; visible: boolean }[];
}

export async function readChanges(db: Kysely<DB>, { agencyId, cursor, limit }: ChangesRequest): Promise<ChangesRead> {
  const from = cursor?.version ?? 0;
  const after = cursor ? [cursor.version, cursor.rank, cursor.id] : [0, -1, 0];
  const through = cursor?.visibleOnlyThrough ?? null;
  // The client knows the state through `from`, and, at the end of a version, that version's own changes:
  // a visibility change from `changedFrom` on may hide what it holds (anything created by `from` may be held).
  const changedFrom = cursor && cursor.rank === RANK.end ? cursor.version + 1 : from;
  const { rows } = await sql<EntryRow>`
    WITH state AS (
      SELECT version, feed_horizon FROM catalogue_state WHERE id = 1
    ), dev AS (
      SELECT ct.developer_id AS id, ${contractOpensSql('ct', 'd')} AS contracted,
             greatest(ct.changed_version, d.changed_version) AS version, greatest(ct.changed_at, d.changed_at) AS changed_at,
             ct.created_version <= ${from}::bigint AND (${contractOpensSql('ct', 'd')} OR ct.opens_version >= ${changedFrom}::bigint) AS seen
        FROM contracts ct JOIN companies d ON d.id = ct.developer_id
       WHERE ct.agency_id = ${agencyId}::int
      UNION ALL
      -- A contract row deleted since the position may have opened the developer then.
      SELECT t.id, false, t.changed_version, t.changed_at, t.changed_version >= ${changedFrom}::bigint
        FROM change_tombstones t
       WHERE t.entity = 'contract' AND t.agency_id = ${agencyId}::int
         AND NOT EXISTS (SELECT 1 FROM contracts ct WHERE ct.agency_id = t.agency_id AND ct.developer_id = t.id)
    ), proj AS (
      SELECT p.id,
             greatest(p.changed_version, dev.version, a.changed_version) AS version,
             greatest(p.changed_at, dev.changed_at, a.changed_at) AS changed_at,
             dev.contracted AND ${projectPublishedSql('p')} AS visible,
             dev.seen AND p.created_version <= ${from}::bigint AND (${projectPublishedSql('p')} OR p.published_version >= ${changedFrom}::bigint) AS seen
        FROM projects p JOIN dev ON dev.id = p.company_id LEFT JOIN areas a ON a.id = p.area_id
    ), entries AS (
      SELECT ${sql.lit(RANK.project)} AS kind_rank, id, NULL::int AS project_id, version, changed_at, visible, seen
        FROM proj WHERE version >= ${from}::bigint
      UNION ALL
      -- A hard-deleted project: whether it was published then is not kept; its developer's contract is.
      SELECT ${sql.lit(RANK.project)}, t.id, NULL, t.changed_version, t.changed_at, false, dev.seen
        FROM change_tombstones t JOIN dev ON dev.id = t.developer_id
       WHERE t.entity = 'project' AND t.changed_version >= ${from}::bigint AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = t.id)
      UNION ALL
      -- Units that changed themselves since the position (units_changed index).
      SELECT ${sql.lit(RANK.unit)}, u.id, u.project_id,
             CASE WHEN u.deleted_at IS NULL THEN greatest(u.changed_version, proj.version) ELSE u.changed_version END,
             CASE WHEN u.deleted_at IS NULL THEN greatest(u.changed_at, proj.changed_at) ELSE u.changed_at END,
             u.deleted_at IS NULL AND proj.visible,
             u.created_version <= ${from}::bigint AND (u.deleted_at IS NULL OR u.live_version >= ${changedFrom}::bigint)
               AND (proj.seen OR u.project_version >= ${changedFrom}::bigint)
        FROM units u JOIN proj ON proj.id = u.project_id
       WHERE u.changed_version >= ${from}::bigint AND (proj.visible OR u.changed_version > proj.version)
      UNION ALL
      -- Live units of visible projects that changed since the position (their own version is older).
      SELECT ${sql.lit(RANK.unit)}, u.id, u.project_id, proj.version, greatest(u.changed_at, proj.changed_at), true, true
        FROM proj JOIN units u ON u.project_id = proj.id AND u.deleted_at IS NULL
       WHERE proj.version >= ${from}::bigint AND proj.visible AND u.changed_version < ${from}::bigint
      UNION ALL
      SELECT ${sql.lit(RANK.unit)}, t.id, t.project_id, t.changed_version, t.changed_at, false, dev.seen
        FROM change_tombstones t JOIN dev ON dev.id = t.developer_id
       WHERE t.entity = 'unit' AND t.changed_version >= ${from}::bigint AND NOT EXISTS (SELECT 1 FROM units u WHERE u.id = t.id)
    )
    SELECT s.version AS catalogue_version, s.feed_horizon AS horizon, e.kind_rank, e.id, e.project_id, e.version, e.changed_at, e.visible
      FROM state s
      LEFT JOIN LATERAL (
        SELECT * FROM entries e
         -- Up to where the client started (no cursor: this snapshot) only what is visible: it has nothing to
         -- remove; after it, removals of what the key may have seen at the position.
         WHERE (e.visible OR (e.seen AND e.version > coalesce(${through}::bigint, s.version)))
           AND (e.version, e.kind_rank, e.id) > (${after[0]}::bigint, ${after[1]}::int, ${after[2]}::int)
         ORDER BY e.version, e.kind_rank, e.id
         LIMIT ${limit + 1}::int
      ) e ON true
     ORDER BY e.version, e.kind_rank, e.id`.execute(db);
  const [first] = rows;
  return {
    catalogueVersion: first.catalogue_version,
    horizon: first.horizon,
    entries: rows
      .filter((row) => row.id !== null)
      .map((row) => ({
        rank: row.kind_rank!,
        id: row.id!,
        projectId: row.project_id,
        version: row.version!,
        changedAt: row.changed_at!,
        visible: row.visible!,
      })),
  };
}

/**
 * The response: at most `limit` entries, and the cursor after the last one; when the feed is exhausted,
 * the cursor stands at the end of the catalogue version read, so the next call lists only later commits.
 */
export function changesPage(read: ChangesRead, request: ChangesRequest, key: { id: number; price_vector: number }): ChangesPage {
  const hasMore = read.entries.length > request.limit;
  const entries = read.entries.slice(0, request.limit);
  const last = entries[entries.length - 1];
  const position = hasMore && last ? { version: last.version, rank: last.rank, id: last.id } : { version: read.catalogueVersion, rank: RANK.end, id: 0 };
  const next = encodeCursor({
    keyId: key.id,
    priceVector: key.price_vector,
    ...position,
    visibleOnlyThrough: request.cursor?.visibleOnlyThrough ?? read.catalogueVersion,
  });
  return {
    items: entries.map((entry) => ({
      type: entry.rank === RANK.project ? ('project' as const) : ('unit' as const),
      id: entry.id,
      ...(entry.rank === RANK.unit && entry.projectId !== null && { project_id: entry.projectId }),
      change: entry.visible ? ('upsert' as const) : ('removed' as const),
      changed_at: entry.changedAt,
    })),
    next_cursor: next,
    has_more: hasMore,
    catalogue_version: read.catalogueVersion,
  };
}
