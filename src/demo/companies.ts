import { CITY_PHONE_CODE, type AreaDef } from './areas.js';
import type { Row } from './bundle-record.js';
import { DEVELOPERS } from './developers.js';
import type { AddFile } from './file-records.js';
import { DEMO_AGENCY_ID, SECOND_AGENCY_ID } from './notable-records.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';

/*
 * The companies every other record belongs to: the demo agency (licence approved), a second agency whose
 * licence is pending, and the developers.
 */

export function generateCompanies(rng: Rng, addFile: AddFile): Row<'companies'>[] {
  const companies: Row<'companies'>[] = [];
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
  return companies;
}
