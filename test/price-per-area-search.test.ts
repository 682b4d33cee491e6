import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkBuilder } from '../src/contract/links.js';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { FT2_PER_M2, keyPricing } from '../src/domain/pricing.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import type { Bundle } from './helpers/fixtures.js';
import { priceVectorArb, type Query } from './helpers/project-scenarios.js';
import { keysByPriceVector, sqlReferenceBodies, type SqlReferenceBodies } from './helpers/sql-reference-body.js';

/*
 * The per-area price filters (price_per_m2_*, price_per_ft2_*) decide most projects from ranges of their
 * units' base price per m² (src/search/price-per-area-bins.ts) and test the rest unit by unit
 * (src/search/unit-matcher.ts). Both must hold every unit the exact rule accepts: a unit's key price is
 * its base price times the key's factor rounded to the cent, so its key price per m² is off base / area
 * * factor by up to half a cent per m² of area, which on a tiny area (0.01 m²) is 50 cents. Bounds drawn
 * at units' own key price per area (and a hair either side), over a catalogue of tiny and ordinary
 * areas and prices with cents, under random price vectors: the body must be the SQL path's.
 */

const SEED = Number(process.env.DIFF_SEED ?? 20261126);
const NUM_RUNS = Number(process.env.DIFF_RUNS ?? 300);
const AREAS = [0.01, 0.02, 0.37, 1, 3.3, 0.5, 55.5, 120.25, 7];

function catalogue(): Bundle {
  const bundle = generateDemoBundle({ projects: 10 }) as Bundle;
  bundle.units.forEach((unit, i) => {
    unit.unit_area = AREAS[i % AREAS.length];
    if (typeof unit.price === 'number') unit.price = Math.floor(unit.price / 1000) + (i % 100) / 100;
  });
  return bundle;
}

describe.each(drivers)('price per area bounds at a unit\u2019s own key price per area (%s)', (driver) => {
  let t: TestApp;
  let reference: SqlReferenceBodies;
  let keyFor: ReturnType<typeof keysByPriceVector>;
  const bundle = catalogue();
  const priced = bundle.units.filter((unit) => typeof unit.price === 'number' && (unit.unit_area as number) > 0);

  beforeAll(async () => {
    t = await createTestApp(driver, bundle);
    reference = await sqlReferenceBodies(t, linkBuilder(undefined));
    keyFor = keysByPriceVector(t);
  });
  afterAll(async () => {
    await reference?.close();
    await t?.close();
  });

  /** GET /projects?query with a key of that price vector: the SQL path's body; whether it found a project. */
  async function sameAsSql(query: Query, priceVector: number): Promise<boolean> {
    const { secret, record } = await keyFor(priceVector);
    const url = `/projects?${new URLSearchParams(query)}`;
    const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': secret } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body, `${url} (price vector ${priceVector})`).toBe(await reference.body(query, record, undefined));
    return res.json().data.total > 0;
  }

  it('finds the projects the SQL path finds, byte for byte', async () => {
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(priced.length - 1),
        priceVectorArb,
        fc.constantFrom('price_per_m2_min', 'price_per_m2_max', 'price_per_ft2_min', 'price_per_ft2_max'),
        fc.constantFrom(-1e-9, 0, 0, 1e-9),
        fc.boolean(),
        async (pick, priceVector, bound, nudge, withBedrooms) => {
          const unit = priced[pick];
          const area = unit.unit_area as number;
          const keyCents = keyPricing(priceVector).keyCents(Math.round((unit.price as number) * 100));
          const perArea = keyCents / 100 / area / (bound.includes('ft2') ? FT2_PER_M2 : 1);
          const query: Query = { limit: '100', [bound]: String(perArea * (1 + nudge)) };
          if (withBedrooms) query.bedrooms = String(Math.min(5, unit.bedrooms as number));
          if (await sameAsSql(query, priceVector)) found++;
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    expect(found).toBeGreaterThan(NUM_RUNS / 2);
  }, 300_000);

  // Both ends at units' own key prices per area, alone or with bedrooms: the projects a range inside
  // the bounds decides without visiting a unit (src/search/price-per-area-bins.ts) are the SQL path's.
  it('both bounds at units\u2019 own prices, alone or with bedrooms: the SQL path\u2019s projects', async () => {
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(priced.length - 1),
        fc.nat(priced.length - 1),
        priceVectorArb,
        fc.boolean(),
        fc.constantFrom(-1e-9, 0, 0, 1e-9),
        fc.boolean(),
        async (first, second, priceVector, perFt2, nudge, withBedrooms) => {
          const pricing = keyPricing(priceVector);
          const [low, high] = [priced[first], priced[second]]
            .map((unit) => pricing.keyCents(Math.round((unit.price as number) * 100)) / 100 / (unit.unit_area as number) / (perFt2 ? FT2_PER_M2 : 1))
            .sort((a, b) => a - b);
          const name = perFt2 ? 'price_per_ft2' : 'price_per_m2';
          const query: Query = { limit: '100', [`${name}_min`]: String(low * (1 + nudge)), [`${name}_max`]: String(high * (1 - nudge)) };
          if (withBedrooms) query.bedrooms = String(Math.min(5, priced[first].bedrooms as number));
          if (await sameAsSql(query, priceVector)) found++;
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    expect(found).toBeGreaterThan(NUM_RUNS / 2);
  }, 300_000);
});
