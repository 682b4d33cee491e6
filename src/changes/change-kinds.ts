/*
 * What a change signal says, and how it travels. The database raises the signals itself (triggers
 * of migration 0007, NOTIFY on one channel, delivered at commit); this module is the one place that
 * knows the payloads.
 *
 * - `catalogue`: a transaction that wrote the catalogue committed; `version` is the catalogue version
 *   it made (versions grow by one per committing writer, in commit order).
 * - `access`: a transaction that wrote keys, contracts, users or members committed.
 * - `resync`: the listener was away (its connection was lost and is back): anything may have changed
 *   in between, so every cache is dropped and the version is read again.
 */
export const CHANGE_CHANNEL = 'catalogue_changes';

export type Change = { kind: 'catalogue'; version: number } | { kind: 'access' } | { kind: 'resync'; version: number };

/** A notification payload as sent by the triggers; undefined for anything else (never trusted blindly). */
export function parseChange(payload: string): Change | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, version } = value as { kind?: unknown; version?: unknown };
  if (kind === 'access') return { kind };
  if (kind === 'catalogue' && Number.isSafeInteger(version) && (version as number) >= 0) return { kind, version: version as number };
  return undefined;
}
