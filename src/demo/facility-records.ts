import type { FacilityCategory } from '../domain/catalogue-codes.js';
import { AREA_NAME_LEADS, WATERFRONT_AREAS } from './areas.js';
import type { Rec } from './bundle-record.js';
import {
  commonFields,
  intIn,
  oneOf,
  padTo,
  placeName,
  score,
  someOf,
  SOURCE_PREFIX,
  yes,
  type FacilityContext,
} from './facility-fields.js';
import { pad, round } from './format.js';

/*
 * The master-data record of one facility, per category: each category has the fields its real data
 * source carries (30 to 50 of them), so facility payloads are as varied as in production.
 */

export function buildFacility(category: FacilityCategory, ctx: FacilityContext): { sourceId: string; data: Rec } {
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
