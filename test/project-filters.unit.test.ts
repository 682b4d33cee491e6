import { describe, expect, it } from 'vitest';
import { boundingBox, haversineM } from '../src/domain/geo.js';
import {
  FilterError,
  likeContains,
  parseCsv,
  parseHandoverBound,
} from '../src/domain/project-filters.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import type { ProjectsQuery as ProjectsQueryInput } from '../src/contract/schemas/projects.js';

function failure(query: ProjectsQueryInput): FilterError {
  try {
    parseProjectsQuery(query);
  } catch (error) {
    if (error instanceof FilterError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('parseCsv', () => {
  it('parses, trims, de-duplicates and sorts', () => {
    expect(parseCsv('bedrooms', '3, 1,1 ,0')).toEqual([0, 1, 3]);
    expect(parseCsv('developer_ids', '10')).toEqual([10]);
  });

  it.each([
    ['bedrooms', 'two'],
    ['bedrooms', '6'],
    ['bedrooms', '-1'],
    ['bedrooms', ''],
    ['bedrooms', '1,,2'],
    ['bedrooms', '1.5'],
    ['statuses', '0'],
    ['statuses', '6'],
    ['development_status', '0'],
    ['development_status', '4'],
    ['developer_ids', '0'],
    ['developer_ids', '99999999999'],
    ['unit_types', 'x'],
    ['preference_ids', '1;2'],
    ['unit_preference_ids', ' '],
  ] as const)('%s=%j is rejected naming the parameter', (parameter, raw) => {
    expect(() => parseCsv(parameter, raw)).toThrowError(FilterError);
    try {
      parseCsv(parameter, raw);
    } catch (error) {
      expect((error as FilterError).parameter).toBe(parameter);
      expect((error as Error).message.startsWith(`${parameter} `)).toBe(true);
    }
  });

  it('takes any number of items (GET /companies can list more developers than any fixed cap)', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => 1_000 - i);
    expect(parseCsv('developer_ids', many.join(','))).toEqual([...many].sort((x, y) => x - y));
  });
});

describe('parseHandoverBound', () => {
  it('takes a date as the start of the UTC day for handover_from', () => {
    expect(parseHandoverBound('handover_from', '2026-03-01')).toEqual({ at: '2026-03-01T00:00:00.000Z', inclusive: true });
  });

  it('takes a date as the whole UTC day for handover_to', () => {
    expect(parseHandoverBound('handover_to', '2026-03-31')).toEqual({ at: '2026-04-01T00:00:00.000Z', inclusive: false });
    expect(parseHandoverBound('handover_to', '2026-12-31')).toEqual({ at: '2027-01-01T00:00:00.000Z', inclusive: false });
  });

  it('takes an RFC 3339 date-time as the exact instant, converted to UTC', () => {
    expect(parseHandoverBound('handover_to', '2026-03-31T12:00:00+04:00')).toEqual({ at: '2026-03-31T08:00:00.000Z', inclusive: true });
    expect(parseHandoverBound('handover_from', '2026-03-31t12:00:00.5z')).toEqual({ at: '2026-03-31T12:00:00.500Z', inclusive: true });
  });

  it.each(['2026-13-45', '2026-02-30', '2026-1-1', 'tomorrow', '2026-03-01T25:00:00Z', '2026-03-01T10:00:00', '2026-03-01T10:00:00+24:00', ''])(
    '%j is rejected naming the parameter',
    (raw) => {
      expect(() => parseHandoverBound('handover_from', raw)).toThrowError(/^handover_from must be an RFC 3339 date-time or a YYYY-MM-DD date$/);
    },
  );
});

describe('parseProjectsQuery', () => {
  it('defaults to the first 20 and no filters', () => {
    expect(parseProjectsQuery({})).toEqual({ filters: { nearCategories: [] }, limit: 20, offset: 0, sort: { key: 'name', descending: false }, facets: [], match: false });
  });

  it('takes match=true as a request to show what matched, never as a filter', () => {
    const page = parseProjectsQuery({ bedrooms: '2', match: true });
    expect(page.match).toBe(true);
    expect(page.filters).toEqual(parseProjectsQuery({ bedrooms: '2' }).filters);
    expect(parseProjectsQuery({ match: false }).match).toBe(false);
  });

  it('caps limit at 100 rather than failing', () => {
    expect(parseProjectsQuery({ limit: 1000 }).limit).toBe(100);
    expect(parseProjectsQuery({ limit: 100 }).limit).toBe(100);
    expect(parseProjectsQuery({ limit: 1 }).limit).toBe(1);
  });

  it('rejects limit below 1 and negative offsets', () => {
    expect(failure({ limit: 0 }).parameter).toBe('limit');
    expect(failure({ offset: -1 }).parameter).toBe('offset');
  });

  it('gathers the unit-level filters into one group', () => {
    const { filters } = parseProjectsQuery({ bedrooms: '1,5', price_max: 100, size_min: 50, parking_min: 1, unit_preference_ids: '2,1', statuses: '4' });
    expect(filters.units).toEqual({
      bedrooms: [1],
      bedroomsFiveOrMore: true,
      statuses: [4],
      price: { max: 100 },
      size: { min: 50 },
      parkingMin: 1,
      tagIds: [1, 2],
    });
  });

  it('leaves out the unit group when no unit-level filter is given', () => {
    expect(parseProjectsQuery({ is_branded: false, developer_ids: '10' }).filters).toEqual({ isBranded: false, developerIds: [10], nearCategories: [] });
  });

  it('treats near_*=false and payment_only_post_handover=false as no constraint', () => {
    const { filters } = parseProjectsQuery({ near_airport: true, near_transport: true, near_retail: false, payment_only_post_handover: false });
    expect(filters.nearCategories).toEqual(['airports_ports', 'transport']);
    expect(filters.paymentOnlyPostHandover).toBeUndefined();
  });

  it('ignores a blank search', () => {
    expect(parseProjectsQuery({ search: '   ' }).filters.search).toBeUndefined();
    expect(parseProjectsQuery({ search: ' Marina ' }).filters.search).toBe('Marina');
  });

  it('needs lat, lng and radius_km together, naming the missing one', () => {
    expect(failure({ lat: 25 }).message).toMatch(/lng/);
    expect(failure({ lat: 25, lng: 55 }).message).toMatch(/radius_km/);
    expect(failure({ radius_km: 5 }).message).toMatch(/lat/);
    const { filters } = parseProjectsQuery({ lat: 25, lng: 55, radius_km: 2 });
    expect(filters.geo).toMatchObject({ lat: 25, lng: 55, radiusM: 2000 });
  });

  it('checks ranges it can see (even without the route schema)', () => {
    expect(failure({ lat: 91, lng: 0, radius_km: 1 }).parameter).toBe('lat');
    expect(failure({ lat: 0, lng: 181, radius_km: 1 }).parameter).toBe('lng');
    expect(failure({ lat: 0, lng: 0, radius_km: 0 }).parameter).toBe('radius_km');
    expect(failure({ payment_max_pre_handover: 101 }).parameter).toBe('payment_max_pre_handover');
    expect(failure({ payment_min_after_handover: -1 }).parameter).toBe('payment_min_after_handover');
    expect(failure({ price_max: Infinity }).parameter).toBe('price_max');
    expect(failure({ size_min: Number.NaN }).parameter).toBe('size_min');
    expect(failure({ parking_min: -1 }).parameter).toBe('parking_min');
  });
});

describe('geometry', () => {
  it('haversine agrees with known distances', () => {
    // Dubai Marina to Downtown Dubai is about 20 km.
    expect(haversineM(25.0805, 55.1403, 25.1972, 55.2744)).toBeGreaterThan(18_000);
    expect(haversineM(25.0805, 55.1403, 25.1972, 55.2744)).toBeLessThan(19_500);
    expect(haversineM(0, 0, 0, 1)).toBeCloseTo(111_195.08, 0);
    expect(haversineM(10, 10, 10, 10)).toBe(0);
  });

  it('the bounding box contains the whole circle', () => {
    const box = boundingBox(25, 55, 10_000);
    for (let bearing = 0; bearing < 360; bearing += 5) {
      // A point 9,999 m away along the bearing (spherical destination formula).
      const d = 9_999 / 6371008.8;
      const b = (bearing * Math.PI) / 180;
      const lat1 = (25 * Math.PI) / 180;
      const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
      const lng2 = (55 * Math.PI) / 180 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
      const [lat, lng] = [(lat2 * 180) / Math.PI, (lng2 * 180) / Math.PI];
      expect(lat).toBeGreaterThanOrEqual(box.minLat);
      expect(lat).toBeLessThanOrEqual(box.maxLat);
      expect(lng).toBeGreaterThanOrEqual(box.minLng!);
      expect(lng).toBeLessThanOrEqual(box.maxLng!);
    }
  });

  it('drops the longitude pre-filter near a pole or across the antimeridian', () => {
    expect(boundingBox(89.99, 0, 5_000).minLng).toBeUndefined();
    expect(boundingBox(0, 179.99, 5_000).minLng).toBeUndefined();
    expect(boundingBox(0, 0, 30_000_000)).toEqual({ minLat: -90, maxLat: 90 });
  });
});

describe('likeContains', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(likeContains('50%_off\\')).toBe('%50\\%\\_off\\\\%');
    expect(likeContains('Marina')).toBe('%Marina%');
  });
});
