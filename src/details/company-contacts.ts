import type { ChangeSignal } from '../changes/change-signal.js';
import type { LinkBuilder } from '../contract/links.js';
import type { Database } from '../db/database.js';
import { isUnavailable } from '../db/errors.js';
import { contactsRequests } from '../metrics/instruments.js';
import { findCompanyContacts } from '../queries/contacts.js';
import type { KeyScope } from '../domain/key-scope.js';
import type { Snapshot } from '../search/snapshot.js';
import { visibleProjectDeveloper } from '../search/visibility.js';
import { toProjectContacts } from './contacts-presenter.js';

/*
 * GET /projects/{id}/contacts from memory. The answer is the project's developer and its staff, the
 * same for every key that sees the project (which the route asks the snapshot), so it is read once per
 * developer and kept with its JSON, serialized once.
 *
 * What it is read from is in two kinds of table: companies and files are catalogue tables (a write
 * makes a new snapshot), users and company_members decide access (a write only sends an access
 * signal, no new catalogue version). So what is kept belongs to the snapshot (a WeakMap entry: a new
 * catalogue starts empty, as compressed-once.ts does) and to the number of change signals seen when it
 * was read: any signal makes every kept answer, and every read still in flight, old at once. While the
 * signals cannot be trusted (the listener reconnecting), or without them (a bare app), nothing is kept.
 *
 * Read on the primary: an answer kept after a signal must not come from a replica that has not
 * replayed the change yet (the key cache's rule, src/http/app.ts). Without the primary, the replicas
 * answer and nothing is kept (readPrimaryFirst's fallback, written out here because what may be kept
 * depends on which one answered).
 */

export type ProjectContactsData = ReturnType<typeof toProjectContacts>;

/** A developer's contacts as the API shows them; `json` is the envelope, serialized by the route the first time it is sent. */
export interface PreparedContacts {
  data: ProjectContactsData;
  json?: string;
}

export interface CompanyContacts {
  /**
   * The contacts of developer `companyId`, kept with `snapshot` (read from the database as it is when
   * first asked, which may be ahead of the snapshot); undefined when the company is gone.
   */
  of(snapshot: Snapshot, companyId: number): Promise<PreparedContacts | undefined>;
  /** Those of the developer of a project the key sees in `snapshot`; undefined: not found (404). */
  ofProject(snapshot: Snapshot, scope: Pick<KeyScope, 'contracted_developer_ids'>, projectId: number): Promise<PreparedContacts | undefined>;
}

interface Kept {
  signals: number;
  byCompany: Map<number, Promise<PreparedContacts | undefined>>;
}

export function companyContacts(database: Database, links: LinkBuilder, changes: Pick<ChangeSignal, 'subscribe' | 'listening'> | undefined): CompanyContacts {
  let signals = 0;
  changes?.subscribe(() => signals++);
  const kept = new WeakMap<Snapshot, Kept>();

  const read = async (db: Database['db'], companyId: number) => {
    const row = await findCompanyContacts(db, companyId);
    return row && { data: toProjectContacts(row, links) };
  };

  const contacts: CompanyContacts = {
    async ofProject(snapshot, scope, projectId) {
      const developer = visibleProjectDeveloper(snapshot, scope, projectId);
      return developer === undefined ? undefined : contacts.of(snapshot, developer);
    },
    of(snapshot, companyId) {
      if (!changes?.listening || (database.replicas && !database.replicas.primaryAnswers())) {
        contactsRequests.count('bypass');
        return read(database.db, companyId);
      }
      let mine = kept.get(snapshot);
      if (!mine || mine.signals !== signals) kept.set(snapshot, (mine = { signals, byCompany: new Map() }));
      const hit = mine.byCompany.get(companyId);
      if (hit) {
        contactsRequests.count('hit');
        return hit;
      }
      contactsRequests.count('miss');
      const { byCompany } = mine;
      // A failed read is not kept; a primary that fails as unavailable hands this one read to the replicas.
      const answer: Promise<PreparedContacts | undefined> = read(database.primary, companyId).catch((error: unknown) => {
        if (byCompany.get(companyId) === answer) byCompany.delete(companyId);
        if (!database.replicas || !isUnavailable(error)) throw error;
        return read(database.db, companyId);
      });
      byCompany.set(companyId, answer);
      return answer;
    },
  };
  return contacts;
}
