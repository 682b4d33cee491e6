import { sql, type Kysely } from 'kysely';

/*
 * What webhooks need beyond the changes feed (src/queries/webhook-events.ts):
 *
 * 1. Whether a record's own answer changed. The feed lists a record whenever anything its response
 *    shows changed, including what it embeds: a unit's price touches its project (the detail lists
 *    the units), a project's change lists all its units (GET /units/{id} embeds the project), a new
 *    exchange rate touches every project and unit priced in that currency (their `currency=` prices
 *    move). A mirror must re-read all of them; a webhook says what changed, once, on the record it
 *    belongs to. So:
 *    - `own_version` on projects and units: the catalogue version of the last change of the record's
 *      own answer: its own columns (not `updated_at`, not the bookkeeping columns, not a project's
 *      unit summary of migration 0006), or what it lists as its own (a project's plans, images,
 *      features, files, author, nearby facilities; a unit's tags and plan file).
 *      units.details_version: the same, leaving out price, status and listing (which a unit event
 *      names one by one): "something else of the unit changed" (`details`).
 *      Set by a BEFORE ROW trigger named to fire before the feed's `*_note_change` (row triggers
 *      fire in name order), so that it still sees how the row was touched.
 *      companies, areas and contracts get own_version too (what a project shows of them changed,
 *      not only their updated_at). A record restated with a new `updated_at` alone (the importer's
 *      default when the bundle gives none) changes no answer of its own, nor touches what shows it.
 *    - A touch made for the feed only (a unit touching its project; an exchange rate touching its
 *      projects and units) writes changed_version = -2 instead of -1: stamped for the feed like any
 *      touch, not an own change. Touches of a record's own parts skip only rows whose own_version is
 *      already this transaction's, so that a feed-only touch coming first does not hide them.
 * 2. What a project's unit summary (price_from, size_from) was before the transaction: the unit
 *    notes of migration 0012 also keep the unit's project and area, and are taken on hard deletes too.
 * 3. A revoked or deleted key's webhooks: its endpoints are disabled (with the reason) and its
 *    pending deliveries are dropped, state `dropped`, in the transaction that revokes it, whoever
 *    writes it (the CLI, an operator's SQL). A revoked key answers 401; what was queued for it is not
 *    sent afterwards.
 *
 * Migrations keep literal copies of what they recreate: the touch functions below are those of
 * migrations 0008 and 0013 with the conditions above.
 */
const OWN_TOUCH = -1;
const FEED_ONLY_TOUCH = -2;

/**
 * Which form of a function: 'own', this migration's (feed-only touches marked, own touches skipping
 * only rows whose own answer already changed at this version); 'previous', that of migrations 0008,
 * 0012 and 0013 (any row at this version skipped), which `down` restores.
 */
type Variant = 'own' | 'previous';

function touch(table: string, where: string, variant: Variant, marker = OWN_TOUCH): string {
  const skip = variant === 'own' && marker === OWN_TOUCH && (table === 'projects' || table === 'units') ? 'own_version IS DISTINCT FROM mine' : 'changed_version <> mine';
  return `UPDATE ${table} SET changed_version = ${variant === 'own' ? marker : OWN_TOUCH} WHERE (${where}) AND ${skip};`;
}

function touchParentsFunction(name: string, parent: string, column: string, variant: Variant, marker = OWN_TOUCH, updated = `SELECT ${column} FROM new_rows UNION SELECT ${column} FROM old_rows`): string {
  return `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      mine bigint := note_catalogue_change();
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${touch(parent, `id IN (SELECT ${column} FROM new_rows)`, variant, marker)}
      ELSIF TG_OP = 'UPDATE' THEN
        ${touch(parent, `id IN (${updated})`, variant, marker)}
      ELSIF TG_OP = 'DELETE' THEN
        ${touch(parent, `id IN (SELECT ${column} FROM old_rows)`, variant, marker)}
      ELSE
        ${touch(parent, 'true', variant, marker)}
      END IF;
      RETURN NULL;
    END
    $$`;
}

const UNITS_SHOWN_BY_PROJECTS = `SELECT unnest(ARRAY[n.project_id, o.project_id])
           FROM new_rows n FULL JOIN old_rows o ON o.id = n.id
          WHERE n.id IS NULL OR o.id IS NULL
             OR (n.project_id, n.unit_number, n.bedrooms, n.status, n.furnishing, n.price, n.unit_area, n.deleted_at IS NULL)
                IS DISTINCT FROM (o.project_id, o.unit_number, o.bedrooms, o.status, o.furnishing, o.price, o.unit_area, o.deleted_at IS NULL)`;

/** The rows an UPDATE really changed; in the 'own' variant a new `updated_at` alone (a record restated as it was) is no change. */
function changedIds(variant: Variant): string {
  if (variant === 'previous') return `ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n IS DISTINCT FROM o)`;
  const shown = (row: string) => `(to_jsonb(${row}) - ARRAY['updated_at', 'changed_version', 'changed_at'])`;
  return `ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${shown('n')} IS DISTINCT FROM ${shown('o')})`;
}

function dependents(variant: Variant): [fn: string, touches: string[]][] {
  return [
    [
      'files_touch_dependents',
      [
        touch('companies', 'logo_file_id = ANY(ids)', variant),
        touch(
          'projects',
          `floor_plan_file_id = ANY(ids) OR brochure_file_id = ANY(ids) OR general_plan_file_id = ANY(ids)
           OR id IN (SELECT project_id FROM project_images WHERE file_id = ANY(ids))`,
          variant,
        ),
        touch('units', 'plan_file_id = ANY(ids)', variant),
      ],
    ],
    ['project_features_touch_projects', [touch('projects', 'id IN (SELECT project_id FROM project_feature_links WHERE feature_id = ANY(ids))', variant)]],
    ['unit_tags_touch_units', [touch('units', 'id IN (SELECT unit_id FROM unit_tag_links WHERE tag_id = ANY(ids))', variant)]],
    ['users_touch_projects', [touch('projects', 'author_id = ANY(ids)', variant)]],
  ];
}

function currencyTouchFunction(variant: Variant): string {
  const marker = variant === 'own' ? FEED_ONLY_TOUCH : OWN_TOUCH;
  return `CREATE OR REPLACE FUNCTION currency_rates_touch_prices() RETURNS trigger LANGUAGE plpgsql AS $$
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
         UPDATE units SET changed_version = ${marker}
          WHERE deleted_at IS NULL AND changed_version <> mine
            AND project_id IN (SELECT id FROM projects WHERE currency = ANY(codes));
         UPDATE projects SET changed_version = ${marker} WHERE currency = ANY(codes) AND changed_version <> mine;
         RETURN NULL;
       END
       $$`;
}

/** The touch functions of migrations 0008 and 0013, in the given variant. */
async function touchFunctions(db: Kysely<unknown>, variant: Variant): Promise<void> {
  await sql.raw(touchParentsFunction('touch_projects_of_rows', 'projects', 'project_id', variant)).execute(db);
  await sql.raw(touchParentsFunction('touch_units_of_tag_links', 'units', 'unit_id', variant)).execute(db);
  await sql.raw(touchParentsFunction('units_touch_projects', 'projects', 'project_id', variant, FEED_ONLY_TOUCH, UNITS_SHOWN_BY_PROJECTS)).execute(db);
  for (const [fn, touches] of dependents(variant)) {
    await sql
      .raw(
        `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE
           ids integer[];
           mine bigint;
         BEGIN
           ids := ${changedIds(variant)};
           IF cardinality(ids) = 0 THEN
             RETURN NULL;
           END IF;
           mine := note_catalogue_change();
           ${touches.join('\n')}
           RETURN NULL;
         END
         $$`,
      )
      .execute(db);
  }
  await sql.raw(currencyTouchFunction(variant)).execute(db);
}

/** Columns that are bookkeeping, not part of any answer: never an own change. */
const PROJECT_BOOKKEEPING = ['changed_version', 'changed_at', 'own_version', 'updated_at', 'created_version', 'published_version', 'unit_min_prices', 'unit_max_prices', 'unit_bedroom_mask'];
const UNIT_BOOKKEEPING = ['changed_version', 'changed_at', 'own_version', 'details_version', 'updated_at', 'created_version', 'live_version', 'project_version'];
/** What a unit event names on its own (`price`, `status`, `availability`); anything else is `details`. */
const UNIT_NAMED = ['price', 'status', 'deleted_at'];

const putBack = (columns: string[]) => columns.map((column) => `probe.${column} := OLD.${column};`).join(' ');

/** What a project shows of them: the developer (name, logo), the area, the agency's contract. */
const SHOWN_WITH_PROJECTS = ['companies', 'areas', 'contracts'];

export async function up(db: Kysely<unknown>): Promise<void> {
  // Nullable without a default: no table rewrite; null means "not since this migration".
  await sql.raw(`ALTER TABLE projects ADD COLUMN own_version bigint`).execute(db);
  for (const table of SHOWN_WITH_PROJECTS) await sql.raw(`ALTER TABLE ${table} ADD COLUMN own_version bigint`).execute(db);
  // Small tables, any columns: compared as JSON without the bookkeeping.
  await sql
    .raw(
      `CREATE FUNCTION mark_own_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'UPDATE' AND NEW.changed_version IS NOT DISTINCT FROM OLD.changed_version
            AND (to_jsonb(NEW) - ARRAY['changed_version', 'changed_at', 'updated_at', 'own_version', 'created_version', 'opens_version'])
                IS NOT DISTINCT FROM (to_jsonb(OLD) - ARRAY['changed_version', 'changed_at', 'updated_at', 'own_version', 'created_version', 'opens_version']) THEN
           RETURN NEW;
         END IF;
         NEW.own_version := note_catalogue_change();
         RETURN NEW;
       END
       $$`,
    )
    .execute(db);
  for (const table of SHOWN_WITH_PROJECTS) {
    await sql.raw(`CREATE TRIGGER ${table}_mark_own_change BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION mark_own_change()`).execute(db);
  }
  await sql.raw(`ALTER TABLE units ADD COLUMN own_version bigint, ADD COLUMN details_version bigint`).execute(db);

  await sql
    .raw(
      `CREATE FUNCTION projects_mark_own_change() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         probe projects;
       BEGIN
         IF TG_OP = 'INSERT' THEN
           NEW.own_version := note_catalogue_change();
           RETURN NEW;
         END IF;
         IF NEW.changed_version = ${FEED_ONLY_TOUCH} THEN
           RETURN NEW;
         END IF;
         IF NEW.changed_version IS NOT DISTINCT FROM OLD.changed_version THEN
           probe := NEW;
           ${putBack(PROJECT_BOOKKEEPING)}
           IF probe IS NOT DISTINCT FROM OLD THEN
             RETURN NEW;
           END IF;
         END IF;
         NEW.own_version := note_catalogue_change();
         RETURN NEW;
       END
       $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION units_mark_own_change() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         probe units;
         details boolean;
       BEGIN
         IF TG_OP = 'INSERT' THEN
           NEW.own_version := note_catalogue_change();
           RETURN NEW;
         END IF;
         IF NEW.changed_version = ${FEED_ONLY_TOUCH} THEN
           RETURN NEW;
         END IF;
         IF NEW.changed_version IS NOT DISTINCT FROM OLD.changed_version THEN
           probe := NEW;
           ${putBack([...UNIT_BOOKKEEPING, ...UNIT_NAMED])}
           details := probe IS DISTINCT FROM OLD;
           IF NOT details AND (NEW.price, NEW.status, NEW.deleted_at IS NULL) IS NOT DISTINCT FROM (OLD.price, OLD.status, OLD.deleted_at IS NULL) THEN
             RETURN NEW;
           END IF;
         ELSE
           -- A touch of its own parts: its tags or its plan file.
           details := true;
         END IF;
         NEW.own_version := note_catalogue_change();
         IF details THEN
           NEW.details_version := NEW.own_version;
         END IF;
         RETURN NEW;
       END
       $$`,
    )
    .execute(db);
  for (const table of ['projects', 'units']) {
    await sql.raw(`CREATE TRIGGER ${table}_mark_own_change BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_mark_own_change()`).execute(db);
  }
  await touchFunctions(db, 'own');

  // The unit notes (migration 0012) also keep the project and area, for the project's summary before.
  await sql.raw(`ALTER TABLE webhook_unit_before ADD COLUMN project_id integer, ADD COLUMN unit_area numeric`).execute(db);
  await sql.raw(webhookNoteUnits('own')).execute(db);
  await sql.raw(`CREATE TRIGGER units_webhook_delete AFTER DELETE ON units REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_note_units()`).execute(db);

  // Revoked keys.
  await sql.raw(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_state_check`).execute(db);
  await sql.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed', 'dropped'))`).execute(db);
  await sql
    .raw(
      `CREATE FUNCTION api_keys_drop_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         gone integer[];
       BEGIN
         gone := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                        WHERE (o.status = 0 AND o.deleted_at IS NULL) AND NOT (n.status = 0 AND n.deleted_at IS NULL));
         IF cardinality(gone) = 0 THEN
           RETURN NULL;
         END IF;
         UPDATE webhook_deliveries d
            SET state = 'dropped', completed_at = now(), leased_until = NULL,
                last_error = 'dropped: its key was revoked at ' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
           FROM webhook_endpoints e
          WHERE e.id = d.endpoint_id AND e.api_key_id = ANY(gone) AND d.state = 'pending';
         UPDATE webhook_endpoints
            SET enabled = false, updated_at = now(),
                disabled_reason = 'its key was revoked at ' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          WHERE api_key_id = ANY(gone);
         RETURN NULL;
       END
       $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER api_keys_drop_webhooks AFTER UPDATE ON api_keys REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
         FOR EACH STATEMENT EXECUTE FUNCTION api_keys_drop_webhooks()`,
    )
    .execute(db);
  // Keys already revoked or deleted: the same.
  await sql
    .raw(
      `UPDATE webhook_deliveries d SET state = 'dropped', completed_at = now(), leased_until = NULL, last_error = 'dropped: its key was revoked'
         FROM webhook_endpoints e JOIN api_keys k ON k.id = e.api_key_id
        WHERE e.id = d.endpoint_id AND d.state = 'pending' AND NOT (k.status = 0 AND k.deleted_at IS NULL)`,
    )
    .execute(db);
  await sql
    .raw(
      `UPDATE webhook_endpoints e SET enabled = false, updated_at = now(), disabled_reason = 'its key was revoked'
         FROM api_keys k WHERE k.id = e.api_key_id AND NOT (k.status = 0 AND k.deleted_at IS NULL)`,
    )
    .execute(db);
}

/** migration 0012's note of units before the transaction; 'own' also keeps project and area, on hard deletes too. */
function webhookNoteUnits(variant: Variant): string {
  const own = variant === 'own';
  return `CREATE OR REPLACE FUNCTION webhook_note_units() RETURNS trigger LANGUAGE plpgsql AS $$
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
         ${
           own
             ? `ELSIF TG_OP = 'DELETE' THEN
           INSERT INTO webhook_unit_before (version, unit_id, existed, price, status, listed, project_id, unit_area)
           SELECT mine, o.id, true, o.price, o.status, o.deleted_at IS NULL, o.project_id, o.unit_area FROM old_rows o
           ON CONFLICT DO NOTHING;`
             : ''
         }
         ELSE
           INSERT INTO webhook_unit_before (version, unit_id, existed, price, status, listed${own ? ', project_id, unit_area' : ''})
           SELECT mine, o.id, true, o.price, o.status, o.deleted_at IS NULL${own ? ', o.project_id, o.unit_area' : ''}
             FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.price, o.status, o.deleted_at IS NULL${own ? ', o.project_id, o.unit_area' : ''}) IS DISTINCT FROM (n.price, n.status, n.deleted_at IS NULL${own ? ', n.project_id, n.unit_area' : ''})
           ON CONFLICT DO NOTHING;
         END IF;
         RETURN NULL;
       END
       $$`;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // One statement each: PGlite runs a migration's statements as prepared statements.
  const run = async (...statements: string[]) => {
    for (const statement of statements) await sql.raw(statement).execute(db);
  };
  await run(`DROP TRIGGER api_keys_drop_webhooks ON api_keys`, `DROP FUNCTION api_keys_drop_webhooks()`);
  await run(`UPDATE webhook_deliveries SET state = 'failed' WHERE state = 'dropped'`);
  await run(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_state_check`);
  await run(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed'))`);
  await run(`DROP TRIGGER units_webhook_delete ON units`, webhookNoteUnits('previous'), `ALTER TABLE webhook_unit_before DROP COLUMN project_id, DROP COLUMN unit_area`);
  await touchFunctions(db, 'previous');
  for (const table of ['projects', 'units']) await run(`DROP TRIGGER ${table}_mark_own_change ON ${table}`, `DROP FUNCTION ${table}_mark_own_change()`);
  await run(`ALTER TABLE units DROP COLUMN own_version, DROP COLUMN details_version`, `ALTER TABLE projects DROP COLUMN own_version`);
  for (const table of SHOWN_WITH_PROJECTS) await run(`DROP TRIGGER ${table}_mark_own_change ON ${table}`, `ALTER TABLE ${table} DROP COLUMN own_version`);
  await run(`DROP FUNCTION mark_own_change()`);
}
