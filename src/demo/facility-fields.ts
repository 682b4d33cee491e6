import type { FacilityCategory } from '../domain/catalogue-codes.js';
import { AREA_NAME_LEADS, CITY_PHONE_CODE, type AreaDef } from './areas.js';
import type { FixedFacility } from './airports-and-ports.js';
import type { Rec } from './bundle-record.js';
import { round, slugify } from './format.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';

/*
 * What every facility record has in common whatever its category: the shared fields, the padding to 30
 * to 50 fields with category extras, and the small value makers the category builders describe extras with.
 */


const PLACE_WORDS = ['Central', 'Gate', 'Park', 'Square', 'Plaza', 'Point', 'Crossing', 'Avenue', 'Walk', 'Heights', 'Court', 'Circle'];

/** A locality-like name for a facility: "Marina Gate", "Hills Plaza". */
export function placeName(rng: Rng, area: AreaDef): string {
  return `${rng.pick(AREA_NAME_LEADS[area.name] ?? [area.name])} ${rng.pick(PLACE_WORDS)}`;
}

export interface FacilityContext {
  rng: Rng;
  seq: number;
  area: AreaDef;
  lat: number;
  lng: number;
  fixed?: FixedFacility;
}

export type Extra = readonly [string, (r: Rng) => unknown];

export const yes = (p: number) => (r: Rng) => r.chance(p);
export const intIn = (min: number, max: number) => (r: Rng) => r.int(min, max);
export const score = () => (r: Rng) => r.int(35, 99);
export const oneOf =
  <T>(...items: T[]) =>
  (r: Rng) =>
    r.pick(items);
export const someOf =
  (items: readonly string[], min: number, max: number) =>
  (r: Rng): string[] =>
    r.sample(items, r.int(min, max));

const DATA_SOURCES: Readonly<Record<FacilityCategory, string>> = {
  airports_ports: 'GCAA / AD Ports open data',
  education: 'KHDA school directory',
  employment: 'Dubai Economy business register',
  healthcare: 'DHA Sheryan facility register',
  lifestyle: 'Dubai Municipality public amenities',
  retail: 'Dubai Economy retail census',
  transport: 'RTA open data',
  tourism: 'Department of Economy and Tourism',
};

export const SOURCE_PREFIX: Readonly<Record<FacilityCategory, string>> = {
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
export function commonFields(category: FacilityCategory, ctx: FacilityContext, sourceId: string, name: string, subcategory: string): Rec {
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
export function padTo(rng: Rng, data: Rec, extras: readonly Extra[]): Rec {
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
