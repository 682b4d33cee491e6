import { sql, type Kysely } from 'kysely';

/*
 * Exchange rates (issue 22; the rule is src/domain/currency.ts) and what an offer keeps of a conversion.
 *
 * - currency_rates: AED for one unit of each currency, and when the rate was taken. AED itself has no
 *   row (it is 1 by definition). Written by the importer (bundle section `currency_rates`).
 * - A write raises the catalogue signal like every catalogue table (migration 0007), so every API
 *   process rebuilds its search snapshot with the new rates.
 * - A changed rate moves GET /changes as a changed price does (migration 0008): the projects priced in
 *   that currency and their live units are touched. Only a new value counts: restating a rate, or a
 *   new as_of alone, changes no price and lists nothing. A new currency touches its projects too (they
 *   become convertible), and so does a deleted one.
 * - offers: the unit's currency and key price, the rate from it to the offer's currency and its as_of,
 *   kept when the offer's currency differs from the unit's (see src/queries/applications.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE currency_rates (
         currency text PRIMARY KEY CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'AED'),
         aed_per_unit numeric NOT NULL CHECK (aed_per_unit > 0),
         as_of timestamptz NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER currency_rates_signal_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON currency_rates
         FOR EACH STATEMENT EXECUTE FUNCTION signal_catalogue_change()`,
    )
    .execute(db);

  await sql
    .raw(
      `CREATE FUNCTION currency_rates_touch_prices() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         codes text[];
         mine bigint;
       BEGIN
         IF TG_OP = 'INSERT' THEN
           codes := ARRAY(SELECT currency FROM new_rows);
         ELSIF TG_OP = 'DELETE' THEN
           codes := ARRAY(SELECT currency FROM old_rows);
         ELSE
           codes := ARRAY(SELECT n.currency FROM new_rows n FULL JOIN old_rows o ON o.currency = n.currency
                           WHERE n.aed_per_unit IS DISTINCT FROM o.aed_per_unit
                           UNION SELECT o.currency FROM old_rows o WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.currency = o.currency));
         END IF;
         codes := array_remove(codes, NULL);
         IF cardinality(codes) = 0 THEN
           RETURN NULL;
         END IF;
         mine := note_catalogue_change();
         UPDATE units SET changed_version = -1
          WHERE deleted_at IS NULL AND changed_version <> mine
            AND project_id IN (SELECT id FROM projects WHERE currency = ANY(codes));
         UPDATE projects SET changed_version = -1 WHERE currency = ANY(codes) AND changed_version <> mine;
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    const transition = event === 'INSERT' ? 'REFERENCING NEW TABLE AS new_rows' : event === 'DELETE' ? 'REFERENCING OLD TABLE AS old_rows' : 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows';
    await sql
      .raw(`CREATE TRIGGER currency_rates_touch_${event.toLowerCase()} AFTER ${event} ON currency_rates ${transition} FOR EACH STATEMENT EXECUTE FUNCTION currency_rates_touch_prices()`)
      .execute(db);
  }

  await sql
    .raw(
      `ALTER TABLE offers
         ADD COLUMN unit_currency text,
         ADD COLUMN unit_price numeric(16, 2),
         ADD COLUMN exchange_rate numeric,
         ADD COLUMN rate_as_of timestamptz`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`ALTER TABLE offers DROP COLUMN unit_currency, DROP COLUMN unit_price, DROP COLUMN exchange_rate, DROP COLUMN rate_as_of`).execute(db);
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER currency_rates_touch_${event} ON currency_rates`).execute(db);
  await sql.raw(`DROP FUNCTION currency_rates_touch_prices()`).execute(db);
  await sql.raw(`DROP TABLE currency_rates`).execute(db);
}
