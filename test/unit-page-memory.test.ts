import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkBuilder } from '../src/contract/links.js';
import { readUnitPageRows, type UnitPageRows } from '../src/queries/unit-details.js';
import { buildUnitDetails, unitDetailsBytes, type UnitDetails } from '../src/search/unit-details.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { DEV, TS, baseBundle, withRecords } from './helpers/fixtures.js';
import { run } from './helpers/import.js';

/*
 * A unit page (src/search/unit-details.ts) holds no more memory than it is counted for
 * (unitDetailsBytes), which is what bounds the pages kept per snapshot (DETAIL_CACHE_MB). The page's
 * project part is written by the serializer as a tree of pieces, ~2.5x its flat size, until flattened
 * (flatText): without it a page took ~1.3x its count (2,000 pages of L: 35 MB of heap for 26 MB counted;
 * flat, 21 MB). Measured as the heap that many pages built from the same rows hold after a collection.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let test: TestDatabase;
let rows: UnitPageRows;

beforeAll(async () => {
  test = await createTestDatabase('pglite');
  // A project with a long description and many features, as L's are: the part every unit's answer repeats.
  const description = 'A residence on the creek with views of the skyline, gardens and the marina. '.repeat(12);
  await run(
    test.database.db,
    withRecords(baseBundle(), {
      projects: [{ id: 100, company_id: DEV, name: 'Marina Heights', area_id: 1, description }],
      units: Array.from({ length: 20 }, (_, i) => ({ id: 1000 + i, project_id: 100, unit_number: `A-${i}`, price: 1_000_000 + i, bedrooms: 2, created_at: TS, updated_at: TS })),
    }),
  );
  rows = (await readUnitPageRows(test.database.db, [100])).get(100)!;
}, 60_000);

afterAll(() => test?.drop());

describe('unit pages: memory held against memory counted', () => {
  it('a page holds at most the bytes it is counted for', () => {
    const links = linkBuilder(undefined);
    const count = 2_000;
    const pages: UnitDetails[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) pages.push(buildUnitDetails(rows, links)!);
    gc();
    const held = (process.memoryUsage().heapUsed - before) / count;
    const counted = unitDetailsBytes(pages[0]);
    expect(pages[0].project.length).toBeGreaterThan(900);
    expect(held).toBeLessThanOrEqual(counted);
  });
});
