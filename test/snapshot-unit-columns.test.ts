import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { unitIndexOf } from '../src/search/snapshot.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords, type Bundle } from './helpers/fixtures.js';

/*
 * The snapshot reads every live unit from one text per project (readSearchUnits: `id bedrooms status
 * parking price area tags`), parsed in place (src/search/snapshot.ts, UnitText). Over units drawn with
 * the storable extremes (prices to numeric(16, 2)'s largest, with cents; areas from 0 and float8's
 * exponent forms to huge; many tags or none; large parking and bedroom counts; ids in any order), every
 * column must hold what the database holds.
 */

const TAGS = [1, 2, 3];
const units = fc.sample(
  fc.record({
    bedrooms: fc.nat(1_000_000),
    status: fc.integer({ min: 1, max: 5 }),
    parking: fc.nat(2_000_000_000),
    cents: fc.option(fc.oneof(fc.bigInt({ min: 0n, max: 9_999_999_999_990_000n }), fc.bigInt({ min: 0n, max: 10_000n })), { nil: null }),
    area: fc.oneof(fc.constantFrom(0, 1e-5, 1.5e-7, 123456789.125, 1e20, 0.1 + 0.2), fc.double({ min: 0, max: 1e6, noNaN: true })),
    tags: fc.subarray(TAGS),
  }),
  { numRuns: 120, seed: 20261126 },
);

function catalogue(): Bundle {
  const ids = fc.sample(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { minLength: units.length, maxLength: units.length }), { numRuns: 1, seed: 7 })[0];
  return withRecords(baseBundle(), {
    projects: [0, 1, 2, 3].map((i) => ({ id: 900 + i, company_id: DEV, name: `Columns ${i}` })),
    units: units.map((unit, i) => ({
      id: ids[i],
      project_id: 900 + (i % 4),
      unit_number: `C-${i}`,
      bedrooms: unit.bedrooms,
      status: unit.status,
      parking: unit.parking,
      ...(unit.cents === null ? {} : { price: Number(unit.cents) / 100 }),
      unit_area: unit.area,
      tag_ids: unit.tags,
    })),
  });
}

describe.each(drivers)('snapshot unit columns (%s)', (driver) => {
  let t: TestApp;
  useTestApp(driver, catalogue(), (started) => ({ t } = started));

  it('hold every live unit\u2019s columns as the database does', async () => {
    const { rows } = await sql<{ id: number; bedrooms: number; status: number; parking: number; price: string | null; unit_area: number; tag_ids: number[] }>`
      SELECT u.id, u.bedrooms, u.status, u.parking, u.price::text AS price, u.unit_area, u.tag_ids
      FROM units u JOIN projects p ON p.id = u.project_id WHERE u.deleted_at IS NULL AND NOT p.is_draft AND p.deleted_at IS NULL`.execute(t.db);
    const { units: columns, projects } = t.search.current();
    expect(columns.count).toBe(rows.length);
    for (const row of rows) {
      const k = unitIndexOf(columns, row.id);
      expect(k, `unit ${row.id}`).toBeGreaterThanOrEqual(0);
      const cents = row.price === null ? Number.NaN : Number(row.price.replace('.', ''));
      expect({ bedrooms: columns.bedrooms[k], status: columns.status[k], parking: columns.parking[k], cents: columns.baseCents[k], area: columns.area[k] }).toEqual({
        bedrooms: row.bedrooms,
        status: row.status,
        parking: row.parking,
        cents,
        area: row.unit_area,
      });
      for (const tag of TAGS) expect(columns.tags.hasAll(k, columns.tags.mask([tag]) ?? new Uint32Array([0xffffffff])), `unit ${row.id} tag ${tag}`).toBe(row.tag_ids.includes(tag));
      expect(projects.id[columns.project[k]]).toBeGreaterThanOrEqual(900);
    }
  });
});
