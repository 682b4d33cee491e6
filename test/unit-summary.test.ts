import { Value } from '@sinclair/typebox/value';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { hashApiKey } from '../src/domain/api-key.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import { ProjectsQuery } from '../src/contract/schemas/projects.js';
import { findActiveKeyByHash } from '../src/queries/api-keys.js';
import { listProjects } from '../src/queries/projects-sql-reference.js';
import { importBundle } from '../src/import/import-bundle.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * The per-project unit summary (migration 0006) answers `bedrooms` + one price bound of GET /projects
 * without reading units, so it must follow every write to units, whoever makes it: the importer,
 * manual SQL, deletes. After each write it is compared with the same summary computed from scratch,
 * and GET /projects is asked a question whose answer changed.
 */
const bundle: Bundle = withRecords(baseBundle(), {
  projects: [
    { id: 1, company_id: DEV, name: 'Alpha' },
    { id: 2, company_id: DEV, name: 'Beta' },
    { id: 3, company_id: DEV, name: 'Gamma' },
  ],
  units: [
    { id: 11, project_id: 1, unit_number: '11', bedrooms: 2, price: 1_000_000, unit_area: 80 },
    { id: 12, project_id: 1, unit_number: '12', bedrooms: 2, price: 2_500_000, unit_area: 120 },
    { id: 13, project_id: 1, unit_number: '13', bedrooms: 7, price: 9_000_000, unit_area: 400 },
    { id: 14, project_id: 1, unit_number: '14', bedrooms: 0 },
    { id: 21, project_id: 2, unit_number: '21', bedrooms: 1, price: 700_000, unit_area: 50 },
    { id: 22, project_id: 2, unit_number: '22', bedrooms: 2, price: 4_000_000, unit_area: 150, deleted: true },
  ],
});

/** What the summary must hold for every project, computed from the units directly. */
async function summaryFromScratch(db: Kysely<DB>) {
  const { rows } = await sql<{ id: number; mins: (string | null)[]; maxs: (string | null)[]; mask: number }>`
    SELECT p.id,
           ARRAY(SELECT min(u.price) FROM generate_series(0, 5) g LEFT JOIN units u
                   ON u.project_id = p.id AND u.deleted_at IS NULL AND least(u.bedrooms, 5) = g GROUP BY g ORDER BY g)::text[] AS mins,
           ARRAY(SELECT max(u.price) FROM generate_series(0, 5) g LEFT JOIN units u
                   ON u.project_id = p.id AND u.deleted_at IS NULL AND least(u.bedrooms, 5) = g GROUP BY g ORDER BY g)::text[] AS maxs,
           (SELECT coalesce(sum(DISTINCT 1 << least(u.bedrooms, 5)), 0) FROM units u WHERE u.project_id = p.id AND u.deleted_at IS NULL)::int AS mask
      FROM projects p ORDER BY p.id`.execute(db);
  return rows;
}

async function storedSummary(db: Kysely<DB>) {
  const { rows } = await sql<{ id: number; mins: (string | null)[]; maxs: (string | null)[]; mask: number }>`
    SELECT id, unit_min_prices::text[] AS mins, unit_max_prices::text[] AS maxs, unit_bedroom_mask::int AS mask FROM projects ORDER BY id`.execute(db);
  return rows;
}

describe.each(drivers)('the unit summary of projects follows every write to units (%s)', (driver) => {
  let t: TestApp;
  let key: string;

  useTestApp(driver, bundle, (started) => ({ t, key } = started));

  /*
   * The summary serves the SQL path (listProjects, the reference of the in-memory search); the HTTP
   * answer comes from the search model, rebuilt here so that it has seen the write. Both must agree.
   */
  const ids = async (query: string) => {
    const record = (await findActiveKeyByHash(t.db, hashApiKey(key)))!;
    const page = parseProjectsQuery(Value.Convert(ProjectsQuery, Value.Default(ProjectsQuery, Object.fromEntries(new URLSearchParams(query)))) as never);
    const fromSql = (await listProjects(t.db, record, page, { amenitiesRadiusM: undefined })).items.map((row) => row.id);
    await t.refresh();
    const res = await t.app.inject({ method: 'GET', url: `/projects?${query}`, headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    const fromHttp = res.json().data.items.map((item: { id: number }) => item.id);
    expect(fromHttp, 'the in-memory search agrees with the SQL path').toEqual(fromSql);
    return fromSql;
  };
  const expectInStep = async () => expect(await storedSummary(t.db)).toEqual(await summaryFromScratch(t.db));

  it('after the import: buckets 0 to 4 and 5+, deleted units and unpriced units left out', async () => {
    await expectInStep();
    const [alpha, beta, gamma] = await storedSummary(t.db);
    expect(alpha).toEqual({ id: 1, mins: [null, null, '1000000.00', null, null, '9000000.00'], maxs: [null, null, '2500000.00', null, null, '9000000.00'], mask: 0b100101 });
    expect(beta).toEqual({ id: 2, mins: [null, '700000.00', null, null, null, null], maxs: [null, '700000.00', null, null, null, null], mask: 0b10 });
    expect(gamma).toEqual({ id: 3, mins: Array(6).fill(null), maxs: Array(6).fill(null), mask: 0 });
    expect(await ids('bedrooms=0')).toEqual([1]);
    expect(await ids('bedrooms=2&price_max=3000000')).toEqual([1]);
  });

  it('a price changed by hand', async () => {
    expect(await ids('bedrooms=2&price_max=2000000')).toEqual([1]);
    await sql`UPDATE units SET price = 3500000 WHERE id = 11`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=2&price_max=2000000')).toEqual([]);
    expect(await ids('bedrooms=2&price_min=3000000')).toEqual([1]);
  });

  it('a unit soft-deleted and restored', async () => {
    await sql`UPDATE units SET deleted_at = now() WHERE id = 21`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=1')).toEqual([]);
    await sql`UPDATE units SET deleted_at = NULL WHERE id IN (21, 22)`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=2&price_min=3800000')).toEqual([2]);
  });

  it('a unit moved to another project: both projects are recomputed', async () => {
    await sql`UPDATE units SET project_id = 3 WHERE id = 13`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=5')).toEqual([3]);
  });

  it('units inserted and deleted outright', async () => {
    await sql`INSERT INTO units (id, project_id, unit_number, bedrooms, price) VALUES (31, 3, '31', 4, 100), (32, 2, '32', 4, 200)`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=4&price_max=150')).toEqual([3]);
    await sql`DELETE FROM units WHERE id IN (31, 14)`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=4&price_max=150')).toEqual([]);
    expect(await ids('bedrooms=0')).toEqual([]);
  });

  it.runIf(driver === 'postgres')('two writers of one project at once: the summary holds both writes', async () => {
    // The first lowers a bucket's price and keeps its transaction open; the second changes another
    // bucket of the same project and must wait for it, then refresh from a snapshot holding both.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const firstWrote = new Promise<void>((resolve) => (wrote = resolve));
    const first = t.db.transaction().execute(async (trx) => {
      await sql`UPDATE units SET price = 100 WHERE id = 21`.execute(trx);
      wrote();
      await held;
    });
    await firstWrote;
    const second = t.db.transaction().execute(async (trx) => {
      await sql`UPDATE units SET price = 150 WHERE id = 22`.execute(trx);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await Promise.all([first, second]);
    await expectInStep();
    expect(await ids('bedrooms=1&price_max=100')).toEqual([2]);
  });

  it('a re-import through the importer (upsert: inserts and updates in one statement)', async () => {
    await importBundle(
      t.db,
      withRecords(baseBundle(), {
        units: [
          { id: 12, project_id: 1, unit_number: '12', bedrooms: 3, price: 1_200_000, unit_area: 120 },
          { id: 41, project_id: 1, unit_number: '41', bedrooms: 2, price: 2_000_000, unit_area: 90 },
        ],
      }),
      { facilityLinkRadiusM: t.config.facilityLinkRadiusM },
    );
    await expectInStep();
    expect(await ids('bedrooms=3&price_max=1200000')).toEqual([1]);
  });

  it('a unit whose id and price change in one update (no partner row by id)', async () => {
    await sql`UPDATE units SET id = 99, price = 1 WHERE id = 32`.execute(t.db);
    await expectInStep();
    expect(await ids('bedrooms=4&price_max=1')).toEqual([2]);
  });

  it('an update that changes no summary input leaves the summary as it was', async () => {
    const before = await storedSummary(t.db);
    await sql`UPDATE units SET unit_number = unit_number || '-x', parking = parking + 1`.execute(t.db);
    expect(await storedSummary(t.db)).toEqual(before);
    await expectInStep();
  });

  it('a project whose cheapest priced unit has 5 or more bedrooms: its price_from and the price_from order', async () => {
    // The in-memory price_from is the lowest over the six buckets' prices (snapshot.ts): the 5+ bucket
    // is the last, and a loop that stopped before it would not price Gamma from its 7-bedroom unit.
    await sql`UPDATE units SET price = price + 1000 WHERE id <> 13`.execute(t.db);
    await sql`UPDATE units SET price = 5 WHERE id = 13`.execute(t.db);
    await expectInStep();
    expect((await ids('sort=price_from'))[0], 'Gamma, from its 7-bedroom unit (moved there above), is the cheapest').toBe(3);
  });

  it('units truncated: every project is left without units', async () => {
    await sql`TRUNCATE units CASCADE`.execute(t.db);
    await expectInStep();
    expect((await storedSummary(t.db)).every((row) => row.mask === 0)).toBe(true);
    expect(await ids('bedrooms=0,1,2,3,4,5')).toEqual([]);
  });
});
