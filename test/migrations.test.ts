import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';

/*
 * Migrations that derive data run on databases that already hold a catalogue. Each test migrates an
 * empty database to the migration before, writes rows the way that schema allowed, migrates to the
 * latest and checks what the migration derived.
 */
describe.each(drivers)('migrations on a populated database (%s)', (driver) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.drop();
    t = undefined;
  });

  const populate = async (db: Kysely<DB>) => {
    await sql`INSERT INTO companies (id, company_type, company_name) VALUES (1, 3, 'Dev')`.execute(db);
    await sql`INSERT INTO projects (id, company_id, name) VALUES (1, 1, 'With units'), (2, 1, 'Without units')`.execute(db);
    await sql`INSERT INTO units (id, project_id, unit_number, bedrooms, price, deleted_at) VALUES
      (1, 1, 'A', 1, 900000, NULL), (2, 1, 'B', 1, 700000, NULL), (3, 1, 'C', 6, 5000000, NULL), (4, 1, 'D', 1, 10, now()), (5, 1, 'E', 3, NULL, NULL)`.execute(db);
    await sql`INSERT INTO facilities (category, source_id, data) VALUES
      ('education', 'S-1', ${JSON.stringify({ name: 'École — مدرسة', khda_rating: 'Good', asset_latitude: 25.1 })}::jsonb),
      ('retail', 'R-1', ${JSON.stringify({ source_id: 'OWN-ID', name: 'Mall' })}::jsonb)`.execute(db);
  };

  it('0005 gives every existing facility its served JSON, compact, the record\u2019s source_id winning', async () => {
    t = await createTestDatabase(driver, { migrate: false });
    const db = t.database.db;
    await migrateTo(db, '0004_unit_tag_ids');
    await populate(db);
    await migrateToLatest(db);
    const { rows } = await sql<{ source_id: string; facility_json: string }>`SELECT source_id, facility_json FROM facilities ORDER BY source_id`.execute(db);
    expect(rows.map((row) => row.source_id)).toEqual(['R-1', 'S-1']);
    for (const row of rows) expect(row.facility_json).toBe(JSON.stringify(JSON.parse(row.facility_json)));
    expect(JSON.parse(rows[0].facility_json)).toEqual({ source_id: 'OWN-ID', name: 'Mall' });
    expect(JSON.parse(rows[1].facility_json)).toEqual({ source_id: 'S-1', name: 'École — مدرسة', khda_rating: 'Good', asset_latitude: 25.1 });
  });

  it('0006 computes the unit summary of every existing project', async () => {
    t = await createTestDatabase(driver, { migrate: false });
    const db = t.database.db;
    await migrateTo(db, '0005_facility_json');
    await populate(db);
    await migrateToLatest(db);
    const { rows } = await sql<{ id: number; mins: (string | null)[]; maxs: (string | null)[]; mask: number }>`
      SELECT id, unit_min_prices::text[] AS mins, unit_max_prices::text[] AS maxs, unit_bedroom_mask::int AS mask FROM projects ORDER BY id`.execute(db);
    expect(rows).toEqual([
      { id: 1, mins: [null, '700000.00', null, null, null, '5000000.00'], maxs: [null, '900000.00', null, null, null, '5000000.00'], mask: 0b101010 },
      { id: 2, mins: Array(6).fill(null), maxs: Array(6).fill(null), mask: 0 },
    ]);
  });

  it('0016 drops what was queued for keys already revoked and disables their endpoints; down and up again', async () => {
    t = await createTestDatabase(driver, { migrate: false });
    const db = t.database.db;
    await migrateTo(db, '0015_webhook_leases');
    await sql`INSERT INTO companies (id, company_type, company_name) VALUES (1, 2, 'Agency')`.execute(db);
    await sql`INSERT INTO users (id, name, email) VALUES (1, 'Owner', 'owner@example.com')`.execute(db);
    await sql`INSERT INTO api_keys (id, company_id, author_id, name, key_hash, key_prefix, status) VALUES (1, 1, 1, 'live', 'h1', 'ck_1', 0), (2, 1, 1, 'revoked', 'h2', 'ck_2', 1)`.execute(db);
    await sql`INSERT INTO webhook_endpoints (id, api_key_id, url, event_types, secret) VALUES (1, 1, 'https://a.example/h', '{unit.changed}', 's1'), (2, 2, 'https://b.example/h', '{unit.changed}', 's2')`.execute(db);
    await sql`INSERT INTO webhook_messages (id, endpoint_id, event_type, body) VALUES ('msg_1', 1, 'unit.changed', '{}'), ('msg_2', 2, 'unit.changed', '{}')`.execute(db);
    await sql`INSERT INTO webhook_deliveries (message_id, endpoint_id) VALUES ('msg_1', 1), ('msg_2', 2)`.execute(db);
    await migrateToLatest(db);
    const state = async () =>
      (await sql<{ endpoint: number; enabled: boolean; delivery: string }>`
        SELECT e.id AS endpoint, e.enabled, d.state AS delivery FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id ORDER BY e.id`.execute(db)).rows;
    expect(await state()).toEqual([
      { endpoint: 1, enabled: true, delivery: 'pending' },
      { endpoint: 2, enabled: false, delivery: 'dropped' },
    ]);
    await migrateTo(db, '0015_webhook_leases');
    expect(await state()).toEqual([
      { endpoint: 1, enabled: true, delivery: 'pending' },
      { endpoint: 2, enabled: false, delivery: 'failed' },
    ]);
    expect(await migrateToLatest(db)).toEqual(['0016_webhook_own_changes']);
  });
});
