import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * The board column new applications land in. Concurrency is settled by the database, so it holds with any
 * number of API processes: the agency's first board stage is locked (FOR NO KEY UPDATE) before the card's
 * position is computed, so concurrent applications into one column get distinct, gap-free end positions.
 */

/** Stage created for an agency whose board has none yet. */
export const DEFAULT_STAGE = { name: 'New', position: 0 } as const;

/**
 * The agency's first column (lowest position), locked until commit: every application of the agency
 * queues here, which is what keeps positions distinct and gap-free. An agency without a board gets a
 * default stage; ON CONFLICT on (company_id, position) makes concurrent first applications agree on it.
 */
export async function lockFirstStage(trx: Transaction<DB>, companyId: number) {
  const select = () =>
    trx
      .selectFrom('board_stages')
      .select(['id', 'name', 'position'])
      .where('company_id', '=', companyId)
      .orderBy('position')
      .orderBy('id')
      .limit(1)
      // NO KEY: serialises applications against each other without blocking foreign-key checks of
      // others (e.g. the main backend moving a card into this stage).
      .forNoKeyUpdate()
      .executeTakeFirst();

  const existing = await select();
  if (existing) return existing;
  await trx
    .insertInto('board_stages')
    .values({ company_id: companyId, name: DEFAULT_STAGE.name, position: DEFAULT_STAGE.position })
    .onConflict((oc) => oc.columns(['company_id', 'position']).doNothing())
    .execute();
  const created = await select();
  if (!created) throw new Error(`no board stage for company ${companyId} after creating the default one`);
  return created;
}
