/*
 * The developers the demo catalogue is built around. Their home areas and weights decide where their
 * projects are and how many each gets; the ids are fixed because tests and docs name some of them.
 */

export interface DeveloperDef {
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

export const DEVELOPERS: readonly DeveloperDef[] = [
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
