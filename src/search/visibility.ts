import type { KeyScope } from '../domain/key-scope.js';
import type { ScopeView } from './scopes.js';
import type { Snapshot } from './snapshot.js';

/*
 * Catalogue visibility on a snapshot: the same rule as src/queries/visibility.ts. The snapshot holds
 * only published, live projects, so what is left is the developer: one the key's agency has an
 * approved contract with (the key's contracted_developer_ids).
 */
export function visibleScope(snapshot: Snapshot, contractedDeveloperIds: readonly number[]): ScopeView {
  return snapshot.scopes.get(contractedDeveloperIds, () => {
    const contracted = new Set(contractedDeveloperIds);
    const { companyId, count } = snapshot.projects;
    const visible = new Uint8Array(count);
    for (let i = 0; i < count; i++) if (contracted.has(companyId[i])) visible[i] = 1;
    return { visible };
  });
}

/** Whether the key sees the project with this id in the snapshot (live, published, of a contracted developer). */
export function isVisibleProject(snapshot: Snapshot, scope: Pick<KeyScope, 'contracted_developer_ids'>, projectId: number): boolean {
  const p = snapshot.indexOf.get(projectId);
  return p !== undefined && visibleScope(snapshot, scope.contracted_developer_ids).visible[p] === 1;
}

/** The developer (company id) of a project the key sees in the snapshot; undefined when it sees none with this id. */
export function visibleProjectDeveloper(snapshot: Snapshot, scope: Pick<KeyScope, 'contracted_developer_ids'>, projectId: number): number | undefined {
  const p = snapshot.indexOf.get(projectId);
  if (p === undefined || visibleScope(snapshot, scope.contracted_developer_ids).visible[p] !== 1) return undefined;
  return snapshot.projects.companyId[p];
}

/** The items of GET /projects/list for the scope (JSON text): visible projects by name, then id. */
export function flatListJson(snapshot: Snapshot, contractedDeveloperIds: readonly number[]): string {
  const scope = visibleScope(snapshot, contractedDeveloperIds);
  if (scope.flatList === undefined) {
    const { projects, orders } = snapshot;
    const entries: string[] = [];
    for (const i of orders.name.ascending) if (scope.visible[i]) entries.push(projects.flatItem[i]);
    scope.flatList = `[${entries.join(',')}]`;
  }
  return scope.flatList;
}

/** The items of GET /companies for the scope (JSON text): contracted developers with a published project. */
export function companiesJson(snapshot: Snapshot, contractedDeveloperIds: readonly number[]): string {
  const scope = visibleScope(snapshot, contractedDeveloperIds);
  if (scope.companies === undefined) {
    const contracted = new Set(contractedDeveloperIds);
    scope.companies = `[${snapshot.developers.filter((developer) => contracted.has(developer.id)).map((developer) => developer.json).join(',')}]`;
  }
  return scope.companies;
}
