import { createHash } from 'node:crypto';

/*
 * The demo catalogue, generated as a catalogue bundle (../shared/spec/catalogue-bundle.md) and loaded
 * through the importer like any other data. Deterministic: a seeded PRNG (mulberry32) and timestamps
 * fixed relative to 2026-01-01T00:00:00Z, so the same options always give the same bundle.
 *
 * Default size: 48 projects (~1,750 units, 480 facilities). `projects: N` scales linearly: ~38 units per
 * project below 1,000 projects, ~50 from 1,000 on, and ~10 facilities per project (at least 40 per
 * category). Special records repeat every 48 projects (see SLOT_ROLES), so their share stays the same.
 *
 * Notable records (default options):
 *   companies 1 demo agency (licence approved), 2 second agency (licence pending), 3..13 developers;
 *   9 Binghatti has no contract with the demo agency, 10 Danube Properties only a pending one
 *   (both still have published projects, invisible to the demo agency's keys);
 *   users 1 demo agency owner (author of the demo key), 2 broker, 3 manager, 4 second agency owner;
 *   projects 3 has no units, 6/30 belong to Binghatti, 8/32 in USD, 12 draft, 14 units without price,
 *   18/42 belong to Danube, 20 in EUR, 24 deleted, 38 without coordinates.
 *
 * Codes used here:
 *   project type: 1 apartment, 2 villa, 3 townhouse, 4 penthouse
 *   development_status: 0 announced, 1 early construction, 2 advanced construction, 3 completed (ready)
 *   unit status: 1 announced, 2 EOI, 3 start of sales, 4 on sale, 5 out of stock
 *   unit furnishing: 1 unfurnished, 2 partially furnished, 3 fully furnished, 4 premium
 *   payment plan type: 1 down payment, 2 during construction, 3 on completion / post-handover
 *   company specialisation: 1 residential, 2 commercial, 3 mixed use
 *   user type: 1 agency owner, 2 agency staff, 3 developer staff, 0 former staff
 */

export type DemoBundle = Record<string, unknown[]>;

export const DEMO_AGENCY_ID = 1;
export const DEMO_AUTHOR_ID = 1;
export const SECOND_AGENCY_ID = 2;
export const SECOND_AGENCY_AUTHOR_ID = 4;
export const NON_CONTRACTED_DEVELOPER_ID = 9;
export const PENDING_CONTRACT_DEVELOPER_ID = 10;
export const DEFAULT_DEMO_PROJECTS = 48;
export const DEFAULT_DEMO_SEED = 20260101;

/** Project ids of the special records at default size (they repeat every 48 projects). */
export const DEMO_PROJECTS = {
  withoutUnits: 3,
  draft: 12,
  unpricedUnits: 14,
  deleted: 24,
  withoutCoordinates: 38,
  eur: 20,
  usd: [8, 32],
  nonContracted: [6, 30],
  pendingContract: [18, 42],
} as const;

/** The second agency's key: a fixed test value (its licence is pending, so every call answers 403). */
export const SECOND_AGENCY_API_KEY = `ck_${createHash('sha256').update('catalogue-demo:second-agency:key:v1').digest('hex')}`;

type Rec = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Deterministic randomness and time
// ---------------------------------------------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(min = 0, max = 1): number {
    return min + (max - min) * this.next();
  }
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** Picks a value by weight: [[value, weight], ...]. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    let r = this.next() * total;
    for (const [value, w] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1][0];
  }
  /** k distinct items, in the order drawn. */
  sample<T>(items: readonly T[], k: number): T[] {
    const pool = items.slice();
    const out: T[] = [];
    for (let i = 0; i < k && pool.length > 0; i++) {
      const j = Math.floor(this.next() * pool.length);
      out.push(pool[j]);
      pool[j] = pool[pool.length - 1];
      pool.pop();
    }
    return out;
  }
  hex(length: number): string {
    let s = '';
    while (s.length < length) s += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return s.slice(0, length);
  }
  digits(length: number): string {
    let s = String(this.int(1, 9));
    while (s.length < length) s += String(this.int(0, 9));
    return s;
  }
}

const EPOCH_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** RFC 3339 timestamp `days` (may be fractional or negative) after 2026-01-01T00:00:00Z. */
const tsCache = new Map<number, string>();
function ts(days: number): string {
  const seconds = Math.round((days * DAY_MS) / 1000);
  let value = tsCache.get(seconds);
  if (value === undefined) {
    value = new Date(EPOCH_MS + seconds * 1000).toISOString();
    if (tsCache.size < 100_000) tsCache.set(seconds, value);
  }
  return value;
}

function dateOnly(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString();
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};
const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const FT2_PER_M2 = 10.7639104;
const AED_PER_USD = 3.6725;
const AED_PER_EUR = 4.0;
/** Premiums (branded, penthouse, floor) never push a unit beyond this list price per ft². */
const MAX_AED_PER_FT2 = 3500;

// ---------------------------------------------------------------------------------------------------
// Geography
// ---------------------------------------------------------------------------------------------------

interface AreaDef {
  name: string;
  city: 'Dubai' | 'Abu Dhabi' | 'Sharjah';
  lat: number;
  lng: number;
  /** AED per ft², typical off-plan range. */
  ppf: readonly [number, number];
  /** Views a unit here may have. */
  views: readonly string[];
  towerFloors: readonly [number, number];
  /** Villa and townhouse communities exist here (otherwise towers only). */
  lowRise: boolean;
}

const AREAS: readonly AreaDef[] = [
  { name: 'Dubai Marina', city: 'Dubai', lat: 25.0805, lng: 55.1403, ppf: [1900, 2700], views: ['Sea View', 'Marina View'], towerFloors: [25, 70], lowRise: false },
  { name: 'Downtown Dubai', city: 'Dubai', lat: 25.1972, lng: 55.2744, ppf: [2300, 3300], views: ['Burj Khalifa View'], towerFloors: [30, 75], lowRise: false },
  { name: 'Business Bay', city: 'Dubai', lat: 25.1857, lng: 55.2646, ppf: [1700, 2500], views: ['Burj Khalifa View', 'Canal View'], towerFloors: [20, 55], lowRise: false },
  { name: 'Jumeirah Village Circle', city: 'Dubai', lat: 25.0606, lng: 55.2094, ppf: [1100, 1600], views: ['Park View'], towerFloors: [8, 20], lowRise: true },
  { name: 'Dubai Hills Estate', city: 'Dubai', lat: 25.1122, lng: 55.2466, ppf: [1800, 2600], views: ['Golf Course View', 'Park View', 'Burj Khalifa View'], towerFloors: [10, 30], lowRise: true },
  { name: 'Palm Jumeirah', city: 'Dubai', lat: 25.1124, lng: 55.139, ppf: [2600, 3500], views: ['Sea View'], towerFloors: [8, 25], lowRise: true },
  { name: 'Dubai Creek Harbour', city: 'Dubai', lat: 25.2045, lng: 55.3465, ppf: [1900, 2600], views: ['Creek View', 'Burj Khalifa View'], towerFloors: [30, 50], lowRise: false },
  { name: 'Arjan', city: 'Dubai', lat: 25.0567, lng: 55.2392, ppf: [1000, 1500], views: ['Park View'], towerFloors: [8, 20], lowRise: false },
  { name: 'Al Furjan', city: 'Dubai', lat: 25.0295, lng: 55.15, ppf: [1100, 1600], views: ['Park View'], towerFloors: [6, 15], lowRise: true },
  { name: 'Mohammed Bin Rashid City', city: 'Dubai', lat: 25.1705, lng: 55.2855, ppf: [1700, 2500], views: ['Lagoon View', 'Burj Khalifa View'], towerFloors: [8, 30], lowRise: true },
  { name: 'Jumeirah Lake Towers', city: 'Dubai', lat: 25.0702, lng: 55.1414, ppf: [1300, 1900], views: ['Lake View', 'Sea View'], towerFloors: [30, 45], lowRise: false },
  { name: 'Dubai South', city: 'Dubai', lat: 24.8985, lng: 55.1566, ppf: [900, 1300], views: ['Park View'], towerFloors: [5, 15], lowRise: true },
  { name: 'Meydan', city: 'Dubai', lat: 25.1575, lng: 55.2965, ppf: [1500, 2200], views: ['Lagoon View', 'Burj Khalifa View'], towerFloors: [8, 25], lowRise: true },
  { name: 'Sobha Hartland', city: 'Dubai', lat: 25.1792, lng: 55.3128, ppf: [1800, 2500], views: ['Lagoon View', 'Burj Khalifa View', 'Park View'], towerFloors: [15, 40], lowRise: true },
  { name: 'Saadiyat Island', city: 'Abu Dhabi', lat: 24.5418, lng: 54.4338, ppf: [1800, 2600], views: ['Sea View'], towerFloors: [6, 20], lowRise: true },
  { name: 'Yas Island', city: 'Abu Dhabi', lat: 24.4887, lng: 54.6078, ppf: [1300, 1900], views: ['Sea View', 'Golf Course View'], towerFloors: [6, 25], lowRise: true },
  { name: 'Al Reem Island', city: 'Abu Dhabi', lat: 24.4985, lng: 54.4055, ppf: [1200, 1800], views: ['Sea View'], towerFloors: [20, 50], lowRise: false },
  { name: 'Aljada', city: 'Sharjah', lat: 25.311, lng: 55.4865, ppf: [900, 1300], views: ['Park View'], towerFloors: [6, 15], lowRise: true },
];

/*
 * Further communities, used only by catalogues larger than the default demo (the scale catalogue of
 * the benchmark). Spreading thousands of projects over ~80 real communities instead of 18 keeps the
 * density of projects and facilities, and with it the number of project-facility links, realistic.
 */
const SCALE_AREAS: readonly AreaDef[] = [
  { name: 'Jumeirah Village Triangle', city: 'Dubai', lat: 25.0587, lng: 55.1915, ppf: [1100, 1600], views: ['Park View'], towerFloors: [6, 18], lowRise: true },
  { name: 'Dubai Sports City', city: 'Dubai', lat: 25.0416, lng: 55.22, ppf: [900, 1400], views: ['Golf Course View', 'Park View'], towerFloors: [8, 25], lowRise: true },
  { name: 'Motor City', city: 'Dubai', lat: 25.0488, lng: 55.2363, ppf: [1000, 1500], views: ['Park View'], towerFloors: [5, 15], lowRise: true },
  { name: 'Arabian Ranches', city: 'Dubai', lat: 25.0568, lng: 55.2731, ppf: [1300, 1900], views: ['Golf Course View', 'Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'DAMAC Hills', city: 'Dubai', lat: 25.0237, lng: 55.2491, ppf: [1200, 1800], views: ['Golf Course View', 'Park View'], towerFloors: [6, 20], lowRise: true },
  { name: 'DAMAC Lagoons', city: 'Dubai', lat: 25.0012, lng: 55.2425, ppf: [1100, 1600], views: ['Lagoon View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Town Square', city: 'Dubai', lat: 25.0112, lng: 55.2921, ppf: [900, 1300], views: ['Park View'], towerFloors: [6, 15], lowRise: true },
  { name: 'Mudon', city: 'Dubai', lat: 25.0233, lng: 55.278, ppf: [1000, 1500], views: ['Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'The Valley', city: 'Dubai', lat: 24.9833, lng: 55.4556, ppf: [800, 1200], views: ['Park View'], towerFloors: [3, 5], lowRise: true },
  { name: 'Dubai Silicon Oasis', city: 'Dubai', lat: 25.1185, lng: 55.3848, ppf: [900, 1300], views: ['Park View'], towerFloors: [8, 25], lowRise: true },
  { name: 'International City', city: 'Dubai', lat: 25.165, lng: 55.407, ppf: [700, 1000], views: ['Park View'], towerFloors: [4, 12], lowRise: false },
  { name: 'Al Barsha', city: 'Dubai', lat: 25.11, lng: 55.2, ppf: [1200, 1800], views: ['Park View'], towerFloors: [8, 20], lowRise: true },
  { name: 'Barsha Heights', city: 'Dubai', lat: 25.097, lng: 55.177, ppf: [1200, 1700], views: ['Park View', 'Sea View'], towerFloors: [20, 45], lowRise: false },
  { name: 'Jumeirah', city: 'Dubai', lat: 25.223, lng: 55.255, ppf: [2200, 3300], views: ['Sea View', 'Burj Khalifa View'], towerFloors: [4, 12], lowRise: true },
  { name: 'Umm Suqeim', city: 'Dubai', lat: 25.155, lng: 55.215, ppf: [2000, 3000], views: ['Sea View'], towerFloors: [3, 8], lowRise: true },
  { name: 'Al Safa', city: 'Dubai', lat: 25.178, lng: 55.238, ppf: [1900, 2800], views: ['Burj Khalifa View', 'Park View'], towerFloors: [6, 25], lowRise: true },
  { name: 'City Walk', city: 'Dubai', lat: 25.207, lng: 55.261, ppf: [2200, 3100], views: ['Burj Khalifa View'], towerFloors: [8, 20], lowRise: false },
  { name: 'DIFC', city: 'Dubai', lat: 25.213, lng: 55.282, ppf: [2400, 3400], views: ['Burj Khalifa View'], towerFloors: [30, 60], lowRise: false },
  { name: 'Al Jaddaf', city: 'Dubai', lat: 25.222, lng: 55.33, ppf: [1400, 2000], views: ['Creek View', 'Burj Khalifa View'], towerFloors: [15, 40], lowRise: false },
  { name: 'Dubai Healthcare City', city: 'Dubai', lat: 25.23, lng: 55.323, ppf: [1500, 2100], views: ['Creek View'], towerFloors: [10, 30], lowRise: false },
  { name: 'Deira', city: 'Dubai', lat: 25.27, lng: 55.31, ppf: [1000, 1500], views: ['Creek View'], towerFloors: [10, 30], lowRise: false },
  { name: 'Al Karama', city: 'Dubai', lat: 25.248, lng: 55.305, ppf: [1000, 1500], views: ['Park View'], towerFloors: [8, 20], lowRise: false },
  { name: 'Dubai Festival City', city: 'Dubai', lat: 25.22, lng: 55.355, ppf: [1400, 2000], views: ['Creek View'], towerFloors: [8, 25], lowRise: true },
  { name: 'Al Quoz', city: 'Dubai', lat: 25.14, lng: 55.23, ppf: [1100, 1600], views: ['Park View'], towerFloors: [5, 15], lowRise: false },
  { name: 'Jumeirah Golf Estates', city: 'Dubai', lat: 25.02, lng: 55.2, ppf: [1500, 2300], views: ['Golf Course View'], towerFloors: [4, 10], lowRise: true },
  { name: 'Discovery Gardens', city: 'Dubai', lat: 25.04, lng: 55.14, ppf: [900, 1300], views: ['Park View'], towerFloors: [4, 10], lowRise: false },
  { name: 'Jebel Ali', city: 'Dubai', lat: 25.0, lng: 55.11, ppf: [900, 1400], views: ['Sea View', 'Park View'], towerFloors: [4, 12], lowRise: true },
  { name: 'Emaar South', city: 'Dubai', lat: 24.87, lng: 55.18, ppf: [900, 1300], views: ['Golf Course View', 'Park View'], towerFloors: [4, 10], lowRise: true },
  { name: 'Dubai Islands', city: 'Dubai', lat: 25.297, lng: 55.299, ppf: [1800, 2600], views: ['Sea View'], towerFloors: [6, 20], lowRise: true },
  { name: 'Jumeirah Beach Residence', city: 'Dubai', lat: 25.078, lng: 55.134, ppf: [2000, 2900], views: ['Sea View'], towerFloors: [30, 50], lowRise: false },
  { name: 'Emaar Beachfront', city: 'Dubai', lat: 25.095, lng: 55.142, ppf: [2500, 3400], views: ['Sea View', 'Marina View'], towerFloors: [25, 55], lowRise: false },
  { name: 'Al Warsan', city: 'Dubai', lat: 25.16, lng: 55.42, ppf: [700, 1100], views: ['Park View'], towerFloors: [4, 12], lowRise: false },
  { name: 'Mirdif', city: 'Dubai', lat: 25.22, lng: 55.42, ppf: [1100, 1600], views: ['Park View'], towerFloors: [3, 8], lowRise: true },
  { name: 'Nad Al Sheba', city: 'Dubai', lat: 25.16, lng: 55.33, ppf: [1300, 1900], views: ['Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Dubai Production City', city: 'Dubai', lat: 25.031, lng: 55.185, ppf: [900, 1300], views: ['Park View'], towerFloors: [8, 20], lowRise: false },
  { name: 'Dubai Investments Park', city: 'Dubai', lat: 24.987, lng: 55.16, ppf: [800, 1200], views: ['Park View'], towerFloors: [4, 12], lowRise: true },
  { name: 'Al Sufouh', city: 'Dubai', lat: 25.105, lng: 55.16, ppf: [1800, 2600], views: ['Sea View', 'Park View'], towerFloors: [10, 30], lowRise: false },
  { name: 'Dubai Maritime City', city: 'Dubai', lat: 25.265, lng: 55.275, ppf: [1600, 2300], views: ['Sea View'], towerFloors: [15, 40], lowRise: false },
  { name: 'Al Raha Beach', city: 'Abu Dhabi', lat: 24.455, lng: 54.6, ppf: [1200, 1800], views: ['Sea View'], towerFloors: [10, 30], lowRise: true },
  { name: 'Khalifa City', city: 'Abu Dhabi', lat: 24.42, lng: 54.58, ppf: [900, 1300], views: ['Park View'], towerFloors: [3, 8], lowRise: true },
  { name: 'Masdar City', city: 'Abu Dhabi', lat: 24.427, lng: 54.615, ppf: [1000, 1500], views: ['Park View'], towerFloors: [4, 12], lowRise: false },
  { name: 'Al Reef', city: 'Abu Dhabi', lat: 24.46, lng: 54.68, ppf: [800, 1200], views: ['Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Al Maryah Island', city: 'Abu Dhabi', lat: 24.5, lng: 54.39, ppf: [1500, 2200], views: ['Sea View'], towerFloors: [25, 50], lowRise: false },
  { name: 'Al Khalidiyah', city: 'Abu Dhabi', lat: 24.47, lng: 54.35, ppf: [1200, 1800], views: ['Sea View'], towerFloors: [15, 35], lowRise: false },
  { name: 'Mohammed Bin Zayed City', city: 'Abu Dhabi', lat: 24.34, lng: 54.54, ppf: [700, 1100], views: ['Park View'], towerFloors: [3, 8], lowRise: true },
  { name: 'Al Shamkha', city: 'Abu Dhabi', lat: 24.39, lng: 54.7, ppf: [700, 1100], views: ['Park View'], towerFloors: [3, 5], lowRise: true },
  { name: 'Jubail Island', city: 'Abu Dhabi', lat: 24.54, lng: 54.47, ppf: [1600, 2400], views: ['Sea View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Al Ghadeer', city: 'Abu Dhabi', lat: 24.84, lng: 55.0, ppf: [600, 900], views: ['Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Al Majaz', city: 'Sharjah', lat: 25.325, lng: 55.385, ppf: [800, 1200], views: ['Lake View'], towerFloors: [15, 35], lowRise: false },
  { name: 'Al Khan', city: 'Sharjah', lat: 25.32, lng: 55.365, ppf: [800, 1200], views: ['Sea View', 'Lake View'], towerFloors: [15, 40], lowRise: false },
  { name: 'Muwaileh', city: 'Sharjah', lat: 25.29, lng: 55.46, ppf: [700, 1000], views: ['Park View'], towerFloors: [6, 15], lowRise: true },
  { name: 'Tilal City', city: 'Sharjah', lat: 25.295, lng: 55.65, ppf: [500, 800], views: ['Park View'], towerFloors: [3, 6], lowRise: true },
  { name: 'Sharjah Waterfront City', city: 'Sharjah', lat: 25.43, lng: 55.44, ppf: [900, 1400], views: ['Sea View'], towerFloors: [6, 20], lowRise: true },
  { name: 'Al Zahia', city: 'Sharjah', lat: 25.287, lng: 55.49, ppf: [800, 1200], views: ['Park View'], towerFloors: [3, 8], lowRise: true },
];

/** Areas on the sea, a canal or the creek: the only ones with marinas, water taxis and ferries. */
const WATERFRONT_AREAS = new Set(['Dubai Marina', 'Palm Jumeirah', 'Dubai Creek Harbour', 'Business Bay', 'Saadiyat Island', 'Yas Island', 'Al Reem Island']);

const ALL_AREAS: readonly AreaDef[] = [...AREAS, ...SCALE_AREAS];
const CITY_AREAS: Readonly<Record<AreaDef['city'], readonly AreaDef[]>> = {
  Dubai: ALL_AREAS.filter((a) => a.city === 'Dubai'),
  'Abu Dhabi': ALL_AREAS.filter((a) => a.city === 'Abu Dhabi'),
  Sharjah: ALL_AREAS.filter((a) => a.city === 'Sharjah'),
};
const AREA_ID_BY_NAME = new Map(ALL_AREAS.map((a, i) => [a.name, i + 1]));
const CITY_PHONE_CODE: Record<AreaDef['city'], string> = { Dubai: '4', 'Abu Dhabi': '2', Sharjah: '6' };

const M_PER_DEG_LAT = 111_320;

/** A point `distanceM` metres from (lat, lng) on a bearing in radians (flat-earth, fine at these scales). */
function offsetPoint(lat: number, lng: number, distanceM: number, bearing: number): [number, number] {
  const dLat = (distanceM * Math.cos(bearing)) / M_PER_DEG_LAT;
  const dLng = (distanceM * Math.sin(bearing)) / (M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180));
  return [round(lat + dLat, 6), round(lng + dLng, 6)];
}

/** Uniform point in the ring between minM and maxM around (lat, lng). */
function pointNear(rng: Rng, lat: number, lng: number, minM: number, maxM: number): [number, number] {
  const d = Math.sqrt(rng.float(minM * minM, maxM * maxM));
  return offsetPoint(lat, lng, d, rng.float(0, 2 * Math.PI));
}

// ---------------------------------------------------------------------------------------------------
// Reference lists
// ---------------------------------------------------------------------------------------------------

const UNIT_TAGS = [
  'Sea View', 'Burj Khalifa View', 'Marina View', 'Golf Course View', 'Park View', 'Lagoon View', 'Creek View', 'Canal View', 'Lake View',
  'Corner Unit', "Maid's Room", 'Private Pool', 'Balcony', 'Study Room', 'High Floor', 'Upgraded Kitchen',
  'Walk-in Wardrobe', 'Private Garden',
] as const;
const TAG_ID = new Map<string, number>(UNIT_TAGS.map((t, i) => [t, i + 1]));
const tagId = (name: string): number => {
  const id = TAG_ID.get(name);
  if (id === undefined) throw new Error(`unknown unit tag ${name}`);
  return id;
};

const PROJECT_FEATURES: readonly (readonly [string, 1 | 2])[] = [
  ['Smart Home', 1], ['Private Beach Access', 1], ['Waterfront', 1], ['Golf Course Frontage', 1], ['Freehold', 1],
  ['Branded Interiors', 1], ['Floor-to-Ceiling Windows', 1], ['Built-in Wardrobes', 1], ['Central A/C (Chiller-free)', 1],
  ['Private Lift Lobby', 1], ['LEED Certified', 1], ['Metro Access', 1],
  ['Swimming Pool', 2], ['Gym', 2], ['Kids Play Area', 2], ['Concierge', 2], ['Covered Parking', 2], ['24/7 Security', 2],
  ['Jogging Track', 2], ['BBQ Area', 2], ['Spa & Sauna', 2], ['Co-working Lounge', 2], ['Padel Court', 2],
  ['Infinity Pool', 2], ['Landscaped Gardens', 2], ['Cinema Room', 2],
];

// ---------------------------------------------------------------------------------------------------
// Companies and people
// ---------------------------------------------------------------------------------------------------

interface DeveloperDef {
  id: number;
  name: string;
  legal: string;
  slug: string;
  areas: readonly string[];
  founded: number;
  office: string;
  /** Relative share of the generated projects among contracted developers. */
  weight: number;
  specialisation: number;
  about: string;
}

const DEVELOPERS: readonly DeveloperDef[] = [
  { id: 3, name: 'Emaar Properties', legal: 'Emaar Properties PJSC', slug: 'emaar', areas: ['Downtown Dubai', 'Dubai Hills Estate', 'Dubai Creek Harbour', 'Dubai Marina'], founded: 1997, office: 'Emaar Square, Building 3, Downtown Dubai, Dubai', weight: 5, specialisation: 3, about: 'Master developer behind Downtown Dubai, Dubai Hills Estate and Dubai Creek Harbour.' },
  { id: 4, name: 'DAMAC Properties', legal: 'DAMAC Properties Dubai Co. PJSC', slug: 'damac', areas: ['Business Bay', 'Dubai Marina', 'Jumeirah Lake Towers', 'Dubai South'], founded: 2002, office: 'DAMAC Executive Heights, Barsha Heights, Dubai', weight: 4, specialisation: 1, about: 'Luxury residential developer known for branded towers and golf communities.' },
  { id: 5, name: 'Sobha Realty', legal: 'Sobha LLC', slug: 'sobha', areas: ['Sobha Hartland', 'Mohammed Bin Rashid City', 'Meydan'], founded: 1976, office: 'Sobha Sales Centre, Al Khail Road, Meydan, Dubai', weight: 3, specialisation: 1, about: 'Backward-integrated developer building master communities around Meydan and MBR City.' },
  { id: 6, name: 'Nakheel', legal: 'Nakheel PJSC', slug: 'nakheel', areas: ['Palm Jumeirah', 'Al Furjan', 'Jumeirah Village Circle'], founded: 2000, office: 'Nakheel Sales Centre, Al Sufouh, Dubai', weight: 2, specialisation: 3, about: 'Master developer of Palm Jumeirah and large waterfront and suburban communities.' },
  { id: 7, name: 'Meraas', legal: 'Meraas Holding LLC', slug: 'meraas', areas: ['Dubai Hills Estate', 'Palm Jumeirah', 'Downtown Dubai'], founded: 2007, office: 'Meraas Sales Centre, City Walk, Dubai', weight: 2, specialisation: 3, about: 'Lifestyle destination developer behind beachfront and urban mixed-use districts.' },
  { id: 8, name: 'Ellington Properties', legal: 'Ellington Properties Development LLC', slug: 'ellington', areas: ['Jumeirah Village Circle', 'Mohammed Bin Rashid City', 'Dubai Hills Estate', 'Arjan'], founded: 2014, office: 'Ellington Sales Gallery, Sheikh Zayed Road, Dubai', weight: 2, specialisation: 1, about: 'Design-led boutique developer of residential buildings.' },
  { id: 9, name: 'Binghatti', legal: 'Binghatti Developers FZE', slug: 'binghatti', areas: ['Business Bay', 'Jumeirah Village Circle', 'Arjan', 'Al Furjan'], founded: 2008, office: 'Binghatti Stars, Dubai Silicon Oasis, Dubai', weight: 0, specialisation: 1, about: 'Developer of architecturally distinctive towers with fast delivery schedules.' },
  { id: 10, name: 'Danube Properties', legal: 'Danube Properties Development LLC', slug: 'danube', areas: ['Arjan', 'Al Furjan', 'Jumeirah Lake Towers', 'Dubai South'], founded: 2014, office: 'Danube Sales Centre, Al Barsha 1, Dubai', weight: 0, specialisation: 1, about: 'Affordable furnished homes with 1% monthly payment plans.' },
  { id: 11, name: 'Azizi Developments', legal: 'Azizi Developments LLC', slug: 'azizi', areas: ['Meydan', 'Al Furjan', 'Dubai South', 'Palm Jumeirah'], founded: 2007, office: 'Azizi Sales Centre, Al Khail Road, Dubai', weight: 2, specialisation: 1, about: 'Residential developer with large communities in Meydan and Dubai South.' },
  { id: 12, name: 'Aldar Properties', legal: 'Aldar Properties PJSC', slug: 'aldar', areas: ['Saadiyat Island', 'Yas Island', 'Al Reem Island'], founded: 2005, office: 'Aldar HQ, Al Raha Beach, Abu Dhabi', weight: 3, specialisation: 3, about: 'Abu Dhabi master developer of Saadiyat, Yas and Al Reem islands.' },
  { id: 13, name: 'Arada', legal: 'Arada Developments LLC', slug: 'arada', areas: ['Aljada', 'Dubai South'], founded: 2017, office: 'Aljada Discovery Centre, Muwaileh, Sharjah', weight: 1, specialisation: 3, about: 'Sharjah developer of the Aljada mega-project and wellness-focused communities.' },
];

/** First names, last names and spoken languages that belong together. */
const NAME_GROUPS: readonly { first: readonly string[]; last: readonly string[]; languages: readonly string[][] }[] = [
  { first: ['Ahmed', 'Fatima', 'Omar', 'Aisha', 'Rashid', 'Mariam', 'Yousef', 'Noura', 'Hamdan', 'Shamma'], last: ['Al Nuaimi', 'Al Falasi', 'Al Shamsi', 'Al Marzooqi', 'Al Ketbi', 'Al Mheiri'], languages: [['English', 'Arabic']] },
  { first: ['Hassan', 'Layla', 'Karim', 'Nadia', 'Rami', 'Hiba', 'Tarek', 'Yasmin'], last: ['Haddad', 'Khoury', 'Nasser', 'Farouk', 'Saleh', 'Mansour'], languages: [['English', 'Arabic'], ['English', 'Arabic', 'French']] },
  { first: ['Priya', 'Rahul', 'Anjali', 'Vikram', 'Arjun', 'Neha', 'Rohan', 'Kavya'], last: ['Sharma', 'Patel', 'Nair', 'Iyer', 'Menon', 'Kapoor', 'Reddy'], languages: [['English', 'Hindi'], ['English', 'Hindi', 'Urdu'], ['English', 'Malayalam', 'Hindi']] },
  { first: ['Imran', 'Zainab', 'Bilal', 'Ayesha', 'Usman', 'Sana'], last: ['Qureshi', 'Siddiqui', 'Rahman', 'Hussain', 'Malik', 'Chaudhry'], languages: [['English', 'Urdu'], ['English', 'Urdu', 'Arabic']] },
  { first: ['Olga', 'Dmitri', 'Anna', 'Sergei', 'Ekaterina', 'Alexei', 'Natalia'], last: ['Ivanov', 'Petrov', 'Smirnov', 'Volkov', 'Sokolov', 'Morozov'], languages: [['English', 'Russian'], ['English', 'Russian', 'Ukrainian']] },
  { first: ['James', 'Emily', 'Oliver', 'Charlotte', 'Harry', 'Sophie', 'Thomas', 'Lucy'], last: ['Thompson', 'Clarke', 'Hughes', 'Bennett', 'Whitfield', 'Harris', 'Walker'], languages: [['English'], ['English', 'Spanish']] },
  { first: ['Lucas', 'Chloé', 'Julien', 'Camille', 'Antoine', 'Manon'], last: ['Dubois', 'Moreau', 'Laurent', 'Lefèvre', 'Girard'], languages: [['English', 'French'], ['English', 'French', 'Arabic']] },
  { first: ['Marco', 'Giulia', 'Luca', 'Francesca', 'Matteo'], last: ['Rossi', 'Bianchi', 'Romano', 'Ricci', 'Conti'], languages: [['English', 'Italian']] },
  { first: ['Mehmet', 'Elif', 'Emre', 'Zeynep', 'Can'], last: ['Yilmaz', 'Demir', 'Kaya', 'Şahin', 'Çelik'], languages: [['English', 'Turkish'], ['English', 'Turkish', 'Arabic']] },
  { first: ['Wei', 'Mei', 'Li', 'Jing', 'Hao'], last: ['Chen', 'Wang', 'Zhang', 'Liu', 'Huang'], languages: [['English', 'Mandarin']] },
  { first: ['Carlos', 'Sofia', 'Diego', 'Ana', 'Joseph', 'Grace'], last: ['Fernandes', 'Garcia', 'Silva', 'Mendes', 'Mensah', 'Okafor'], languages: [['English', 'Spanish', 'Portuguese'], ['English', 'Portuguese'], ['English']] },
];

function person(rng: Rng): { name: string; languages: string[] } {
  const group = rng.pick(NAME_GROUPS);
  return { name: `${rng.pick(group.first)} ${rng.pick(group.last)}`, languages: rng.pick(group.languages).slice() };
}

const MOBILE_PREFIXES = ['50', '52', '54', '55', '56', '58'] as const;

function mobile(rng: Rng): string {
  return `+971 ${rng.pick(MOBILE_PREFIXES)} ${rng.digits(3)} ${rng.digits(4)}`;
}

function handleOf(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.')
    .replace(/^\.|\.$/g, '');
}

// ---------------------------------------------------------------------------------------------------
// Projects: slots, names, payment plans
// ---------------------------------------------------------------------------------------------------

type SlotRole =
  | 'normal'
  | 'noUnits'
  | 'nonContracted'
  | 'pendingContract'
  | 'usd'
  | 'eur'
  | 'draft'
  | 'unpriced'
  | 'deleted'
  | 'noCoordinates';

/** Special project roles by index modulo 48 (the project id is index + 1). */
const SLOT_ROLES: Readonly<Record<number, SlotRole>> = {
  2: 'noUnits',
  5: 'nonContracted',
  7: 'usd',
  11: 'draft',
  13: 'unpriced',
  17: 'pendingContract',
  19: 'eur',
  23: 'deleted',
  29: 'nonContracted',
  31: 'usd',
  37: 'noCoordinates',
  41: 'pendingContract',
};
const SLOT_PERIOD = 48;

const NAME_LEADS = [
  'Azure', 'Skyline', 'Emerald', 'Pearl', 'Coral', 'Ocean', 'Harbour', 'Sunset', 'Serene', 'Royal', 'Elara', 'Aurora', 'Avalon',
  'Sapphire', 'Horizon', 'Cedar', 'Amber', 'Oasis', 'Lagoon', 'Grove', 'Crest', 'Verde', 'Solace', 'Zenith', 'Nova', 'Luma',
  'Orchid', 'Palmera', 'Sereno', 'Celeste',
];
const NAME_MIDDLES = [
  'Vista', 'Heights', 'Gate', 'View', 'Point', 'Edge', 'Square', 'Walk', 'Terraces', 'Sky', 'Rise', 'Place', 'Park', 'Bay', 'Gardens',
];
const AREA_NAME_LEADS: Readonly<Record<string, readonly string[]>> = {
  'Dubai Marina': ['Marina'],
  'Downtown Dubai': ['Downtown', 'Boulevard'],
  'Business Bay': ['Bay', 'Canal'],
  'Jumeirah Village Circle': ['Circle', 'Village'],
  'Dubai Hills Estate': ['Hills', 'Golf'],
  'Palm Jumeirah': ['Palm', 'Crescent'],
  'Dubai Creek Harbour': ['Creek', 'Harbour'],
  Arjan: ['Arjan', 'Garden'],
  'Al Furjan': ['Furjan'],
  'Mohammed Bin Rashid City': ['District One', 'Crystal'],
  'Jumeirah Lake Towers': ['Lakeside', 'Cluster'],
  'Dubai South': ['Southside', 'Aviation'],
  Meydan: ['Meydan', 'Riviera'],
  'Sobha Hartland': ['Hartland', 'Waterfront'],
  'Saadiyat Island': ['Saadiyat', 'Cultural'],
  'Yas Island': ['Yas', 'Bay'],
  'Al Reem Island': ['Reem', 'Shams'],
  Aljada: ['Aljada', 'Sahab'],
};
const NAME_SUFFIXES: Readonly<Record<number, readonly string[]>> = {
  1: ['Residences', 'Tower', 'Apartments', 'Suites', 'Residence'],
  2: ['Villas', 'Estates', 'Mansions'],
  3: ['Townhouses', 'Mews', 'Townhomes'],
  4: ['Penthouses', 'Sky Residences', 'Sky Collection'],
};
const TYPE_WORDS: Readonly<Record<number, string>> = { 1: 'apartment', 2: 'villa', 3: 'townhouse', 4: 'penthouse' };

type Plan = readonly (readonly [number, number])[];
const PAYMENT_PLANS: readonly (readonly [Plan, number])[] = [
  [[[1, 20], [2, 40], [3, 40]], 5],
  [[[1, 10], [2, 50], [3, 40]], 4],
  [[[1, 60], [2, 40]], 2],
  [[[1, 10], [2, 20], [3, 70]], 2],
  [[[1, 20], [2, 30], [3, 50]], 3],
  [[[1, 10], [2, 40], [3, 50]], 2],
  [[[1, 20], [2, 50], [3, 30]], 3],
  [[[1, 5], [2, 45], [3, 50]], 1],
  [[[1, 25], [2, 75]], 1],
  [[[1, 10], [2, 10], [2, 10], [2, 10], [2, 20], [3, 40]], 1],
  [[[1, 20], [2, 20], [2, 20], [3, 40]], 1],
];
const READY_PLANS: readonly (readonly [Plan, number])[] = [
  [[[1, 100]], 2],
  [[[1, 30], [3, 70]], 2],
  [[[1, 50], [3, 50]], 1],
];

const ESCROW_BANKS: Readonly<Record<AreaDef['city'], readonly string[]>> = {
  Dubai: ['Emirates NBD', 'Dubai Islamic Bank', 'Mashreq Bank', 'Commercial Bank of Dubai', 'Abu Dhabi Commercial Bank'],
  'Abu Dhabi': ['First Abu Dhabi Bank', 'Abu Dhabi Commercial Bank', 'Abu Dhabi Islamic Bank'],
  Sharjah: ['Sharjah Islamic Bank', 'Emirates Islamic', 'Bank of Sharjah'],
};

interface ProjectInfo {
  id: number;
  devId: number;
  area: AreaDef;
  type: number;
  role: SlotRole;
  lat?: number;
  lng?: number;
  currency: string;
  isBranded: boolean;
  developmentStatus: number;
  totalFloors: number;
  createdDays: number;
  hasUnitPlans: boolean;
  name: string;
}

// ---------------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------------

export interface DemoBundleOptions {
  /** Number of projects (default 48). */
  projects?: number;
  /** PRNG seed (default DEFAULT_DEMO_SEED). */
  seed?: number;
  /**
   * Total facilities, spread evenly over the 8 categories (at least 30 each). Default: ~10 per project,
   * at least 40 per category. The geography is fixed, so facility density (and the importer's
   * project-facility links within FACILITY_LINK_RADIUS_M) grows with this number: lower it for big runs.
   */
  facilities?: number;
}

export function generateDemoBundle(options: DemoBundleOptions = {}): DemoBundle {
  const projectCount = Math.max(0, Math.floor(options.projects ?? DEFAULT_DEMO_PROJECTS));
  const rng = new Rng(options.seed ?? DEFAULT_DEMO_SEED);
  // Beyond the default size the catalogue spreads over the further communities too. The default demo
  // (and every catalogue up to its size) is unchanged by this, record for record.
  const scale = projectCount > DEFAULT_DEMO_PROJECTS;
  const areaList = scale ? ALL_AREAS : AREAS;

  const files: Rec[] = [];
  const addFile = (path: string, originalName: string, mime: string, minKb: number, maxKb: number, createdDays: number): number => {
    const id = files.length + 1;
    const ext = path.slice(path.lastIndexOf('.'));
    files.push({
      id,
      path,
      original_name: originalName,
      storage_name: `${rng.hex(32)}${ext}`,
      mime_type: mime,
      size: rng.int(minKb * 1024, maxKb * 1024),
      created_at: ts(createdDays),
      updated_at: ts(createdDays),
    });
    return id;
  };

  // Reference lists -------------------------------------------------------------------------------
  const refCreated = ts(-730);
  const areas: Rec[] = areaList.map((a, i) => ({ id: i + 1, name: a.name, city: a.city, created_at: refCreated, updated_at: refCreated }));
  const unitTags: Rec[] = UNIT_TAGS.map((name, i) => ({ id: i + 1, name, created_at: refCreated, updated_at: refCreated }));
  const projectFeatures: Rec[] = PROJECT_FEATURES.map(([name, type], i) => ({ id: i + 1, name, type, created_at: refCreated, updated_at: refCreated }));
  const featureIds = PROJECT_FEATURES.map((_, i) => i + 1);

  // Companies -------------------------------------------------------------------------------------
  const companies: Rec[] = [];
  const demoLogo = addFile(`companies/${DEMO_AGENCY_ID}/logo.png`, 'desert-rose-logo.png', 'image/png', 12, 80, -700);
  companies.push({
    id: DEMO_AGENCY_ID,
    company_type: 2,
    company_name: 'Desert Rose Real Estate',
    legal_name: 'Desert Rose Real Estate Brokers LLC',
    trade_license_code: '1043287',
    rera_license_code: 'ORN 28451',
    preferred_contact_email: 'hello@desertrose.example',
    preferred_contact_phone: '+971 4 512 3400',
    office_address: 'Office 2104, Marina Plaza, Dubai Marina, Dubai',
    po_box_number: '213877',
    logo_file_id: demoLogo,
    organisation_description: 'Boutique brokerage focused on off-plan and ready homes across Dubai and Abu Dhabi.',
    specialisation: 1,
    project_portfolio_url: 'https://www.desertrose.example/projects',
    trade_license_document_verified: true,
    rera_certificate_verified: true,
    identification_document_verified: true,
    status: 1,
    licence_status: 'approved',
    created_at: ts(-700),
    updated_at: ts(-30),
  });
  companies.push({
    id: SECOND_AGENCY_ID,
    company_type: 2,
    company_name: 'Blue Creek Properties',
    legal_name: 'Blue Creek Properties Brokerage LLC',
    trade_license_code: '1187654',
    rera_license_code: 'ORN 41207',
    preferred_contact_email: 'info@bluecreek.example',
    preferred_contact_phone: '+971 4 388 1200',
    office_address: 'Office 905, Bay Square Building 11, Business Bay, Dubai',
    po_box_number: '450122',
    organisation_description: 'Newly registered brokerage; licence documents under review.',
    specialisation: 1,
    trade_license_document_verified: true,
    rera_certificate_verified: false,
    identification_document_verified: true,
    status: 1,
    licence_status: 'pending',
    created_at: ts(-45),
    updated_at: ts(-10),
  });
  for (const d of DEVELOPERS) {
    const logo = addFile(`companies/${d.id}/logo.png`, `${d.slug}-logo.png`, 'image/png', 15, 120, -650);
    const city: AreaDef['city'] = d.slug === 'aldar' ? 'Abu Dhabi' : d.slug === 'arada' ? 'Sharjah' : 'Dubai';
    companies.push({
      id: d.id,
      company_type: 3,
      company_name: d.name,
      legal_name: d.legal,
      trade_license_code: rng.digits(6),
      rera_license_code: city === 'Dubai' ? `DEV-${rng.digits(4)}` : city === 'Abu Dhabi' ? `ADREC-D-${rng.digits(4)}` : `SRERD-${rng.digits(4)}`,
      preferred_contact_email: `sales@${d.slug}.example`,
      preferred_contact_phone: `+971 ${CITY_PHONE_CODE[city]} ${rng.digits(3)} ${rng.digits(4)}`,
      office_address: d.office,
      po_box_number: rng.digits(rng.int(5, 6)),
      logo_file_id: logo,
      organisation_description: `${d.about} Founded in ${d.founded}.`,
      specialisation: d.specialisation,
      project_portfolio_url: `https://www.${d.slug}.example/projects`,
      trade_license_document_verified: true,
      rera_certificate_verified: true,
      identification_document_verified: true,
      status: 1,
      licence_status: 'approved',
      created_at: ts(-650),
      updated_at: ts(-rng.int(5, 90)),
    });
  }

  // Users and members -----------------------------------------------------------------------------
  const users: Rec[] = [];
  const members: Rec[] = [];
  const usedEmails = new Set<string>();
  const addUser = (name: string, domain: string, type: number, createdDays: number, deleted = false): number => {
    const id = users.length + 1;
    let email = `${handleOf(name)}@${domain}`;
    for (let n = 2; usedEmails.has(email); n++) email = `${handleOf(name)}${n}@${domain}`;
    usedEmails.add(email);
    const user: Rec = { id, name, email, status: 1, type, created_at: ts(createdDays), updated_at: ts(createdDays + 10) };
    if (deleted) user.deleted = true;
    users.push(user);
    return id;
  };
  const socialLinks = (name: string, phone: string, domain: string): Rec => {
    const h = handleOf(name).replace(/\./g, '_');
    const links: Rec = {};
    if (rng.chance(0.6)) links.telegram = `@${h}`;
    if (rng.chance(0.7)) links.instagram = h;
    if (rng.chance(0.8)) links.linkedin = `https://www.linkedin.com/in/${h.replace(/_/g, '-')}`;
    if (rng.chance(0.3)) links.facebook = `https://www.facebook.com/${h}`;
    if (rng.chance(0.25)) links.twitter = `@${h}`;
    if (rng.chance(0.7)) links.whatsapp = phone.replace(/ /g, '');
    if (rng.chance(0.3)) links.website = `https://www.${domain}`;
    return links;
  };
  const addMember = (
    companyId: number,
    userId: number,
    role: string,
    name: string,
    languages: string[],
    domain: string,
    bio: string,
    withAvatar: boolean,
  ): void => {
    const phone = mobile(rng);
    const member: Rec = {
      company_id: companyId,
      user_id: userId,
      role,
      contact_phone: phone,
      social_links: socialLinks(name, phone, domain),
      languages,
      bio,
    };
    if (withAvatar) member.avatar_file_id = addFile(`users/${userId}/avatar.jpg`, `${handleOf(name)}.jpg`, 'image/jpeg', 40, 400, -300);
    members.push(member);
  };

  // Demo agency: owner (the demo key's author), a broker and a manager.
  const owner = addUser('Rania Haddad', 'desertrose.example', 1, -700);
  addMember(DEMO_AGENCY_ID, owner, 'ceo', 'Rania Haddad', ['English', 'Arabic', 'French'], 'desertrose.example', 'Founder of Desert Rose; 15 years in Dubai residential sales.', true);
  const broker = addUser('Arjun Mehta', 'desertrose.example', 2, -500);
  addMember(DEMO_AGENCY_ID, broker, 'broker', 'Arjun Mehta', ['English', 'Hindi'], 'desertrose.example', 'Off-plan specialist for Dubai Marina and JLT.', true);
  const manager = addUser('Elena Volkova', 'desertrose.example', 2, -400);
  addMember(DEMO_AGENCY_ID, manager, 'manager', 'Elena Volkova', ['English', 'Russian'], 'desertrose.example', 'Sales manager; Russian- and English-speaking investor desk.', false);
  // Second agency.
  const secondOwner = addUser('Khalid Al Suwaidi', 'bluecreek.example', 1, -45);
  addMember(SECOND_AGENCY_ID, secondOwner, 'ceo', 'Khalid Al Suwaidi', ['English', 'Arabic'], 'bluecreek.example', 'Managing partner of Blue Creek Properties.', false);
  const secondBroker = addUser('Sophie Laurent', 'bluecreek.example', 2, -40);
  addMember(SECOND_AGENCY_ID, secondBroker, 'broker', 'Sophie Laurent', ['English', 'French'], 'bluecreek.example', 'Waterfront and Abu Dhabi island specialist.', true);
  if (owner !== DEMO_AUTHOR_ID || secondOwner !== SECOND_AGENCY_AUTHOR_ID) throw new Error('demo user ids drifted');

  // Developers: a CEO and 1..3 contacts each. The first developer also has a former (deleted) employee.
  const developerAuthors = new Map<number, number[]>();
  DEVELOPERS.forEach((d, index) => {
    const domain = `${d.slug}.example`;
    const count = index === 0 ? 4 : rng.int(2, 4);
    const authors: number[] = [];
    for (let k = 0; k < count; k++) {
      const { name, languages } = person(rng);
      const formerEmployee = index === 0 && k === count - 1;
      const userId = addUser(name, domain, formerEmployee ? 0 : 3, -rng.int(200, 600), formerEmployee);
      const role = k === 0 ? 'ceo' : k === 1 ? rng.pick(['manager', 'broker']) : rng.pick(['broker', 'sales', 'manager']);
      const bio =
        k === 0
          ? `Chief Executive Officer of ${d.name}.`
          : `${role === 'manager' ? 'Sales manager' : role === 'sales' ? 'Sales executive' : 'Property consultant'} at ${d.name}, covering ${rng.pick(d.areas)}.`;
      addMember(d.id, userId, role, name, languages, domain, bio, k > 0 && rng.chance(0.6));
      if (!formerEmployee && (k === 0 || role === 'manager')) authors.push(userId);
    }
    developerAuthors.set(d.id, authors);
  });

  // Contracts -------------------------------------------------------------------------------------
  const contracts: Rec[] = [];
  for (const d of DEVELOPERS) {
    if (d.id === NON_CONTRACTED_DEVELOPER_ID) continue;
    contracts.push({ agency_id: DEMO_AGENCY_ID, developer_id: d.id, status: d.id === PENDING_CONTRACT_DEVELOPER_ID ? 'pending' : 'approved' });
  }
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 3, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: NON_CONTRACTED_DEVELOPER_ID, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 12, status: 'approved' });
  contracts.push({ agency_id: SECOND_AGENCY_ID, developer_id: 4, status: 'rejected' });

  // API keys: only the second agency's; the demo agency's key is created (and printed) at start-up.
  const apiKeys: Rec[] = [
    {
      id: 1,
      company_id: SECOND_AGENCY_ID,
      author_id: SECOND_AGENCY_AUTHOR_ID,
      name: 'Blue Creek website',
      key: SECOND_AGENCY_API_KEY,
      price_vector: 3.5,
      status: 0,
      allowed_domains: ['bluecreek.example', 'www.bluecreek.example'],
      created_at: ts(-20),
      updated_at: ts(-20),
    },
  ];

  // Projects --------------------------------------------------------------------------------------
  const contracted = DEVELOPERS.filter((d) => d.weight > 0);
  const contractedWeights = contracted.map((d) => [d, d.weight] as const);
  const devById = new Map(DEVELOPERS.map((d) => [d.id, d]));
  const usedNames = new Set<string>();
  const projects: Rec[] = [];
  const infos: ProjectInfo[] = [];
  let contractedSlots = 0;

  for (let i = 0; i < projectCount; i++) {
    const id = i + 1;
    const role: SlotRole = SLOT_ROLES[i % SLOT_PERIOD] ?? 'normal';
    let dev: DeveloperDef;
    if (role === 'nonContracted') dev = devById.get(NON_CONTRACTED_DEVELOPER_ID)!;
    else if (role === 'pendingContract') dev = devById.get(PENDING_CONTRACT_DEVELOPER_ID)!;
    else dev = contractedSlots < contracted.length ? contracted[contractedSlots++] : rng.weighted(contractedWeights);
    const home = ALL_AREAS[AREA_ID_BY_NAME.get(rng.pick(dev.areas))! - 1];
    // Scale catalogues: past the first demo-sized batch, half the projects go to any community of the
    // developer's home city.
    const area = scale && i >= DEFAULT_DEMO_PROJECTS && rng.chance(0.5) ? rng.pick(CITY_AREAS[home.city]) : home;
    const areaId = AREA_ID_BY_NAME.get(area.name)!;

    const type = area.lowRise ? rng.weighted<number>([[1, 40], [2, 28], [3, 26], [4, 6]]) : rng.weighted<number>([[1, 82], [4, 18]]);
    // The project whose units have no price yet is a just-announced launch.
    const developmentStatus = role === 'unpriced' ? 0 : rng.weighted<number>([[0, 15], [1, 35], [2, 30], [3, 20]]);
    const readiness =
      developmentStatus === 0 ? 0 : developmentStatus === 1 ? rng.int(5, 35) : developmentStatus === 2 ? rng.int(40, 95) : 100;
    const handoverYear =
      developmentStatus === 3 ? 2025 : developmentStatus === 2 ? rng.int(2026, 2027) : developmentStatus === 1 ? rng.int(2027, 2029) : rng.int(2029, 2030);
    const quarterEnd = rng.pick([[3, 31], [6, 30], [9, 30], [12, 31]] as const);
    const handoverDate = dateOnly(handoverYear, quarterEnd[0], quarterEnd[1]);
    const launchYear = Math.max(2021, handoverYear - rng.int(2, 4));
    const launchDate = dateOnly(Math.min(launchYear, 2025), rng.int(1, 12), rng.int(1, 28));
    const isBranded = rng.chance(dev.slug === 'damac' || dev.slug === 'meraas' ? 0.35 : 0.12);
    const isResale = developmentStatus === 3 ? rng.chance(0.5) : rng.chance(0.05);

    // Name: an area-flavoured or generic lead, a middle word, a suffix by type; unique across the bundle.
    const lead = rng.chance(0.45) ? rng.pick(AREA_NAME_LEADS[area.name] ?? NAME_LEADS) : rng.pick(NAME_LEADS);
    const base = `${lead} ${rng.pick(NAME_MIDDLES)} ${rng.pick(NAME_SUFFIXES[type])}`;
    let name = base;
    for (let n = 2; usedNames.has(name); n++) name = `${base} ${n <= 4 ? ['II', 'III', 'IV'][n - 2] : `Phase ${n}`}`;
    usedNames.add(name);

    let totalFloors: number;
    let floorsFormula: string;
    if (type === 2) {
      totalFloors = rng.int(2, 3);
      floorsFormula = totalFloors === 2 ? 'G+1' : 'G+1+Roof';
    } else if (type === 3) {
      totalFloors = rng.int(2, 3);
      floorsFormula = `G+${totalFloors - 1}`;
    } else {
      totalFloors = rng.int(area.towerFloors[0], area.towerFloors[1]);
      const podiums = totalFloors > 15 ? rng.int(2, 5) : rng.int(0, 1);
      const roof = rng.chance(0.4) ? '+R' : '';
      floorsFormula = podiums > 0 ? `G+${podiums}P+${totalFloors - 1 - podiums}${roof}` : `G+${totalFloors - 1}${roof}`;
    }

    const currency = role === 'usd' ? 'USD' : role === 'eur' ? 'EUR' : 'AED';
    const createdDays = -rng.int(20, 900);
    const authors = developerAuthors.get(dev.id) ?? [];
    const inDubai = area.city === 'Dubai';

    const p: Rec = { id, company_id: dev.id, name };
    if (authors.length > 0) p.author_id = rng.pick(authors);
    p.area_id = areaId;
    p.description = describeProject(rng, name, dev.name, area, type, isBranded, developmentStatus, handoverYear);
    p.type = type;
    p.status = rng.chance(0.85) ? 1 : 2;
    p.development_status = developmentStatus;
    p.readiness_progress = readiness;
    p.total_floors = totalFloors;
    p.developer_registration_id = inDubai ? `DLD-${rng.digits(4)}` : area.city === 'Abu Dhabi' ? `ADREC-${rng.digits(5)}` : `SRERD-${rng.digits(5)}`;
    if (inDubai) p.trakheesi_project_id = rng.digits(10);
    const hasEscrow = developmentStatus < 3 ? rng.chance(0.85) : rng.chance(0.35);
    p.escrow_account = hasEscrow ? `${rng.pick(ESCROW_BANKS[area.city])} escrow ${rng.digits(4)}-${rng.digits(7)}-0${rng.int(1, 9)}` : null;
    if (inDubai && developmentStatus < 3) p.oqood_registration = `OQ-${launchYear}-${rng.digits(7)}`;
    p.launch_date = launchDate;
    p.launch_time = rng.chance(0.6) ? rng.pick(['10:00', '11:00', '16:00', '18:00', '18:30', '19:00']) : null;
    p.handover_date = handoverDate;
    p.resale_conditions = isResale
      ? 'Ready title deed; 4% DLD transfer fee and developer NOC required.'
      : rng.chance(0.4)
        ? `Resale permitted after ${rng.pick([30, 40, 50])}% of the purchase price is paid.`
        : null;
    p.floors_formula = floorsFormula;
    p.is_draft = role === 'draft';
    p.is_branded = isBranded;
    p.is_resale = isResale;
    p.service_charge = rng.chance(0.06) ? null : round(rng.float(12, 35) * 2, 0) / 2;
    p.currency = currency;
    p.commission_type = rng.chance(0.7) ? 1 : 2;

    let lat: number | undefined;
    let lng: number | undefined;
    if (role !== 'noCoordinates') {
      [lat, lng] = pointNear(rng, area.lat, area.lng, 0, scale && i >= DEFAULT_DEMO_PROJECTS ? 2500 : 1500);
      p.latitude = lat;
      p.longitude = lng;
    }
    p.address = `Plot ${rng.int(100, 699)}-${rng.digits(4)}, ${area.name}, ${area.city}, United Arab Emirates`;
    if (rng.chance(0.5)) p.floor_plan_file_id = addFile(`projects/${id}/documents/floor-plans.pdf`, `${slugify(name)}-floor-plans.pdf`, 'application/pdf', 800, 9000, createdDays);
    if (rng.chance(0.7)) p.brochure_file_id = addFile(`projects/${id}/documents/brochure.pdf`, `${slugify(name)}-brochure.pdf`, 'application/pdf', 2000, 25000, createdDays);
    if (rng.chance(0.4)) p.general_plan_file_id = addFile(`projects/${id}/documents/master-plan.pdf`, `${slugify(name)}-master-plan.pdf`, 'application/pdf', 500, 6000, createdDays);

    const plans = developmentStatus === 3 && rng.chance(0.6) ? READY_PLANS : PAYMENT_PLANS;
    p.payment_plans = rng.weighted(plans).map(([planType, percent]) => ({ type: planType, percent }));

    const imageNames = ['exterior', 'aerial', 'lobby', 'pool', 'living-room', 'bedroom', 'kitchen', 'amenities'];
    const imageCount = rng.int(2, 5);
    const images: number[] = [];
    for (let k = 1; k <= imageCount; k++) {
      const label = k === 1 ? 'exterior' : rng.pick(imageNames);
      images.push(addFile(`projects/${id}/images/${k}.jpg`, `${label}-${pad(k, 2)}.jpg`, 'image/jpeg', 180, 2400, createdDays));
    }
    p.image_file_ids = images;
    p.tours = rng.chance(0.4) ? [`https://my.matterport.com/show/?m=${rng.hex(11)}`] : [];
    if (rng.chance(0.15)) (p.tours as string[]).push(`https://www.youtube.com/watch?v=${rng.hex(11)}`);
    p.presentations = rng.chance(0.5) ? [`https://files.${dev.slug}.example/presentations/${slugify(name)}.pdf`] : [];
    p.feature_ids = rng.sample(featureIds, rng.int(3, 10)).sort((a, b) => a - b);
    if (role === 'deleted') p.deleted = true;
    p.created_at = ts(createdDays);
    p.updated_at = ts(Math.min(-1, createdDays + rng.int(1, 300)));

    projects.push(p);
    infos.push({
      id,
      devId: dev.id,
      area,
      type,
      role,
      lat,
      lng,
      currency,
      isBranded,
      developmentStatus,
      totalFloors,
      createdDays,
      hasUnitPlans: rng.chance(0.6),
      name,
    });
  }

  // Units -----------------------------------------------------------------------------------------
  const units: Rec[] = [];
  const large = projectCount >= 1000;
  for (const info of infos) {
    if (info.role === 'noUnits') continue;
    const count = large ? rng.int(40, 60) : rng.int(28, 48);
    const planByBedrooms = new Map<number, number>();
    const usedNumbers = new Set<string>();
    const buildings = info.type === 1 || info.type === 4 ? rng.int(1, 3) : 1;
    for (let k = 0; k < count; k++) {
      const unitId = units.length + 1;
      const bedrooms = pickBedrooms(rng, info.type);
      let floor: number;
      if (info.type === 2 || info.type === 3) floor = 0;
      else if (info.type === 4) floor = Math.max(1, info.totalFloors - rng.int(1, Math.min(5, info.totalFloors - 1)));
      else floor = rng.int(1, Math.max(1, info.totalFloors - 1));

      let unitNumber = '';
      for (let attempt = 0; attempt < 1000 && (unitNumber === '' || usedNumbers.has(unitNumber)); attempt++) {
        if (info.type === 2) unitNumber = `V-${pad(rng.int(1, 400), 3)}`;
        else if (info.type === 3) unitNumber = `TH-${pad(rng.int(1, 400), 3)}`;
        else unitNumber = `${'ABC'[rng.int(0, buildings - 1)]}-${floor}${pad(rng.int(1, 14), 2)}`;
      }
      if (usedNumbers.has(unitNumber)) unitNumber = `${unitNumber}-${k}`;
      usedNumbers.add(unitNumber);

      const unitArea = unitAreaM2(rng, bedrooms, info.type);
      const status =
        info.developmentStatus === 0 ? rng.weighted<number>([[1, 45], [2, 35], [3, 15], [5, 5]]) : rng.weighted<number>([[1, 4], [2, 8], [3, 14], [4, 56], [5, 18]]);
      const furnishing = info.isBranded
        ? rng.weighted<number>([[2, 10], [3, 45], [4, 45]])
        : rng.weighted<number>([[1, 55], [2, 18], [3, 19], [4, 8]]);
      const parking = bedrooms === 0 ? rng.int(0, 1) : bedrooms === 1 ? 1 : bedrooms === 2 ? rng.int(1, 2) : bedrooms <= 4 ? rng.int(2, 3) : 3;

      const u: Rec = { id: unitId, project_id: info.id, unit_number: unitNumber, bedrooms, status, furnishing, parking, floor };
      const unpriced = info.role === 'unpriced' || (status === 1 && rng.chance(0.3));
      if (!unpriced) {
        let ppf = rng.float(info.area.ppf[0], info.area.ppf[1]);
        if (info.isBranded) ppf *= 1.25;
        if (info.type === 4) ppf *= 1.2;
        if (info.type === 1 && info.totalFloors > 1) ppf *= 1 + (0.12 * floor) / info.totalFloors;
        ppf = Math.min(ppf, MAX_AED_PER_FT2);
        let price = unitArea * FT2_PER_M2 * ppf;
        if (info.currency === 'USD') price /= AED_PER_USD;
        else if (info.currency === 'EUR') price /= AED_PER_EUR;
        u.price = Math.round(price);
      }
      u.unit_area = unitArea;
      if (info.hasUnitPlans && rng.chance(0.85)) {
        let planId = planByBedrooms.get(bedrooms);
        if (planId === undefined) {
          const label = bedrooms === 0 ? 'studio' : `${bedrooms}-bedroom`;
          planId = addFile(`projects/${info.id}/plans/${label}.pdf`, `${label}-type-${'ABCD'[rng.int(0, 3)]}.pdf`, 'application/pdf', 150, 1500, info.createdDays);
          planByBedrooms.set(bedrooms, planId);
        }
        u.plan_file_id = planId;
      }
      u.tag_ids = pickUnitTags(rng, info, bedrooms, floor);
      if (unitId % 251 === 0) u.deleted = true;
      const created = info.createdDays + rng.int(0, 15);
      u.created_at = ts(created);
      u.updated_at = ts(Math.min(-1, created + rng.int(0, 200)));
      units.push(u);
    }
  }

  // Facilities ------------------------------------------------------------------------------------
  const located = infos.filter((p): p is ProjectInfo & { lat: number; lng: number } => p.lat !== undefined && p.lng !== undefined);
  const perCategory =
    options.facilities === undefined
      ? Math.max(40, Math.ceil((projectCount * 10) / FACILITY_CATEGORIES.length))
      : Math.max(30, Math.ceil(Math.max(0, options.facilities) / FACILITY_CATEGORIES.length));
  const facilities: Rec[] = [];
  for (const category of FACILITY_CATEGORIES) {
    const fixed = category === 'airports_ports' ? AIRPORTS_AND_PORTS : [];
    for (let seq = 1; seq <= perCategory; seq++) {
      let lat: number;
      let lng: number;
      let area: AreaDef;
      const fixedEntry = fixed[seq - 1];
      if (fixedEntry) {
        lat = fixedEntry.lat;
        lng = fixedEntry.lng;
        area = ALL_AREAS[AREA_ID_BY_NAME.get(fixedEntry.nearestArea)! - 1];
      } else {
        // Near a project (some within 500 m, some a few km away) or around an area centre.
        const anchor = located.length > 0 && rng.chance(0.75) ? rng.pick(located) : undefined;
        area = anchor ? anchor.area : rng.pick(areaList);
        const band = rng.weighted<readonly [number, number]>([[[20, 500], 40], [[500, 3000], 35], [[3000, 9000], 25]]);
        [lat, lng] = pointNear(rng, anchor?.lat ?? area.lat, anchor?.lng ?? area.lng, band[0], band[1]);
      }
      const ctx: FacilityContext = { rng, seq, area, lat, lng, fixed: fixedEntry };
      const { sourceId, data } = buildFacility(category, ctx);
      facilities.push({ category, source_id: sourceId, data, created_at: ts(-400), updated_at: ts(-rng.int(1, 120)) });
    }
  }

  // CRM reference data and a few existing clients -------------------------------------------------
  const boardStages: Rec[] = [
    ...['New lead', 'Contacted', 'Viewing', 'Offer', 'Won', 'Lost'].map((name, position) => ({ id: position + 1, company_id: DEMO_AGENCY_ID, name, position })),
    ...['New', 'Qualified', 'Negotiation', 'Closed'].map((name, position) => ({ id: position + 7, company_id: SECOND_AGENCY_ID, name, position })),
  ];
  const offerStatuses: Rec[] = [
    { id: 1, name: 'Draft' },
    { id: 2, name: 'Sent' },
    { id: 3, name: 'Accepted' },
    { id: 4, name: 'Rejected' },
  ];
  const clients: Rec[] = [
    {
      id: 1, company_id: DEMO_AGENCY_ID, first_name: 'James', last_name: 'Whitfield', email: 'james.whitfield@mail.example',
      mobile_number: '+971 50 123 4567', landline_number: '+971 4 399 8812', address_line1: 'Villa 14, Street 7', address_line2: 'Arabian Ranches 2',
      city: 'Dubai', country: 'United Arab Emirates', postcode: '00000', social_links: { instagram: 'jwhitfield', x: 'jwhitfield' },
      property_types: [1, 4], preferred_area_ids: [AREA_ID_BY_NAME.get('Dubai Marina')!, AREA_ID_BY_NAME.get('Palm Jumeirah')!],
      property_features: ['Sea View', 'High Floor'], created_at: ts(-120), updated_at: ts(-60),
    },
    {
      id: 2, company_id: DEMO_AGENCY_ID, first_name: 'Aisha', last_name: 'Al Nuaimi', email: 'aisha.alnuaimi@mail.example',
      mobile_number: '+971 55 987 6543', city: 'Abu Dhabi', country: 'United Arab Emirates', social_links: { instagram: 'aisha.n' },
      property_types: [2, 3], preferred_area_ids: [AREA_ID_BY_NAME.get('Saadiyat Island')!, AREA_ID_BY_NAME.get('Yas Island')!],
      property_features: ['Private Pool', "Maid's Room"], created_at: ts(-90), updated_at: ts(-90),
    },
    {
      id: 3, company_id: DEMO_AGENCY_ID, first_name: 'Dmitri', last_name: 'Sokolov', email: 'd.sokolov@mail.example',
      mobile_number: '+7 916 555 0142', address_line1: 'Tverskaya 12', city: 'Moscow', country: 'Russia', postcode: '125009',
      social_links: { x: 'dsokolov' }, property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Business Bay')!],
      property_features: ['Burj Khalifa View'], created_at: ts(-60), updated_at: ts(-30),
    },
    {
      id: 4, company_id: DEMO_AGENCY_ID, first_name: 'Priya', last_name: 'Nair', email: null,
      mobile_number: '+971 52 444 1020', city: 'Dubai', country: 'United Arab Emirates', social_links: {},
      property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Jumeirah Village Circle')!, AREA_ID_BY_NAME.get('Arjan')!],
      property_features: [], created_at: ts(-45), updated_at: ts(-45),
    },
    {
      id: 5, company_id: DEMO_AGENCY_ID, first_name: 'Lucas', last_name: 'Moreau', email: 'lucas.moreau@mail.example',
      mobile_number: null, city: 'Paris', country: 'France', postcode: '75008', social_links: { instagram: 'lucas.moreau', tiktok: 'lucasmoreau', facebook: 'lucas.moreau.75' },
      property_types: [4], preferred_area_ids: [AREA_ID_BY_NAME.get('Downtown Dubai')!], property_features: ['Private Pool', 'High Floor'],
      created_at: ts(-20), updated_at: ts(-20),
    },
    // The same person as client 1, known to the other agency: clients are matched per company.
    {
      id: 6, company_id: SECOND_AGENCY_ID, first_name: 'James', last_name: 'Whitfield', email: 'james.whitfield@mail.example',
      mobile_number: '+971 50 123 4567', city: 'Dubai', country: 'United Arab Emirates', social_links: {},
      property_types: [1], preferred_area_ids: [AREA_ID_BY_NAME.get('Dubai Creek Harbour')!], property_features: [],
      created_at: ts(-15), updated_at: ts(-15),
    },
  ];

  return {
    files,
    areas,
    unit_tags: unitTags,
    project_features: projectFeatures,
    companies,
    users,
    company_members: members,
    contracts,
    api_keys: apiKeys,
    projects,
    units,
    facilities,
    board_stages: boardStages,
    offer_statuses: offerStatuses,
    clients,
  };
}

// ---------------------------------------------------------------------------------------------------
// Project and unit helpers
// ---------------------------------------------------------------------------------------------------

function describeProject(
  rng: Rng,
  name: string,
  developer: string,
  area: AreaDef,
  type: number,
  branded: boolean,
  developmentStatus: number,
  handoverYear: number,
): string {
  const typeWord = TYPE_WORDS[type];
  const opener = branded
    ? `${name} is a collection of branded ${typeWord} residences by ${developer} in ${area.name}, ${area.city}, serviced by a five-star hospitality operator.`
    : `${name} is ${typeWord === 'apartment' ? 'an' : 'a'} ${typeWord} development by ${developer} in ${area.name}, ${area.city}.`;
  const middle = rng.pick([
    'Homes feature open-plan living, large balconies and premium finishes.',
    'Residents enjoy resort-style amenities, landscaped podium gardens and direct access to community retail.',
    'The project is designed around wellness, with shaded walkways, a lap pool and a fully equipped gym.',
    'Every home comes with smart-home controls, built-in wardrobes and allocated parking.',
    'Generous layouts, floor-to-ceiling glazing and views over the community set the project apart.',
  ]);
  const closing = developmentStatus === 3 ? 'The project is complete and ready to move in.' : `Handover is expected in ${handoverYear}.`;
  return `${opener} ${middle} ${closing}`;
}

const BEDROOM_WEIGHTS: Readonly<Record<number, readonly (readonly [number, number])[]>> = {
  1: [[0, 16], [1, 36], [2, 30], [3, 14], [4, 4]],
  2: [[3, 20], [4, 35], [5, 30], [6, 15]],
  3: [[2, 15], [3, 45], [4, 30], [5, 10]],
  4: [[2, 10], [3, 30], [4, 30], [5, 20], [6, 10]],
};

function pickBedrooms(rng: Rng, type: number): number {
  return rng.weighted(BEDROOM_WEIGHTS[type] ?? BEDROOM_WEIGHTS[1]);
}

const AREA_RANGES_M2: Readonly<Record<number, readonly [number, number]>> = {
  0: [35, 45],
  1: [60, 85],
  2: [95, 135],
  3: [140, 200],
  4: [200, 300],
  5: [300, 450],
  6: [420, 600],
};

function unitAreaM2(rng: Rng, bedrooms: number, type: number): number {
  const [min, max] = AREA_RANGES_M2[Math.min(bedrooms, 6)];
  let area = rng.float(min, max);
  // Villas and townhouses with up to four bedrooms come with more built-up area than apartments.
  if ((type === 2 || type === 3) && bedrooms <= 4) area *= 1.2;
  return round(area, 1);
}

function pickUnitTags(rng: Rng, info: ProjectInfo, bedrooms: number, floor: number): number[] {
  const candidates: string[] = [...info.area.views, 'Corner Unit', 'Upgraded Kitchen'];
  if (bedrooms >= 2) candidates.push("Maid's Room", 'Walk-in Wardrobe');
  if (bedrooms >= 1) candidates.push('Study Room');
  if (info.type === 1 || info.type === 4) candidates.push('Balcony', 'Balcony');
  if (info.type === 2 || info.type === 4 || (info.type === 3 && bedrooms >= 4)) candidates.push('Private Pool');
  if (info.type === 2 || info.type === 3) candidates.push('Private Garden');
  if ((info.type === 1 || info.type === 4) && floor >= info.totalFloors * 0.7 && info.totalFloors >= 10) candidates.push('High Floor', 'High Floor');
  const k = rng.weighted<number>([[0, 20], [1, 30], [2, 28], [3, 15], [4, 7]]);
  const picked = new Set(rng.sample(candidates, k));
  return [...picked].map(tagId).sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------------
// Facilities: master data per category (30 to 50 fields each)
// ---------------------------------------------------------------------------------------------------

const FACILITY_CATEGORIES = ['airports_ports', 'education', 'employment', 'healthcare', 'lifestyle', 'retail', 'transport', 'tourism'] as const;
type Category = (typeof FACILITY_CATEGORIES)[number];

interface FixedFacility {
  name: string;
  kind: 'International airport' | 'Seaport' | 'Cruise terminal' | 'Heliport' | 'Marina' | 'Ferry terminal';
  lat: number;
  lng: number;
  nearestArea: string;
  iata?: string;
  icao?: string;
  locode?: string;
  operator: string;
  opened: number;
  /** Annual passengers in millions (airports). */
  passengersM?: number;
}

/** Real airports and ports of the three emirates, at their actual coordinates. */
const AIRPORTS_AND_PORTS: readonly FixedFacility[] = [
  { name: 'Dubai International Airport', kind: 'International airport', lat: 25.2532, lng: 55.3657, nearestArea: 'Dubai Creek Harbour', iata: 'DXB', icao: 'OMDB', locode: 'AEDXB', operator: 'Dubai Airports', opened: 1960, passengersM: 92.3 },
  { name: 'Al Maktoum International Airport', kind: 'International airport', lat: 24.8962, lng: 55.1614, nearestArea: 'Dubai South', iata: 'DWC', icao: 'OMDW', locode: 'AEDWC', operator: 'Dubai Airports', opened: 2010, passengersM: 1.1 },
  { name: 'Zayed International Airport', kind: 'International airport', lat: 24.433, lng: 54.6511, nearestArea: 'Yas Island', iata: 'AUH', icao: 'OMAA', locode: 'AEAUH', operator: 'Abu Dhabi Airports', opened: 1982, passengersM: 29.4 },
  { name: 'Sharjah International Airport', kind: 'International airport', lat: 25.3286, lng: 55.5172, nearestArea: 'Aljada', iata: 'SHJ', icao: 'OMSJ', locode: 'AESHJ', operator: 'Sharjah Airport Authority', opened: 1977, passengersM: 17.1 },
  { name: 'Al Bateen Executive Airport', kind: 'International airport', lat: 24.4283, lng: 54.4581, nearestArea: 'Al Reem Island', iata: 'AZI', icao: 'OMAD', operator: 'Abu Dhabi Airports', opened: 1970, passengersM: 0.1 },
  { name: 'Jebel Ali Port', kind: 'Seaport', lat: 25.0114, lng: 55.0611, nearestArea: 'Al Furjan', locode: 'AEJEA', operator: 'DP World', opened: 1979 },
  { name: 'Port Rashid', kind: 'Seaport', lat: 25.2667, lng: 55.2772, nearestArea: 'Downtown Dubai', locode: 'AEPRA', operator: 'DP World', opened: 1972 },
  { name: 'Mina Rashid Cruise Terminal', kind: 'Cruise terminal', lat: 25.2697, lng: 55.2747, nearestArea: 'Downtown Dubai', locode: 'AEPRA', operator: 'P&O Marinas', opened: 2014 },
  { name: 'Dubai Harbour Cruise Terminal', kind: 'Cruise terminal', lat: 25.0935, lng: 55.1419, nearestArea: 'Dubai Marina', operator: 'Dubai Harbour', opened: 2020 },
  { name: 'Khalifa Port', kind: 'Seaport', lat: 24.8089, lng: 54.6444, nearestArea: 'Yas Island', locode: 'AEKHL', operator: 'AD Ports Group', opened: 2012 },
  { name: 'Zayed Port', kind: 'Seaport', lat: 24.5245, lng: 54.3795, nearestArea: 'Al Reem Island', locode: 'AEMZD', operator: 'AD Ports Group', opened: 1972 },
  { name: 'Port Khalid', kind: 'Seaport', lat: 25.3625, lng: 55.3806, nearestArea: 'Aljada', locode: 'AEKLF', operator: 'Sharjah Ports, Customs and Free Zones Authority', opened: 1976 },
  { name: 'Atlantis The Palm Helipad', kind: 'Heliport', lat: 25.1302, lng: 55.1172, nearestArea: 'Palm Jumeirah', operator: 'HeliDubai', opened: 2008 },
  { name: 'Dubai Creek Ferry Terminal', kind: 'Ferry terminal', lat: 25.2641, lng: 55.2968, nearestArea: 'Dubai Creek Harbour', operator: 'RTA Marine', opened: 2011 },
];

const PLACE_WORDS = ['Central', 'Gate', 'Park', 'Square', 'Plaza', 'Point', 'Crossing', 'Avenue', 'Walk', 'Heights', 'Court', 'Circle'];

/** A locality-like name for a facility: "Marina Gate", "Hills Plaza". */
function placeName(rng: Rng, area: AreaDef): string {
  return `${rng.pick(AREA_NAME_LEADS[area.name] ?? [area.name])} ${rng.pick(PLACE_WORDS)}`;
}

interface FacilityContext {
  rng: Rng;
  seq: number;
  area: AreaDef;
  lat: number;
  lng: number;
  fixed?: FixedFacility;
}

type Extra = readonly [string, (r: Rng) => unknown];

const yes = (p: number) => (r: Rng) => r.chance(p);
const intIn = (min: number, max: number) => (r: Rng) => r.int(min, max);
const score = () => (r: Rng) => r.int(35, 99);
const oneOf =
  <T>(...items: T[]) =>
  (r: Rng) =>
    r.pick(items);
const someOf =
  (items: readonly string[], min: number, max: number) =>
  (r: Rng): string[] =>
    r.sample(items, r.int(min, max));

const DATA_SOURCES: Readonly<Record<Category, string>> = {
  airports_ports: 'GCAA / AD Ports open data',
  education: 'KHDA school directory',
  employment: 'Dubai Economy business register',
  healthcare: 'DHA Sheryan facility register',
  lifestyle: 'Dubai Municipality public amenities',
  retail: 'Dubai Economy retail census',
  transport: 'RTA open data',
  tourism: 'Department of Economy and Tourism',
};

const SOURCE_PREFIX: Readonly<Record<Category, string>> = {
  airports_ports: 'GCAA-',
  education: 'KHDA-',
  employment: 'DET-EMP-',
  healthcare: 'DHA-F-',
  lifestyle: 'DM-LS-',
  retail: 'DED-RT-',
  transport: 'RTA-ST-',
  tourism: 'DTCM-',
};

/** Fields every master-data record carries, whatever the category. */
function commonFields(category: Category, ctx: FacilityContext, sourceId: string, name: string, subcategory: string): Rec {
  const { rng, area } = ctx;
  const slug = slugify(name).slice(0, 40);
  const data: Rec = {
    source_id: sourceId,
    name,
    category,
    subcategory,
  };
  if (category === 'airports_ports') {
    data.latitude = ctx.lat;
    data.longitude = ctx.lng;
  } else {
    data.asset_latitude = ctx.lat;
    data.asset_longitude = ctx.lng;
  }
  Object.assign(data, {
    emirate: area.city,
    city: area.city,
    community: area.name,
    address: `${rng.pick(['Street', 'Road', 'Boulevard', 'Avenue'])} ${rng.int(1, 48)}, ${area.name}, ${area.city}`,
    makani_number: area.city === 'Dubai' ? `${rng.digits(5)} ${rng.digits(5)}` : null,
    po_box: rng.digits(rng.int(5, 6)),
    phone: `+971 ${CITY_PHONE_CODE[area.city]} ${rng.digits(3)} ${rng.digits(4)}`,
    email: `info@${slug.replace(/-/g, '')}.example`,
    website: `https://www.${slug}.example`,
    operating_status: rng.chance(0.94) ? 'Operational' : 'Under construction',
    opening_year: rng.int(1985, 2025),
    ownership: rng.pick(['Private', 'Government', 'Semi-government', 'Public-private partnership']),
    wheelchair_accessible: rng.chance(0.85),
    parking_available: rng.chance(0.8),
    google_rating: round(rng.float(3.4, 4.9), 1),
    review_count: rng.int(12, 24000),
    data_source: DATA_SOURCES[category],
    last_verified_at: ts(-rng.int(10, 400)).slice(0, 10),
  });
  return data;
}

/** Adds extra attributes in order until the record has `target` fields (30 to 50), never beyond the list. */
function padTo(rng: Rng, data: Rec, extras: readonly Extra[]): Rec {
  const target = rng.int(30, 50);
  let fields = Object.keys(data).length;
  for (const [key, make] of extras) {
    if (fields >= target) break;
    if (key in data) continue;
    data[key] = make(rng);
    fields++;
  }
  return data;
}

function buildFacility(category: Category, ctx: FacilityContext): { sourceId: string; data: Rec } {
  const sourceId = `${SOURCE_PREFIX[category]}${pad(ctx.seq, 6)}`;
  switch (category) {
    case 'airports_ports':
      return { sourceId, data: airportOrPort(ctx, sourceId) };
    case 'education':
      return { sourceId, data: school(ctx, sourceId) };
    case 'employment':
      return { sourceId, data: employmentHub(ctx, sourceId) };
    case 'healthcare':
      return { sourceId, data: clinic(ctx, sourceId) };
    case 'lifestyle':
      return { sourceId, data: lifestyle(ctx, sourceId) };
    case 'retail':
      return { sourceId, data: retail(ctx, sourceId) };
    case 'transport':
      return { sourceId, data: station(ctx, sourceId) };
    case 'tourism':
      return { sourceId, data: tourism(ctx, sourceId) };
  }
}

function airportOrPort(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const f = ctx.fixed;
  const kind =
    f?.kind ??
    (WATERFRONT_AREAS.has(area.name)
      ? rng.pick(['Heliport', 'Marina', 'Ferry terminal', 'Water taxi station', 'Seaplane base'] as const)
      : rng.pick(['Heliport', 'Cargo terminal', 'Cargo terminal'] as const));
  const name =
    f?.name ??
    `${placeName(rng, area)} ${kind === 'Ferry terminal' ? 'Ferry Terminal' : kind === 'Cargo terminal' ? 'Cargo Terminal' : kind === 'Water taxi station' ? 'Water Taxi Station' : kind === 'Seaplane base' ? 'Seaplane Base' : kind}`;
  const airport = kind === 'International airport';
  const port = kind === 'Seaport' || kind === 'Cruise terminal';
  const data = commonFields('airports_ports', ctx, sourceId, name, kind);
  if (f) data.opening_year = f.opened;
  Object.assign(data, {
    facility_type: kind,
    iata_code: f?.iata ?? null,
    icao_code: f?.icao ?? null,
    un_locode: f?.locode ?? null,
    operator: f?.operator ?? rng.pick(['RTA Marine', 'Dubai Airports', 'AD Ports Group', 'Falcon Aviation', 'Jetex', 'D3 Marinas']),
    international: airport || port,
    annual_passengers_m: f?.passengersM ?? (airport ? round(rng.float(1, 90), 1) : port ? round(rng.float(0.1, 1.5), 2) : round(rng.float(0.01, 0.3), 2)),
    annual_cargo_tonnes: airport || kind === 'Cargo terminal' ? rng.int(50_000, 2_500_000) : 0,
    annual_teu_m: kind === 'Seaport' ? round(rng.float(0.5, 15), 1) : 0,
    runways: airport ? rng.int(1, 6) : 0,
    terminals: airport ? rng.int(1, 4) : 1,
    berths: port || kind === 'Marina' ? rng.int(4, 120) : 0,
    airlines_count: airport ? rng.int(10, 100) : 0,
    destinations_count: airport ? rng.int(20, 260) : port ? rng.int(5, 60) : rng.int(1, 12),
    operating_hours: airport ? '24/7' : rng.pick(['06:00-23:00', '08:00-20:00', '24/7']),
  });
  return padTo(rng, data, [
    ['customs_facilities', yes(0.7)],
    ['duty_free', (r) => airport || r.chance(0.2)],
    ['public_transport_link', oneOf('Metro', 'Bus', 'Taxi only', 'Water taxi', 'Shuttle')],
    ['distance_to_city_centre_km', (r) => round(r.float(2, 60), 1)],
    ['car_rental_available', yes(0.6)],
    ['lounges_count', (r) => (airport ? r.int(2, 40) : r.int(0, 2))],
    ['expansion_planned', yes(0.3)],
    ['noise_zone', oneOf('A', 'B', 'C', 'none')],
    ['emergency_services', yes(0.9)],
    ['helipad', yes(0.3)],
    ['passenger_rating', (r) => round(r.float(3, 5), 1)],
    ['connectivity_score', score()],
    ['capacity_utilisation_pct', intIn(40, 98)],
    ['cold_storage', yes(0.4)],
    ['free_zone_adjacent', yes(0.5)],
    ['security_level', oneOf('High', 'Standard')],
    ['iso_certified', yes(0.6)],
    ['fuel_services', yes(0.7)],
    ['parking_spaces', intIn(50, 20000)],
  ]);
}

const CURRICULA = ['British', 'American', 'IB', 'Indian (CBSE)', 'Indian (ICSE)', 'French', 'German', 'UAE MOE', 'Canadian', 'Australian'] as const;
const SCHOOL_BRANDS = ['GEMS', 'Taaleem', 'Nord Anglia', 'Aldar Academies', 'Fortes Education', 'Innoventures', 'Bloom', 'Kings', 'Repton', 'Dubai British'];

function school(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const curriculum = rng.pick(CURRICULA);
  const schoolType = rng.weighted<string>([['Nursery', 2], ['Primary', 2], ['All-through', 4], ['Secondary', 1]]);
  const institution = schoolType === 'Nursery' ? 'Nursery' : schoolType === 'Primary' ? rng.pick(['Primary School', 'Junior School']) : rng.pick(['Academy', 'International School', 'School', 'Private School']);
  const name = `${rng.pick(SCHOOL_BRANDS)} ${institution} ${area.name}`;
  const feeMin = schoolType === 'Nursery' ? rng.int(25, 45) * 1000 : rng.int(20, 60) * 1000;
  const students = schoolType === 'Nursery' ? rng.int(60, 250) : rng.int(400, 3500);
  const teachers = Math.max(8, Math.round(students / rng.int(9, 16)));
  const sourcePrefix = area.city === 'Dubai' ? 'KHDA' : area.city === 'Abu Dhabi' ? 'ADEK' : 'SPEA';
  const data = commonFields('education', ctx, sourceId, name, schoolType);
  Object.assign(data, {
    regulator: sourcePrefix,
    curriculum,
    khda_rating: rng.weighted<string>([['Outstanding', 2], ['Very Good', 4], ['Good', 5], ['Acceptable', 2], ['Not yet rated', 1]]),
    school_type: schoolType,
    grades: curriculum === 'British' ? (schoolType === 'Nursery' ? 'FS1–FS2' : 'FS1–Year 13') : curriculum.startsWith('Indian') ? 'KG1–Grade 12' : schoolType === 'Nursery' ? 'Pre-K–KG2' : 'KG1–Grade 12',
    gender: rng.weighted<string>([['Co-educational', 8], ['Boys', 1], ['Girls', 1]]),
    fee_min_aed: feeMin,
    fee_max_aed: feeMin + rng.int(10, 60) * 1000,
    student_count: students,
    teacher_count: teachers,
    student_teacher_ratio: round(students / teachers, 1),
    inspection_year: rng.int(2022, 2025),
    languages_of_instruction: curriculum === 'French' ? ['French', 'English', 'Arabic'] : ['English', 'Arabic'],
  });
  return padTo(rng, data, [
    ['bus_service', yes(0.85)],
    ['sen_support', yes(0.7)],
    ['swimming_pool', yes(0.6)],
    ['boarding', yes(0.05)],
    ['waiting_list', yes(0.4)],
    ['admission_open', yes(0.75)],
    ['uniform_required', yes(0.95)],
    ['after_school_activities', intIn(5, 60)],
    ['nationalities_count', intIn(20, 110)],
    ['emirati_students_pct', intIn(0, 40)],
    ['campus_area_sqm', intIn(4000, 80000)],
    ['sports_facilities', someOf(['Football pitch', 'Basketball court', 'Tennis court', 'Running track', 'Sports hall', 'Climbing wall'], 1, 4)],
    ['ib_diploma_offered', (r) => curriculum === 'IB' || r.chance(0.1)],
    ['a_level_offered', (r) => curriculum === 'British' && r.chance(0.8)],
    ['ap_courses_offered', (r) => curriculum === 'American' && r.chance(0.8)],
    ['university_acceptance_rate_pct', intIn(70, 100)],
    ['academic_score', score()],
    ['parent_satisfaction_score', score()],
    ['wellbeing_rating', oneOf('High', 'Medium', 'Developing')],
    ['canteen', yes(0.9)],
    ['arabic_rating', oneOf('Good', 'Acceptable', 'Weak')],
  ]);
}

function employmentHub(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const hubType = rng.pick(['Free zone', 'Business district', 'Office tower', 'Business park', 'Industrial park', 'Government hub', 'Hospital campus']);
  const authority =
    area.city === 'Abu Dhabi'
      ? rng.pick(['ADGM', 'twofour54', 'Masdar City Free Zone', 'KEZAD'])
      : area.city === 'Sharjah'
        ? rng.pick(['SRTIP', 'Sharjah Media City', 'SAIF Zone'])
        : rng.pick(['DMCC', 'DIFC', 'Dubai Development Authority', 'JAFZA', 'DAFZA', 'Dubai South Free Zone', 'Dubai Silicon Oasis']);
  const name = `${placeName(rng, area)} ${rng.pick(['Business Park', 'Business Centre', 'Office Tower', 'Commerce Hub', 'Innovation Hub', 'Logistics Park', 'Exchange Tower'])}`;
  const employees = rng.int(300, 60000);
  const data = commonFields('employment', ctx, sourceId, name, hubType);
  Object.assign(data, {
    hub_type: hubType,
    authority,
    free_zone: hubType === 'Free zone' || rng.chance(0.3),
    primary_sector: rng.pick(['Finance', 'Technology', 'Logistics', 'Media', 'Hospitality', 'Healthcare', 'Trading', 'Energy', 'Government']),
    secondary_sectors: rng.sample(['Consulting', 'Legal', 'Retail', 'Education', 'Real estate', 'Aviation', 'Manufacturing'], rng.int(1, 3)),
    estimated_employees: employees,
    companies_count: Math.max(1, Math.round(employees / rng.int(8, 60))),
    office_gla_sqm: rng.int(5000, 900000),
    building_grade: rng.pick(['A', 'A', 'B', 'C']),
    vacancy_rate_pct: round(rng.float(2, 25), 1),
    avg_rent_aed_sqft: rng.int(60, 320),
  });
  return padTo(rng, data, [
    ['metro_access', yes(0.5)],
    ['coworking_spaces', intIn(0, 12)],
    ['leed_certified', yes(0.3)],
    ['food_outlets', intIn(0, 80)],
    ['childcare_onsite', yes(0.2)],
    ['conference_facilities', yes(0.6)],
    ['business_setup_services', yes(0.5)],
    ['average_salary_aed', intIn(8000, 45000)],
    ['job_postings_last_90d', intIn(5, 4000)],
    ['employment_growth_pct', (r) => round(r.float(-3, 18), 1)],
    ['commute_score', score()],
    ['amenity_score', score()],
    ['connectivity_score', score()],
    ['parking_spaces', intIn(100, 15000)],
    ['ev_chargers', intIn(0, 120)],
    ['operating_hours', oneOf('24/7', '07:00-22:00', '08:00-20:00')],
    ['security_level', oneOf('High', 'Standard')],
    ['major_tenants_count', intIn(1, 60)],
    ['floors', intIn(2, 60)],
  ]);
}

function clinic(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const specialty = rng.pick(['General hospital', 'Multi-specialty clinic', 'Paediatrics', 'Dental', 'Dermatology', 'Orthopaedics', 'Diagnostic centre', 'Pharmacy', 'Maternity', 'Physiotherapy', 'Family medicine', 'Ophthalmology']);
  const hospital = specialty === 'General hospital' || specialty === 'Maternity';
  const brand = rng.pick(['Mediclinic', 'Aster', 'NMC', "King's College", 'Saudi German', 'Burjeel', 'Emirates', 'Medcare', 'Prime', 'Thumbay']);
  const titled = specialty.replace(/\b\w/g, (c) => c.toUpperCase());
  const name =
    specialty === 'Pharmacy'
      ? `${rng.pick(['Life', 'Aster', 'Boots', 'BinSina', 'Supercare'])} Pharmacy ${area.name}`
      : hospital
        ? `${brand} ${specialty === 'Maternity' ? 'Women and Children Hospital' : 'Hospital'} ${area.name}`
        : `${brand} ${specialty === 'Diagnostic centre' ? 'Diagnostic Centre' : `${titled} Clinic`} ${area.name}`;
  const data = commonFields('healthcare', ctx, sourceId, name, hospital ? 'Hospital' : specialty === 'Pharmacy' ? 'Pharmacy' : 'Clinic');
  Object.assign(data, {
    specialty_type: specialty,
    facility_type: hospital ? 'Hospital' : specialty === 'Pharmacy' ? 'Pharmacy' : 'Outpatient clinic',
    emergency_24_7: hospital ? true : rng.chance(0.1),
    dha_licensed: area.city === 'Dubai',
    licensing_authority: area.city === 'Dubai' ? 'DHA' : area.city === 'Abu Dhabi' ? 'DOH' : 'MOHAP',
    bed_count: hospital ? rng.int(60, 450) : 0,
    doctor_count: hospital ? rng.int(40, 400) : rng.int(1, 35),
    insurance_networks: rng.sample(['Daman', 'AXA', 'Bupa', 'Cigna', 'MetLife', 'Allianz', 'Oman Insurance', 'NAS', 'Neuron'], rng.int(2, 6)),
    jci_accredited: hospital ? rng.chance(0.8) : rng.chance(0.2),
    languages_spoken: ['English', 'Arabic', ...rng.sample(['Hindi', 'Urdu', 'Russian', 'French', 'Tagalog', 'Malayalam', 'German'], rng.int(0, 3))],
    operating_hours: hospital ? '24/7' : rng.pick(['08:00-22:00', '09:00-21:00', '07:00-23:00']),
  });
  return padTo(rng, data, [
    ['ambulance_service', (r) => hospital || r.chance(0.05)],
    ['pharmacy_onsite', yes(0.7)],
    ['icu_beds', (r) => (hospital ? r.int(6, 60) : 0)],
    ['telemedicine', yes(0.6)],
    ['home_visits', yes(0.3)],
    ['paediatric_unit', (r) => hospital || specialty === 'Paediatrics' || r.chance(0.1)],
    ['maternity_unit', (r) => specialty === 'Maternity' || (hospital && r.chance(0.6))],
    ['radiology', yes(0.5)],
    ['laboratory', yes(0.7)],
    ['average_wait_minutes', intIn(5, 90)],
    ['patient_satisfaction_score', score()],
    ['quality_score', score()],
    ['accessibility_score', score()],
    ['female_doctors_available', yes(0.8)],
    ['online_booking', yes(0.75)],
    ['direct_billing', yes(0.8)],
    ['parking_spaces', intIn(10, 1500)],
    ['annual_patients', intIn(2000, 600000)],
    ['specialties_count', (r) => (hospital ? r.int(15, 60) : r.int(1, 8))],
    ['vaccination_centre', yes(0.4)],
  ]);
}

function lifestyle(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const kind = rng.pick(['Park', 'Public beach', 'Gym', 'Golf course', 'Sports club', 'Cycling track', 'Community centre', 'Padel club', 'Yoga studio', 'Marina walk']);
  const lead = rng.pick(AREA_NAME_LEADS[area.name] ?? [area.name]);
  const name =
    kind === 'Gym'
      ? `${rng.pick(['Fitness First', 'GymNation', 'Warehouse Gym', 'Fit Republik'])} ${area.name}`
      : kind === 'Padel club'
        ? `${rng.pick(['Just Padel', 'Padel Pro', 'Smash Padel'])} ${area.name}`
        : kind === 'Yoga studio'
          ? `${rng.pick(['Zen', 'Lotus', 'Prana', 'Shanti'])} Yoga ${area.name}`
          : kind === 'Public beach'
            ? `${lead} Beach`
            : kind === 'Golf course'
              ? `${lead} Golf Club`
              : kind === 'Cycling track'
                ? `${lead} Cycling Track`
                : kind === 'Marina walk'
                  ? `${lead} Waterfront Promenade`
                  : `${placeName(rng, area)} ${kind === 'Park' ? 'Park' : kind === 'Sports club' ? 'Sports Club' : 'Community Centre'}`;
  const outdoor = ['Park', 'Public beach', 'Golf course', 'Cycling track', 'Marina walk'].includes(kind);
  const data = commonFields('lifestyle', ctx, sourceId, name, kind);
  Object.assign(data, {
    lifestyle_type: kind,
    indoor: !outdoor,
    entry_fee_aed: outdoor && kind !== 'Golf course' ? rng.pick([0, 0, 5, 10]) : rng.int(50, 900),
    membership_required: ['Gym', 'Golf course', 'Sports club', 'Padel club', 'Yoga studio'].includes(kind),
    area_sqm: rng.int(300, 900000),
    opening_hours: rng.pick(['06:00-23:00', '05:00-00:00', '24/7', '08:00-22:00']),
    family_friendly: rng.chance(0.8),
    pet_friendly: outdoor && rng.chance(0.5),
  });
  return padTo(rng, data, [
    ['shaded_areas', yes(0.6)],
    ['bbq_allowed', (r) => kind === 'Park' && r.chance(0.5)],
    ['jogging_track_km', (r) => (outdoor ? round(r.float(0.5, 12), 1) : 0)],
    ['playground', yes(0.5)],
    ['lifeguards', (r) => kind === 'Public beach' || r.chance(0.1)],
    ['changing_rooms', yes(0.6)],
    ['cafe_onsite', yes(0.6)],
    ['classes_offered', someOf(['Yoga', 'Pilates', 'CrossFit', 'Swimming', 'Tennis', 'Padel', 'Boxing', 'Spinning'], 0, 4)],
    ['night_lighting', yes(0.7)],
    ['bike_rental', yes(0.3)],
    ['water_sports', (r) => kind === 'Public beach' && r.chance(0.7)],
    ['events_per_year', intIn(0, 120)],
    ['crowd_level', oneOf('Low', 'Moderate', 'High')],
    ['cleanliness_score', score()],
    ['safety_score', score()],
    ['greenery_score', score()],
    ['wellness_score', score()],
    ['women_only_hours', yes(0.3)],
    ['accessible_toilets', yes(0.8)],
    ['visitors_per_month', intIn(500, 400000)],
    ['ev_charging', yes(0.3)],
  ]);
}

function retail(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const format = rng.weighted<string>([['Super-regional mall', 1], ['Regional mall', 2], ['Community centre', 4], ['Neighbourhood centre', 3], ['Hypermarket', 3], ['Supermarket', 4], ['Retail boulevard', 2], ['Souk', 1], ['Outlet mall', 1]]);
  const anchor = rng.pick(['Carrefour', 'Lulu Hypermarket', 'Spinneys', 'Waitrose', 'Union Coop', 'Choithrams', 'Géant', 'Kibsons Market']);
  const name =
    format === 'Hypermarket' || format === 'Supermarket'
      ? `${anchor} ${area.name}`
      : format === 'Souk'
        ? `Souk ${rng.pick(AREA_NAME_LEADS[area.name] ?? [area.name])}`
        : `${placeName(rng, area)} ${format === 'Retail boulevard' ? 'Boulevard' : format === 'Outlet mall' ? 'Outlet Village' : format.includes('mall') ? 'Mall' : format === 'Community centre' ? 'Community Centre' : 'Shopping Centre'}`;
  const mall = format.includes('mall');
  const gla = mall ? rng.int(40_000, 350_000) : format.includes('centre') ? rng.int(5_000, 40_000) : rng.int(1_500, 20_000);
  const data = commonFields('retail', ctx, sourceId, name, format);
  Object.assign(data, {
    retail_format: format,
    gla_sqm: gla,
    store_count: Math.max(1, Math.round(gla / rng.int(200, 700))),
    anchor_tenants: format === 'Hypermarket' || format === 'Supermarket' ? [anchor] : rng.sample(['Carrefour', 'Lulu Hypermarket', 'Spinneys', 'Waitrose', 'Marks & Spencer', 'IKEA', 'Centrepoint', 'VOX Cinemas', 'Reel Cinemas', 'Ace Hardware'], rng.int(1, 4)),
    footfall_score: rng.int(30, 99),
    anchor_tenant_score: rng.int(30, 99),
    accessibility_score: rng.int(30, 99),
    parking_score: rng.int(30, 99),
    dining_score: rng.int(30, 99),
    entertainment_score: mall ? rng.int(50, 99) : rng.int(5, 60),
    catchment_population: rng.int(5_000, 900_000),
    annual_footfall_m: round(mall ? rng.float(5, 100) : rng.float(0.2, 6), 1),
    opening_hours: rng.pick(['10:00-22:00', '10:00-00:00', '08:00-23:00', '24/7']),
  });
  return padTo(rng, data, [
    ['parking_spaces', (r) => (mall ? r.int(1500, 14000) : r.int(20, 800))],
    ['cinema', (r) => mall && r.chance(0.8)],
    ['food_court', (r) => mall || r.chance(0.2)],
    ['grocery_anchor', yes(0.7)],
    ['pharmacy', yes(0.8)],
    ['bank_branches', intIn(0, 12)],
    ['atm_count', intIn(1, 40)],
    ['ev_chargers', intIn(0, 60)],
    ['click_and_collect', yes(0.6)],
    ['home_delivery', yes(0.8)],
    ['family_entertainment', (r) => mall && r.chance(0.7)],
    ['prayer_rooms', yes(0.9)],
    ['valet_parking', (r) => mall && r.chance(0.6)],
    ['tourist_refund_points', (r) => mall && r.chance(0.7)],
    ['occupancy_rate_pct', intIn(70, 100)],
    ['average_rent_aed_sqm', intIn(900, 6500)],
    ['spending_power_score', score()],
    ['competition_score', score()],
    ['growth_score', score()],
    ['metro_connected', yes(0.3)],
  ]);
}

const METRO_LINES = ['Red Line', 'Green Line', 'Route 2020', 'Blue Line'] as const;

function station(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const dubai = area.city === 'Dubai';
  const stationType = dubai
    ? rng.weighted<string>([['metro', 3], ['tram', area.name === 'Dubai Marina' || area.name === 'Jumeirah Lake Towers' || area.name === 'Palm Jumeirah' ? 2 : 0], ['bus', 4], ['water_taxi', WATERFRONT_AREAS.has(area.name) ? 1 : 0]])
    : WATERFRONT_AREAS.has(area.name) && rng.chance(0.15)
      ? 'water_taxi'
      : 'bus';
  const line =
    stationType === 'metro'
      ? rng.pick(METRO_LINES)
      : stationType === 'tram'
        ? 'Dubai Tram'
        : stationType === 'water_taxi'
          ? rng.pick(['Marine Transport Route BM1', 'Water Taxi', 'Abra Route CR4'])
          : `${area.city === 'Abu Dhabi' ? '' : area.city === 'Sharjah' ? 'E' : rng.pick(['F', 'X', '', 'J'])}${rng.int(1, 99)}`;
  const label = stationType === 'metro' ? 'Metro Station' : stationType === 'tram' ? 'Tram Stop' : stationType === 'water_taxi' ? 'Marine Station' : 'Bus Stop';
  const name = `${placeName(rng, area)} ${label}`;
  const data = commonFields('transport', ctx, sourceId, name, stationType);
  Object.assign(data, {
    station_type: stationType,
    line,
    station_code: `${stationType.slice(0, 1).toUpperCase()}${pad(rng.int(1, 999), 3)}`,
    fare_zone: rng.int(1, 7),
    interchange: stationType === 'metro' && rng.chance(0.2),
    daily_ridership: stationType === 'metro' ? rng.int(5000, 90000) : stationType === 'tram' ? rng.int(800, 9000) : rng.int(50, 4000),
    platform_type: stationType === 'metro' ? rng.pick(['elevated', 'underground', 'at-grade']) : 'at-grade',
    first_service: rng.pick(['05:00', '05:30', '06:00']),
    last_service: rng.pick(['23:59', '00:00', '01:00', '23:00']),
    frequency_peak_min: stationType === 'metro' ? rng.int(3, 7) : rng.int(8, 30),
    operator: area.city === 'Dubai' ? 'RTA' : area.city === 'Abu Dhabi' ? 'ITC Abu Dhabi' : 'Sharjah RTA',
  });
  return padTo(rng, data, [
    ['park_and_ride', yes(0.3)],
    ['bike_racks', yes(0.5)],
    ['nol_top_up', (r) => dubai && r.chance(0.9)],
    ['covered_walkway', yes(0.6)],
    ['air_conditioned', (r) => stationType !== 'bus' || r.chance(0.5)],
    ['step_free_access', yes(0.9)],
    ['taxi_rank', yes(0.6)],
    ['gold_class', (r) => stationType === 'metro' || stationType === 'tram' || r.chance(0.05)],
    ['women_and_children_section', (r) => stationType === 'metro' || stationType === 'tram'],
    ['retail_kiosks', intIn(0, 12)],
    ['exits_count', intIn(1, 6)],
    ['platforms_count', intIn(1, 4)],
    ['opened_year', intIn(2009, 2025)],
    ['connections', someOf(['Metro', 'Tram', 'Bus', 'Water taxi', 'Taxi', 'Careem Bike'], 1, 4)],
    ['reliability_score', score()],
    ['crowding_score', score()],
    ['walkability_score', score()],
    ['real_time_info', yes(0.8)],
    ['wifi', yes(0.6)],
  ]);
}

function tourism(ctx: FacilityContext, sourceId: string): Rec {
  const { rng, area } = ctx;
  const kind = rng.weighted<string>([['Hotel', 5], ['Resort', 2], ['Attraction', 2], ['Museum', 1], ['Theme park', 1], ['Landmark', 1], ['Beach club', 1]]);
  const hotel = kind === 'Hotel' || kind === 'Resort';
  const brand = rng.pick(['Address', 'Jumeirah', 'Rove', 'Hilton', 'Marriott', 'Rixos', 'Anantara', 'Vida', 'Radisson', 'Novotel', 'Sofitel', 'Hyatt']);
  const lead = rng.pick(AREA_NAME_LEADS[area.name] ?? [area.name]);
  const name = hotel
    ? `${brand} ${area.name}${kind === 'Resort' ? ' Resort & Spa' : ''}`
    : kind === 'Attraction'
      ? `${lead} ${rng.pick(['Observation Deck', 'Aquarium', 'Art Gallery', 'Adventure Park', 'Night Market', 'Dancing Fountain'])}`
      : kind === 'Museum'
        ? `${lead} ${rng.pick(['Museum of Art', 'Heritage Museum', 'Science Museum', 'Design Museum'])}`
        : kind === 'Theme park'
          ? `${lead} ${rng.pick(['Waterpark', 'Theme Park', 'Adventure World'])}`
          : kind === 'Landmark'
            ? `${lead} ${rng.pick(['Clock Tower', 'Arch', 'Heritage Fort', 'Grand Mosque'])}`
            : `${lead} Beach Club`;
  const data = commonFields('tourism', ctx, sourceId, name, kind);
  Object.assign(data, {
    tourism_type: kind,
    star_rating: hotel ? rng.int(3, 5) : null,
    brand: hotel ? brand : null,
    rooms_count: hotel ? rng.int(80, 800) : 0,
    annual_visitors: hotel ? rng.int(20_000, 400_000) : rng.int(50_000, 8_000_000),
    ticket_price_aed: hotel ? null : rng.pick([0, 50, 75, 120, 160, 299, 349]),
    average_daily_rate_aed: hotel ? rng.int(350, 3500) : null,
    occupancy_rate_pct: hotel ? rng.int(60, 95) : null,
    opening_hours: hotel ? '24/7' : rng.pick(['09:00-21:00', '10:00-22:00', '16:00-00:00']),
    tripadvisor_rating: round(rng.float(3.5, 5), 1),
  });
  return padTo(rng, data, [
    ['beach_access', yes(0.35)],
    ['restaurants_count', intIn(0, 25)],
    ['spa', (r) => hotel && r.chance(0.7)],
    ['pool', (r) => hotel && r.chance(0.9)],
    ['kids_club', (r) => kind === 'Resort' || r.chance(0.2)],
    ['conference_rooms', (r) => (hotel ? r.int(0, 20) : 0)],
    ['airport_shuttle', (r) => hotel && r.chance(0.5)],
    ['alcohol_licensed', yes(0.6)],
    ['family_friendly', yes(0.8)],
    ['guided_tours', (r) => !hotel && r.chance(0.6)],
    ['languages_supported', someOf(['English', 'Arabic', 'Russian', 'Chinese', 'French', 'German', 'Hindi'], 1, 5)],
    ['peak_season', oneOf('November–March', 'December–February', 'October–April')],
    ['visitor_satisfaction_score', score()],
    ['attraction_score', score()],
    ['nightlife_score', score()],
    ['instagram_mentions', intIn(100, 2_000_000)],
    ['sustainability_certified', yes(0.3)],
    ['parking_spaces', intIn(0, 3000)],
    ['accessible_rooms', (r) => (hotel ? r.int(2, 30) : 0)],
    ['halal_dining', yes(0.9)],
  ]);
}
