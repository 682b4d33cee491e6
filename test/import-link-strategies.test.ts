import { type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';
import { facility, haversineM, type Link, RADIUS_M, rows, run } from './helpers/import.js';

/*
 * The bundle importer against its contract (../shared/spec/catalogue-bundle.md, docs/bundle.md), this
 * file: the project–facility links: the incremental and the rebuild strategy give the same links. Every
 * rule is checked on the stored rows and, where the API shows the data, over HTTP. Each describe block
 * owns its database; tests inside one share it and keep to their own ids (and, for anything with
 * coordinates, their own part of the globe, more than the link radius away from everyone else's).
 */
/* ---------------------------------------------------------------------------------------------- */
/* Link strategies                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

type Row = Record<string, unknown>;
type DemoRecord = Record<string, unknown> & { data?: Record<string, unknown> };

interface StoredLink {
  project_id: number;
  facility_id: number;
  category: string;
  distance_m: number;
}

const allLinks = (db: Kysely<DB>) =>
  rows<StoredLink>(db, 'SELECT project_id, facility_id, category, distance_m FROM project_facilities ORDER BY project_id, facility_id');

/** The links computed from scratch, in JavaScript, from the stored coordinates. */
async function linksFromScratch(db: Kysely<DB>): Promise<StoredLink[]> {
  type Point = { id: number; category: string; latitude: number; longitude: number };
  const projects = await rows<Point>(db, 'SELECT id, latitude, longitude FROM projects WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY id');
  const facilities = await rows<Point>(db, 'SELECT id, category, latitude, longitude FROM facilities WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY id');
  const links: StoredLink[] = [];
  for (const p of projects) {
    for (const f of facilities) {
      const distance = haversineM(p.latitude, p.longitude, f.latitude, f.longitude);
      if (distance <= RADIUS_M) links.push({ project_id: p.id, facility_id: f.id, category: f.category, distance_m: distance });
    }
  }
  return links;
}

function expectSameLinks(actual: StoredLink[], expected: StoredLink[]): void {
  const key = (link: StoredLink) => `${link.project_id}/${link.facility_id}/${link.category}`;
  expect(actual.map(key)).toEqual(expected.map(key));
  const worst = Math.max(0, ...actual.map((link, i) => Math.abs(link.distance_m - expected[i].distance_m)));
  expect(worst).toBeLessThan(1e-3);
}

/** What a migration makes of project_facilities: columns, indexes, constraints, triggers, table kind. */
async function linkTableShape(db: Kysely<DB>) {
  return {
    table: await rows(db, `SELECT relkind, relpersistence, reloptions, relreplident FROM pg_class WHERE oid = 'project_facilities'::regclass`),
    columns: await rows(
      db,
      `SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              pg_get_expr(d.adbin, d.adrelid) AS default_value, co.collname
         FROM pg_attribute a
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attrelid = 'project_facilities'::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
    ),
    indexes: await rows(db, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'project_facilities' ORDER BY indexname`),
    constraints: await rows(
      db,
      `SELECT conname, contype, pg_get_constraintdef(oid) AS definition, condeferrable, condeferred, convalidated
         FROM pg_constraint WHERE conrelid = 'project_facilities'::regclass ORDER BY conname`,
    ),
    // The foreign keys' triggers, on project_facilities and on the tables it refers to.
    triggers: await rows(
      db,
      `SELECT c.relname AS on_table, t.tgfoid::regproc::text AS function, t.tgtype, t.tgenabled
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgrelid = 'project_facilities'::regclass OR t.tgconstrrelid = 'project_facilities'::regclass
        ORDER BY 1, 2, 3`,
    ),
    leftovers: await rows(
      db,
      `SELECT relname AS name FROM pg_class WHERE relname LIKE '%rebuilt%'
       UNION ALL SELECT conname FROM pg_constraint WHERE conname LIKE '%rebuilt%'`,
    ),
  };
}

const linkTableOid = async (db: Kysely<DB>) =>
  (await rows<{ oid: number }>(db, `SELECT 'project_facilities'::regclass::oid::int AS oid`))[0].oid;

function coordinateKeys(record: DemoRecord): [string, string] {
  return record.category === 'airports_ports' ? ['latitude', 'longitude'] : ['asset_latitude', 'asset_longitude'];
}

describe.each(drivers)('facility link strategies (%s)', (driver) => {
  const demo = generateDemoBundle();
  const demoFacilities = demo.facilities as DemoRecord[];
  const demoProjects = demo.projects as DemoRecord[];
  let incremental: TestDatabase;
  let rebuild: TestDatabase;
  let freshShape: Awaited<ReturnType<typeof linkTableShape>>;
  let freshOid: number;

  beforeAll(async () => {
    incremental = await createTestDatabase(driver);
    rebuild = await createTestDatabase(driver);
    freshShape = await linkTableShape(rebuild.database.db);
    freshOid = await linkTableOid(rebuild.database.db);
  });
  afterAll(async () => {
    await incremental?.drop();
    await rebuild?.drop();
  });

  /** Imports into both databases, each with its strategy; the links must agree and be right. */
  async function importBoth(bundle: unknown): Promise<StoredLink[]> {
    const one = await run(incremental.database.db, bundle, { relinkStrategy: 'incremental' });
    const other = await run(rebuild.database.db, bundle, { relinkStrategy: 'rebuild' });
    expect(other).toEqual(one);
    const links = await allLinks(incremental.database.db);
    expect(await allLinks(rebuild.database.db)).toEqual(links);
    expectSameLinks(links, await linksFromScratch(incremental.database.db));
    return links;
  }

  const changed = (before: StoredLink[], after: StoredLink[]) => {
    const text = (links: StoredLink[]) => new Set(links.map((l) => `${l.project_id}/${l.facility_id}/${l.distance_m}`));
    const [a, b] = [text(before), text(after)];
    return [...b].filter((link) => !a.has(link)).length + [...a].filter((link) => !b.has(link)).length;
  };

  it('the demo catalogue gives the same links with either strategy, as computed from scratch', async () => {
    const links = await importBoth(demo);
    expect(links.length).toBeGreaterThan(1000);
  });

  it('a bundle touching only some facilities: the same links either way (untouched ones copied, touched ones redone)', async () => {
    const before = await allLinks(incremental.database.db);
    const touched = demoFacilities.filter((_, i) => i % 12 === 0).map((record, i) => {
      const [latKey, lonKey] = coordinateKeys(record);
      const data = { ...record.data! };
      if (i % 10 === 9) data[latKey] = 'unknown'; // loses its coordinates
      else if (i % 10 === 8) data[lonKey] = Number(data[lonKey]) + 2; // far from every project
      else data[latKey] = Number(data[latKey]) + 0.03;
      return { ...record, data };
    });
    expect(touched.length).toBe(40);
    const links = await importBoth({ facilities: touched });
    expect(changed(before, links)).toBeGreaterThan(100);
  });

  it('a bundle touching only some projects: the same links either way', async () => {
    const before = await allLinks(incremental.database.db);
    const touched = demoProjects.filter((p) => Number(p.id) % 5 === 0 || p.id === 38).map((record): DemoRecord => {
      const id = Number(record.id);
      if (id === 38) return { ...record, latitude: 25.1, longitude: 55.2 }; // had none
      if (id % 10 === 5) return { ...record, latitude: null, longitude: null };
      return { ...record, latitude: Number(record.latitude) + 0.02, longitude: Number(record.longitude) - 0.02 };
    });
    const links = await importBoth({ projects: touched });
    expect(changed(before, links)).toBeGreaterThan(100);
    expect(links.some((link) => link.project_id === 38)).toBe(true);
    expect(links.some((link) => link.project_id === 5)).toBe(false);
  });

  it('a bundle touching some projects and some facilities at once: the same links either way', async () => {
    const before = await allLinks(incremental.database.db);
    const facilities = demoFacilities.filter((_, i) => i % 17 === 3).map((record) => {
      const [latKey] = coordinateKeys(record);
      return { ...record, data: { ...record.data!, [latKey]: Number(record.data![latKey]) - 0.01 } };
    });
    const projects = demoProjects.filter((p) => Number(p.id) % 7 === 1).map((record) => ({ ...record, longitude: Number(record.longitude) + 0.015 }));
    const links = await importBoth({ projects, facilities });
    expect(changed(before, links)).toBeGreaterThan(50);
  });

  it('after a rebuild, project_facilities has the columns, NOT NULLs, indexes, keys and triggers of a freshly migrated table', async () => {
    const db = rebuild.database.db;
    // The table was swapped (so this compares a rebuilt table, not the migrated one).
    expect(await linkTableOid(db)).not.toBe(freshOid);
    const shape = await linkTableShape(db);
    expect(shape).toEqual(freshShape);
    expect(shape.leftovers).toEqual([]);
    expect(shape.columns.map((c: Row) => [c.attname, c.type, c.attnotnull])).toEqual([
      ['project_id', 'integer', true],
      ['facility_id', 'integer', true],
      ['category', 'text', true],
      ['distance_m', 'double precision', true],
    ]);
    expect(shape.indexes.map((i: Row) => i.indexname)).toEqual(['project_facilities_facility', 'project_facilities_nearest', 'project_facilities_pkey']);
    expect(shape.constraints.filter((c: Row) => c.contype !== 'n').map((c: Row) => [c.conname, c.definition])).toEqual([
      ['project_facilities_facility_id_fkey', 'FOREIGN KEY (facility_id) REFERENCES facilities(id) ON DELETE CASCADE'],
      ['project_facilities_pkey', 'PRIMARY KEY (project_id, facility_id)'],
      ['project_facilities_project_id_fkey', 'FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE'],
    ]);

    // And they act: deleting a facility takes its links along, a link to nothing is refused.
    const [{ facility_id: facilityId }] = await allLinks(db);
    const outcome = await db
      .transaction()
      .execute(async (trx) => {
        await rows(trx, 'DELETE FROM facilities WHERE id = $1', [facilityId]);
        const left = await rows(trx, 'SELECT 1 FROM project_facilities WHERE facility_id = $1', [facilityId]);
        const dangling = await rows(trx, `INSERT INTO project_facilities VALUES (1, 2147483647, 'retail', 1)`).then(
          () => 'inserted',
          (error: { code?: string }) => error.code,
        );
        throw Object.assign(new Error('roll back'), { left, dangling });
      })
      .catch((error: { left: unknown[]; dangling: string }) => error);
    expect(outcome).toMatchObject({ left: [], dangling: '23503' });
    expect((await allLinks(db)).some((link) => link.facility_id === facilityId)).toBe(true);
  });

  it('a failing import after the rebuild leaves the old table intact; the next import rebuilds it', async () => {
    const db = rebuild.database.db;
    const links = await allLinks(db);
    const shape = await linkTableShape(db);
    const oid = await linkTableOid(db);
    const facilities = () => rows(db, 'SELECT id, data, latitude, longitude, updated_at FROM facilities ORDER BY id');
    const facilitiesBefore = await facilities();
    const moved = demoFacilities.slice(0, 30).map((record) => {
      const [latKey] = coordinateKeys(record);
      return { ...record, data: { ...record.data!, [latKey]: Number(record.data![latKey]) + 0.05 } };
    });
    const failAfterLinks = (step: string) => {
      if (step === 'facility links') throw new Error('stopped after the rebuild');
    };

    await expect(run(db, { facilities: moved }, { relinkStrategy: 'rebuild', onProgress: failAfterLinks })).rejects.toThrow('stopped after the rebuild');
    expect(await linkTableOid(db)).toBe(oid);
    expect(await allLinks(db)).toEqual(links);
    expect(await linkTableShape(db)).toEqual(shape);
    expect(await facilities()).toEqual(facilitiesBefore);

    await run(db, { facilities: moved }, { relinkStrategy: 'rebuild' });
    expect(await linkTableOid(db)).not.toBe(oid);
    const relinked = await allLinks(db);
    expect(changed(links, relinked)).toBeGreaterThan(50);
    expectSameLinks(relinked, await linksFromScratch(db));
    expect(await linkTableShape(db)).toEqual(freshShape);
  });
});
