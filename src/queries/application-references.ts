import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { ApplicationRejected, type MergedInterests, type PreparedApplication } from '../domain/application-merge.js';

/*
 * The catalogue rows an application refers to by id (areas, unit tags, project features and amenities):
 * an application naming one that does not exist is refused before anything is written.
 */

export interface FeatureItem {
  id: number;
  name: string;
  type: 1 | 2;
}

export interface References {
  tags: Map<number, string>;
  features: Map<number, FeatureItem>;
}

/**
 * Checks every explicit reference id (derived ones come from the catalogue and exist) and loads the
 * names the response shows. The first unknown id, in request order, is reported.
 */
export async function loadReferences(trx: Transaction<DB>, prepared: PreparedApplication, merged: MergedInterests): Promise<References> {
  const { explicit } = prepared;
  if (explicit.preferred_area_ids.length) {
    const rows = await trx.selectFrom('areas').select('id').where('id', 'in', explicit.preferred_area_ids).execute();
    reportUnknown('preferences.preferred_area_ids', 'area', explicit.preferred_area_ids, new Set(rows.map((r) => r.id)));
  }

  const tags = new Map<number, string>();
  if (merged.preference_ids.length) {
    const rows = await trx.selectFrom('unit_tags').select(['id', 'name']).where('id', 'in', merged.preference_ids).execute();
    for (const row of rows) tags.set(row.id, row.name);
  }
  reportUnknown('preferences.preference_ids', 'unit tag', explicit.preference_ids, new Set(tags.keys()));

  const features = new Map<number, FeatureItem>();
  if (merged.project_preference_ids.length) {
    const rows = await trx.selectFrom('project_features').select(['id', 'name', 'type']).where('id', 'in', merged.project_preference_ids).execute();
    for (const row of rows) features.set(row.id, { id: row.id, name: row.name, type: row.type as 1 | 2 });
  }
  reportUnknown('preferences.project_preference_ids', 'project feature or amenity', explicit.project_preference_ids, new Set(features.keys()));

  return { tags, features };
}

function reportUnknown(field: string, what: string, ids: number[], known: Set<number>): void {
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) {
    throw new ApplicationRejected({ code: 'invalid', message: `${field} contains an unknown ${what} id: ${unknown}` });
  }
}
