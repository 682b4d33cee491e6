/*
 * The airports_ports category starts with these real places rather than generated ones, so that the
 * airports and ports near a project are ones a buyer would recognise.
 */

export interface FixedFacility {
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
export const AIRPORTS_AND_PORTS: readonly FixedFacility[] = [
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
