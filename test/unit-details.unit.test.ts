import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkBuilder } from '../src/contract/links.js';
import { idOrder, unitIndexOf } from '../src/search/snapshot.js';
import { pageUnits } from '../src/search/unit-details.js';

/*
 * The parts of GET /units/{id}'s in-memory path that depend on the order rows arrive in, which the
 * differential test (unit-detail-differential.test.ts) cannot steer: the database hands a project's
 * tag links over in no particular order, grouped by their timestamps; each unit of the page must still
 * list its links by link id, each with its own group's timestamps. And the snapshot finds a unit by
 * id whatever the order of the ids (units are by project, then id; ids need not ascend across projects).
 */

const page = fc
  .record({
    unitIds: fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 30 }),
    links: fc.uniqueArray(
      fc.record({ id: fc.integer({ min: 1, max: 1_000_000 }), unit: fc.nat(40), tag: fc.constantFrom(1, 2, 3), group: fc.nat(2) }),
      { selector: (link) => link.id, maxLength: 80 },
    ),
    order: fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
  })
  .map(({ unitIds, links, order }) => {
    // The page's units by id, as the SQL orders them; only links of its units are read.
    const ids = [...unitIds].sort((a, b) => a - b);
    return { unitIds: ids, links: links.map((link) => ({ ...link, unitId: ids[link.unit % ids.length] })), order };
  });

describe('unit details: tag links and ids in any order', () => {
  it('lists each unit\u2019s links by id, with its group\u2019s timestamps', () => {
    fc.assert(
      fc.property(page, ({ unitIds, links, order }) => {
        const groups = [0, 1, 2]
          .map((group) => ({
            created_at: `2026-0${group + 1}-01T00:00:00.000Z`,
            updated_at: `2027-0${group + 1}-01T00:00:00.000Z`,
            links: links
              .filter((link) => link.group === group)
              .map((link, i) => ({ link, rank: order[i % order.length] }))
              .sort((a, b) => a.rank - b.rank)
              .map(({ link }) => `${link.unitId},${link.id},${link.tag}`)
              .join(';'),
          }))
          .filter((group) => group.links !== '')
          .reverse();
        const tags = [1, 2, 3].map((id) => ({ id, name: `tag ${id}`, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' }));
        const units = {
          details: unitIds.map((id) => `${id},1,0,0,2026-01-01 00:00:00+00,2026-01-02 00:00:00+00`).join(';'),
          numbers: JSON.stringify(unitIds.map(String)),
        };
        const details = pageUnits({ units, planFiles: [], tags, links: groups }, linkBuilder(undefined));
        expect([...details.id]).toEqual(unitIds);
        unitIds.forEach((id, k) => {
          const expected = links
            .filter((link) => link.unitId === id)
            .sort((a, b) => a.id - b.id)
            .map((link) => [link.id, link.tag, `2026-0${link.group + 1}-01`]);
          const actual = [];
          for (let i = details.linkStart[k]; i < details.linkStart[k + 1]; i++) {
            actual.push([details.linkId[i], details.linkTag[i], /"created_at":"(\d{4}-\d{2}-\d{2})/.exec(details.linkTails[details.linkTime[i]])![1]]);
          }
          expect(actual).toEqual(expected);
        });
      }),
      { seed: 20261126, numRuns: 300 },
    );
  });

  it('the snapshot finds every unit by id, ids in any order, and no other id', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 20 }), (ids, others) => {
        const id = Int32Array.from(ids);
        const units = { id, byId: idOrder(id) };
        ids.forEach((unitId, k) => expect(unitIndexOf(units, unitId)).toBe(k));
        for (const other of others) if (!ids.includes(other)) expect(unitIndexOf(units, other)).toBe(-1);
      }),
      { seed: 20261126, numRuns: 300 },
    );
  });
});
