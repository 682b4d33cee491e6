import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';

/** Row counts of every table an application writes: equal before and after means nothing was left behind. */
export async function crmCounts(db: Kysely<DB>): Promise<Record<string, number>> {
  const { rows } = await sql<Record<string, number>>`
    SELECT (SELECT count(*) FROM clients)::int AS clients,
           (SELECT count(*) FROM opportunities)::int AS opportunities,
           (SELECT count(*) FROM opportunity_tags)::int AS opportunity_tags,
           (SELECT count(*) FROM opportunity_project_features)::int AS opportunity_project_features,
           (SELECT count(*) FROM offers)::int AS offers,
           (SELECT count(*) FROM offer_opportunities)::int AS offer_opportunities,
           (SELECT count(*) FROM board_stages)::int AS board_stages,
           (SELECT count(*) FROM idempotency_keys)::int AS idempotency_keys`.execute(db);
  return rows[0];
}
