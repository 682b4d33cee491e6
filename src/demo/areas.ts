/*
 * The real communities projects and facilities are placed in. Their prices, views, tower heights and
 * name words keep the generated catalogue plausible wherever a record lands.
 */

export interface AreaDef {
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

export const AREAS: readonly AreaDef[] = [
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
export const WATERFRONT_AREAS = new Set(['Dubai Marina', 'Palm Jumeirah', 'Dubai Creek Harbour', 'Business Bay', 'Saadiyat Island', 'Yas Island', 'Al Reem Island']);

export const ALL_AREAS: readonly AreaDef[] = [...AREAS, ...SCALE_AREAS];
export const CITY_AREAS: Readonly<Record<AreaDef['city'], readonly AreaDef[]>> = {
  Dubai: ALL_AREAS.filter((a) => a.city === 'Dubai'),
  'Abu Dhabi': ALL_AREAS.filter((a) => a.city === 'Abu Dhabi'),
  Sharjah: ALL_AREAS.filter((a) => a.city === 'Sharjah'),
};
export const AREA_ID_BY_NAME = new Map(ALL_AREAS.map((a, i) => [a.name, i + 1]));
export const CITY_PHONE_CODE: Record<AreaDef['city'], string> = { Dubai: '4', 'Abu Dhabi': '2', Sharjah: '6' };

/** Words that evoke an area, for the names of its projects and facilities. */
export const AREA_NAME_LEADS: Readonly<Record<string, readonly string[]>> = {
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
