import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { BundleError } from '../../src/import/bundle-error.js';
import { importBundle, type ImportOptions, type ImportSummary } from '../../src/import/import-bundle.js';

/*
 * What the importer's suites (import-errors, import-records, import-link-strategies) share: running an
 * import, reading rows back, and the geometry of the facility links.
 */

/** FACILITY_LINK_RADIUS_M's default, which createTestApp's configuration uses too. */
export const RADIUS_M = 10_000;
/** Mean Earth radius (IUGG), metres: the sphere the great-circle distances are measured on. */
export const EARTH_RADIUS_M = 6371008.8;

export const run = (db: Kysely<DB>, bundle: unknown, options: Partial<ImportOptions> = {}): Promise<ImportSummary> =>
  importBundle(db, bundle, { facilityLinkRadiusM: RADIUS_M, ...options });

export async function rows<R = Record<string, unknown>>(db: Kysely<DB>, text: string, params: unknown[] = []): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

/**
 * Every row of every table (each table's rows sorted), optionally without what every import moves on:
 * `updated_at`, and the catalogue version (one more per committed import).
 */
export async function snapshot(db: Kysely<DB>, { withoutUpdatedAt = false } = {}): Promise<Record<string, unknown[]>> {
  const tables = await rows<{ name: string }>(
    db,
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely%'
        ${withoutUpdatedAt ? `AND table_name <> 'catalogue_state'` : ''}
      ORDER BY 1`,
  );
  // A row whose updated_at moves has changed for GET /changes too (migration 0008): its change stamp moves with it.
  const row = withoutUpdatedAt ? `(to_jsonb(t) - 'updated_at' - 'changed_version' - 'changed_at')` : 'to_jsonb(t)';
  const columns = tables.map(({ name }) => `(SELECT coalesce(jsonb_agg(${row} ORDER BY ${row}::text), '[]') FROM "${name}" t) AS "${name}"`);
  const [result] = await rows<Record<string, unknown[]>>(db, `SELECT ${columns.join(', ')}`);
  return result;
}

/** The import fails with exactly `message` and leaves every row as it was (as `before`, when given). */
export async function expectRefused(db: Kysely<DB>, bundle: unknown, message: string, before?: Record<string, unknown[]>): Promise<void> {
  before ??= await snapshot(db);
  const error = await run(db, bundle).then(() => undefined, (failure: unknown) => failure);
  expect(error).toBeInstanceOf(BundleError);
  expect((error as Error).message).toBe(message);
  expect(await snapshot(db)).toEqual(before);
}

/** A well-formed API key that is the same every run. */
export const secret = (label: string) => `ck_${createHash('sha256').update(label).digest('hex')}`;

export const radians = (degrees: number) => (degrees * Math.PI) / 180;
export const degrees = (radiansValue: number) => (radiansValue * 180) / Math.PI;

export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = Math.sin(radians(lat2 - lat1) / 2) ** 2 + Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(radians(lon2 - lon1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The point `metres` due north (along the meridian the distance is exactly R·Δφ). */
export const north = (lat: number, lon: number, metres: number): [number, number] => [lat + degrees(metres / EARTH_RADIUS_M), lon];
/** The point at the same latitude `metres` away eastwards (great-circle distance, not along the parallel). */
export const east = (lat: number, lon: number, metres: number): [number, number] => [
  lat,
  lon + degrees(2 * Math.asin(Math.sin(metres / (2 * EARTH_RADIUS_M)) / Math.cos(radians(lat)))),
];

/** A facility record; coordinates go where the contract says for its category. */
export function facility(category: string, sourceId: string | number, [lat, lon]: [number, number], extra: Record<string, unknown> = {}) {
  const [latKey, lonKey] = category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
  return { category, source_id: sourceId, data: { name: `${category} ${sourceId}`, ...extra, [latKey]: lat, [lonKey]: lon } };
}

export interface Link {
  source_id: string;
  category: string;
  distance_m: number;
}

/** A project's stored links, by facility source id. */
export const linksOf = (db: Kysely<DB>, projectId: number) =>
  rows<Link>(
    db,
    `SELECT f.source_id, pf.category, pf.distance_m FROM project_facilities pf JOIN facilities f ON f.id = pf.facility_id
      WHERE pf.project_id = $1 ORDER BY f.source_id`,
    [projectId],
  );

export const sourceIds = (links: Link[]) => links.map((link) => link.source_id);
