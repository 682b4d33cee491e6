import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inBox } from '../src/domain/geo.js';
import { keepInBox } from '../src/search/box-filter.js';

/*
 * A box's column form (src/search/box-filter.ts: the band of latitudes from the projects in latitude
 * order, or the scan when the band holds most of them) against inBox asked of each project: random
 * coordinates on a small grid (so that projects sit on the box's edges and share latitudes), missing
 * coordinates, boxes from a point to the whole grid, and masks with projects already left out.
 */
const coordinate = fc.oneof(fc.integer({ min: 0, max: 12 }).map((v) => 55 + v / 100), fc.constant(Number.NaN));
const latitude = fc.oneof(fc.integer({ min: 0, max: 12 }).map((v) => 25 + v / 100), fc.constant(Number.NaN));
// Latitude bounds anywhere, or a tall box (most projects in its band: keepInBox's scan).
const latitudeBounds = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 })),
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 9, max: 12 })),
);
const boxArb = fc
  .tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }), latitudeBounds)
  .map(([a, b, [c, d]]) => ({ west: 55 + Math.min(a, b) / 100, east: 55 + Math.max(a, b) / 100, south: 25 + Math.min(c, d) / 100, north: 25 + Math.max(c, d) / 100 }));

describe('keepInBox', () => {
  it('keeps exactly the projects inBox keeps, whichever way the band is read', () => {
    // Boxes that kept some projects and left out others, by the way keepInBox read them (the band when
    // it holds at most half the projects): each way must be asked often, or the property says little.
    const decisive = { band: 0, scan: 0 };
    fc.assert(
      fc.property(fc.array(fc.tuple(coordinate, latitude, fc.constantFrom(0, 1, 1)), { maxLength: 60, size: 'medium' }), fc.array(boxArb, { minLength: 1, maxLength: 4 }), (points, boxes) => {
        // One columns object asked with several boxes: its latitude order is made once and reused.
        const projects = { longitude: Float64Array.from(points, ([lng]) => lng), latitude: Float64Array.from(points, ([, lat]) => lat), count: points.length };
        for (const box of boxes) {
          const mask = Uint8Array.from(points, ([, , m]) => m);
          keepInBox(mask, projects, box);
          const expected = points.map(([lng, lat, m]) => m & +inBox(lng, lat, box));
          const keptHere = expected.reduce((sum: number, v) => sum + v, 0);
          const inBand = points.filter(([, lat]) => lat >= box.south && lat <= box.north).length;
          if (keptHere > 0 && keptHere < points.length) decisive[inBand * 2 > points.length ? 'scan' : 'band'] += 1;
          expect(Array.from(mask), JSON.stringify({ points, box })).toEqual(expected);
        }
      }),
      { numRuns: 3_000 },
    );
    expect(decisive.band, JSON.stringify(decisive)).toBeGreaterThan(100);
    expect(decisive.scan, JSON.stringify(decisive)).toBeGreaterThan(100);
  });
});
