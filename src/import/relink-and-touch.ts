import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { LINKS_TABLE, relinkFacilities, type RelinkScope } from './facility-links.js';
import { execute, query } from './raw-sql.js';

/*
 * The import's facility-links step. The linking itself is facility-links.ts, which knows only the
 * geometry; this adds what the change feed needs around it: projects the import did not write, but
 * whose nearby block changed with a facility, are touched so that clients fetch them again.
 */

/*
 * A project's nearby block changes when a facility linked to it changes what it serves or where it is
 * (facilities.changed_version, migration 0008): the projects linked to such a facility before the
 * relink (its old position) and after it (its new one) are touched, so GET /changes lists them. The
 * link rule itself decides which projects those are. Projects whose own answer the import changed are
 * already at this version and skipped.
 */
export async function relinkAndTouch(db: Kysely<DB>, scope: RelinkScope): Promise<number> {
  // relinkFacilities writes links and projects, never facilities: one count serves both touches.
  const changed = scope.facilityIds.length === 0 ? 0 : await changedFacilities(db);
  if (changed > 0) await touchProjectsNearChangedFacilities(db, changed);
  const links = await relinkFacilities(db, scope);
  if (changed > 0) await touchProjectsNearChangedFacilities(db, changed);
  return links;
}

/** Above this many changed facilities every linked project is touched (see below). */
const TOUCH_ALL_ABOVE_FACILITIES = 1_000;

/*
 * The projects whose nearby block may have changed, by their links to the facilities stamped in this
 * transaction. Few facilities (an edit): a semi-join from those facilities through the links' facility
 * index. Many (a catalogue restated whole: a re-import of L restamps its 50,000 facilities): every
 * project with a link, in one pass. The feed may then list a project whose nearby block did not
 * change (allowed: an entry means "fetch again"), but the statement cannot go wrong: with 50,000
 * facilities the planner turned the semi-join into minutes on PGlite (a join with the DISTINCT ids
 * became a 12 M-row nested loop on PostgreSQL, 4.6 s), and an id list bound as a parameter was
 * compared with each of the 4.4 M links.
 */
async function changedFacilities(db: Kysely<DB>): Promise<number> {
  const [{ changed }] = await query<{ changed: number }>(
    db,
    'SELECT count(*)::int AS changed FROM facilities WHERE changed_version = (SELECT note_catalogue_change())',
    [],
  );
  return changed;
}

async function touchProjectsNearChangedFacilities(db: Kysely<DB>, changed: number): Promise<void> {
  const linked =
    changed > TOUCH_ALL_ABOVE_FACILITIES
      ? `EXISTS (SELECT 1 FROM ${LINKS_TABLE} pf WHERE pf.project_id = p.id)`
      : `p.id IN (SELECT pf.project_id FROM facilities f JOIN ${LINKS_TABLE} pf ON pf.facility_id = f.id
                   WHERE f.changed_version = (SELECT note_catalogue_change()))`;
  // Skips projects whose own answer already changed in this transaction, not those touched for the feed
  // only (by a unit's change): the nearby block is the project's own (migration 0016).
  await execute(db, `UPDATE projects p SET changed_version = -1 WHERE p.own_version IS DISTINCT FROM (SELECT note_catalogue_change()) AND ${linked}`, []);
}
