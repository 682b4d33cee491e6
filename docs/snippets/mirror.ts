import { CatalogueApiError, type CatalogueClient, type Project, type Unit } from '@catalogue-api/sdk';

/** A copy of the catalogue as the key sees it, and where it stands in the changes feed. Yours lives in your CRM. */
export interface Mirror {
  projects: Map<number, Project>;
  units: Map<number, Unit>;
  cursor?: string;
}

/** Brings the mirror up to date: everything that changed since its cursor (no cursor: the whole catalogue). */
export async function syncMirror(catalogue: CatalogueClient, mirror: Mirror): Promise<void> {
  try {
    for await (const page of catalogue.changes({ cursor: mirror.cursor, limit: 500 })) {
      for (const change of page.items) {
        if (change.type === 'project' && change.change === 'upsert') await keep(mirror.projects, change.id, () => catalogue.getProject(change.id));
        if (change.type === 'unit' && change.change === 'upsert') await keep(mirror.units, change.id, () => catalogue.getUnit(change.id));
        if (change.type === 'unit' && change.change === 'removed') mirror.units.delete(change.id);
        if (change.type === 'project' && change.change === 'removed') {
          mirror.projects.delete(change.id);
          // A removed project takes its units with it.
          for (const [id, unit] of mirror.units) if (unit.project_id === change.id) mirror.units.delete(id);
        }
      }
      mirror.cursor = page.next_cursor; // store it with the page: an interrupted sync resumes from here
    }
  } catch (error) {
    // 410: the key's prices changed (every price did) or the cursor is not this key's: start over.
    if (!(error instanceof CatalogueApiError) || error.status !== 410) throw error;
    mirror.projects.clear();
    mirror.units.clear();
    mirror.cursor = undefined;
    await syncMirror(catalogue, mirror);
  }
}

/** Stores the detail; a 404 means it was removed after the page was read (a later page says so too). */
async function keep<T>(store: Map<number, T>, id: number, fetchDetail: () => Promise<T>): Promise<void> {
  try {
    store.set(id, await fetchDetail());
  } catch (error) {
    if (!(error instanceof CatalogueApiError) || error.status !== 404) throw error;
    store.delete(id);
  }
}
