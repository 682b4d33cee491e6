import { sql, type Kysely } from 'kysely';

/** A copy of WEBHOOK_CHANNEL (src/domain/webhook-events.ts): a migration keeps the values it was written with. */
const WEBHOOK_CHANNEL = 'webhook_deliveries';

/*
 * Webhooks (src/webhooks/, src/queries/webhook-*.ts):
 *
 * - webhook_endpoints: an HTTPS target of one API key, the event types it takes, its signing secret
 *   (and the previous one, still used beside it for 24 h after a rotation), and whether it is enabled
 *   (with the reason when the service disabled it).
 * - webhook_messages: one event for one endpoint, its body as signed (the exact bytes redelivered);
 *   its id is the `webhook-id` header, the same on every attempt and redelivery.
 * - webhook_deliveries: the queue and the log. A delivery is `pending` until its endpoint answers 2xx
 *   (`delivered`) or it is given up (`failed`). `next_attempt_at` is both the retry time and the
 *   lease: claiming a delivery moves it past the attempt's timeout, so a delivery whose process died
 *   mid-attempt is claimed again once that time passes. Workers claim with FOR UPDATE SKIP LOCKED.
 * - webhook_unit_before: what a unit's price, status and listing were before the transaction that
 *   changed them (filled by statement triggers on units, only while some endpoint is enabled), so
 *   that a unit event can say what changed and give the previous price. Rows are read and deleted by
 *   the same transaction (src/queries/webhook-events.ts).
 *
 * Inserting deliveries notifies WEBHOOK_CHANNEL inside the transaction: delivered at commit (and only
 * then), it wakes the workers of every process. Retries are timed by the worker that scheduled them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE webhook_endpoints (
         id serial PRIMARY KEY,
         api_key_id integer NOT NULL REFERENCES api_keys (id),
         url text NOT NULL,
         event_types text[] NOT NULL,
         secret text NOT NULL,
         previous_secret text,
         previous_secret_until timestamptz,
         enabled boolean NOT NULL DEFAULT true,
         disabled_reason text,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
    .execute(db);
  await sql.raw(`CREATE INDEX webhook_endpoints_key ON webhook_endpoints (api_key_id)`).execute(db);
  await sql
    .raw(
      `CREATE TABLE webhook_messages (
         id text PRIMARY KEY,
         endpoint_id integer NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
         event_type text NOT NULL,
         body text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
    .execute(db);
  await sql.raw(`CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at)`).execute(db);
  await sql
    .raw(
      `CREATE TABLE webhook_deliveries (
         id bigserial PRIMARY KEY,
         message_id text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
         endpoint_id integer NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
         state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
         attempts integer NOT NULL DEFAULT 0,
         next_attempt_at timestamptz NOT NULL DEFAULT now(),
         last_attempt_at timestamptz,
         last_status integer,
         last_error text,
         created_at timestamptz NOT NULL DEFAULT now(),
         completed_at timestamptz
       )`,
    )
    .execute(db);
  await sql.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE state = 'pending'`).execute(db);
  await sql.raw(`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at)`).execute(db);
  await sql.raw(`CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id)`).execute(db);
  await sql
    .raw(
      `CREATE FUNCTION webhook_deliveries_notify() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('${WEBHOOK_CHANNEL}', '');
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_notify()`)
    .execute(db);

  await sql
    .raw(
      `CREATE TABLE webhook_unit_before (
         version bigint NOT NULL,
         unit_id integer NOT NULL,
         existed boolean NOT NULL,
         price numeric(16, 2),
         status smallint,
         listed boolean,
         PRIMARY KEY (version, unit_id)
       )`,
    )
    .execute(db);
  // The first write of a transaction keeps the state before it (ON CONFLICT DO NOTHING).
  await sql
    .raw(
      `CREATE FUNCTION webhook_note_units() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         mine bigint;
       BEGIN
         IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) THEN
           RETURN NULL;
         END IF;
         mine := note_catalogue_change();
         IF TG_OP = 'INSERT' THEN
           INSERT INTO webhook_unit_before (version, unit_id, existed)
           SELECT mine, n.id, false FROM new_rows n
           ON CONFLICT DO NOTHING;
         ELSE
           INSERT INTO webhook_unit_before (version, unit_id, existed, price, status, listed)
           SELECT mine, o.id, true, o.price, o.status, o.deleted_at IS NULL
             FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.price, o.status, o.deleted_at IS NULL) IS DISTINCT FROM (n.price, n.status, n.deleted_at IS NULL)
           ON CONFLICT DO NOTHING;
         END IF;
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);
  await sql.raw(`CREATE TRIGGER units_webhook_insert AFTER INSERT ON units REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_note_units()`).execute(db);
  await sql
    .raw(`CREATE TRIGGER units_webhook_update AFTER UPDATE ON units REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_note_units()`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DROP TRIGGER units_webhook_insert ON units; DROP TRIGGER units_webhook_update ON units; DROP FUNCTION webhook_note_units()`).execute(db);
  await sql.raw(`DROP TABLE webhook_unit_before; DROP TABLE webhook_deliveries; DROP FUNCTION webhook_deliveries_notify(); DROP TABLE webhook_messages; DROP TABLE webhook_endpoints`).execute(db);
}
