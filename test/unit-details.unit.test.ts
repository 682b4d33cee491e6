import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkBuilder } from '../src/contract/links.js';
import { buildUnitDetails, unitIndexOf } from '../src/search/unit-details.js';

/*
 * The parts of the snapshot's unit details that depend on the order rows arrive in, which the
 * differential test (unit-detail-differential.test.ts) cannot steer: the database hands the tag links
 * over in no particular order, grouped by their timestamps; each unit must still list its links by
 * link id, each with its own group's timestamps, and skip the links of units the snapshot does not
 * hold. And a unit is found by id whatever the order of the ids.
 */

const PROJECTS = [5, 9, 12];

const scenario = fc
  .record({
    unitIds: fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 30 }),
    links: fc.uniqueArray(
      fc.record({ id: fc.integer({ min: 1, max: 1_000_000 }), unit: fc.nat(40), tag: fc.constantFrom(1, 2, 3), group: fc.nat(2) }),
      { selector: (link) => link.id, maxLength: 80 },
    ),
    order: fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
  })
  .map(({ unitIds, links, order }) => ({
    unitIds,
    // A link of a unit the snapshot holds (by position), or of another unit (deleted, unpublished).
    links: links.map((link) => ({ ...link, unitId: link.unit < unitIds.length ? unitIds[link.unit] : 2 ** 31 - 1 - link.unit })),
    order,
  }));

describe('unit details: tag links and ids in any order', () => {
  it('lists each unit\u2019s links by id, with its group\u2019s timestamps, and finds every unit by id', () => {
    fc.assert(
      fc.property(scenario, ({ unitIds, links, order }) => {
        fc.pre(links.every((link) => link.unit < unitIds.length || !unitIds.includes(link.unitId)));
        // Units spread over the projects in project order (as the snapshot reads them), ids in any order.
        const byProject = PROJECTS.map((_, p) => unitIds.filter((_, k) => k % PROJECTS.length === p)).filter((ids) => ids.length > 0);
        const unitRows = byProject.map((ids, p) => ({
          project_id: PROJECTS[p],
          units: '',
          details: ids.map((id) => `${id},1,0,0,2026-01-01 00:00:00+00,2026-01-02 00:00:00+00`).join(';'),
          numbers: JSON.stringify(ids.map(String)),
        }));
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
        const details = buildUnitDetails(
          unitRows,
          { projects: [], planFiles: [], tags, links: groups },
          // No project's text is needed here (the units' own columns and links are).
          new Map(),
          { projects: 0, units: unitIds.length },
          linkBuilder(undefined),
        );
        for (const id of unitIds) {
          const k = unitIndexOf(details, id);
          expect(details.id[k]).toBe(id);
          const expected = links
            .filter((link) => link.unitId === id)
            .sort((a, b) => a.id - b.id)
            .map((link) => [link.id, link.tag, `2026-0${link.group + 1}-01`]);
          const actual = [];
          for (let i = details.linkStart[k]; i < details.linkStart[k + 1]; i++) {
            actual.push([details.linkId[i], details.linkTag[i], /"created_at":"(\d{4}-\d{2}-\d{2})/.exec(details.linkTails[details.linkTime[i]])![1]]);
          }
          expect(actual).toEqual(expected);
        }
        expect(unitIndexOf(details, 0)).toBe(-1);
        for (const link of links) if (!unitIds.includes(link.unitId)) expect(unitIndexOf(details, link.unitId)).toBe(-1);
      }),
      { seed: 20261126, numRuns: 300 },
    );
  });
});
