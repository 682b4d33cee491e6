import type { ApplicationOutcomeData, ProjectContactsData, ProjectDetailData, ProjectsPage, UnitData } from './catalogue.js';
import type { ProjectsQuery } from '../../contract/schemas/projects.js';
import { REFERENCE_LISTS, type ReferenceItem, type ReferenceListName } from './reference-lists.js';

/*
 * The text a model reads from each tool: short lines with the figures that matter and the ids to call
 * the next tool with. The whole answer is in the structured content; this is its digest, so that a
 * page of projects costs a model a few hundred tokens, not the full JSON.
 */

const UNIT_STATUS = ['', 'announced', 'EOI', 'start of sales', 'on sale', 'out of stock'];
const FURNISHING = ['', 'unfurnished', 'partially furnished', 'fully furnished', 'premium'];
const UNITS_SHOWN = 30;
const FACILITIES_SHOWN = 3;

// One formatter for every figure: toLocaleString with options builds a new one per call (~0.2 ms each;
// a page of projects cost 8 ms of text that way).
const FIGURES = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const amount = (value: number) => FIGURES.format(value);
const money = (value: number | null, currency: string) => (value === null ? 'price on request' : `${currency} ${amount(value)}`);
const day = (value: string | null) => (value ? value.slice(0, 10) : 'not set');
const bedrooms = (count: number) => (count === 0 ? 'studio' : `${count} BR`);

/**
 * `unitLevel`: the search has unit-level filters and asked `match: true`: each project also says what
 * matched inside it (without unit-level filters `match` repeats the project's own figures: not shown).
 */
export function searchText(page: ProjectsPage, query: ProjectsQuery, unitLevel = false): string {
  const offset = query.offset ?? 0;
  const lines = [
    page.total === 0
      ? 'No project matches these filters.'
      : `${page.total} project${page.total === 1 ? '' : 's'} match; ${page.items.length ? `showing ${offset + 1}\u2013${offset + page.items.length}` : 'none on this page'} (sort: ${query.sort ?? 'name'}). Prices are the agency\u2019s${query.currency ? ` in ${query.currency}` : ''}.`,
  ];
  for (const item of page.items) {
    const plan = item.payment_plans.length ? `; plan ${item.payment_plans.map((part) => `${part.percent}%`).join('/')}` : '';
    lines.push(
      `- [project ${item.id}] ${item.name} by ${item.company.name}: from ${money(item.price_from, item.currency)}` +
        `${item.size_from === null ? '' : `, from ${amount(item.size_from)} m²`}; handover ${day(item.handover_date)}${plan}` +
        (unitLevel && item.match ? `; ${matchText(item.match, item.currency)}` : ''),
    );
  }
  if (page.facets) {
    for (const [facet, counts] of Object.entries(page.facets)) {
      lines.push(`facet ${facet}: ${(counts as { value: unknown; count: number }[]).map(({ value, count }) => `${String(value)} (${count})`).join(', ') || 'none'}`);
    }
  }
  if (offset + page.items.length < page.total) lines.push(`More: call again with offset ${offset + page.items.length}.`);
  return lines.join('\n');
}

/** "3 units match the unit filters, from AED 1,103,560, from 70.2 m²". */
function matchText(match: NonNullable<ProjectsPage['items'][number]['match']>, currency: string): string {
  const size = match.size_from === null ? '' : `, from ${amount(match.size_from)} m²`;
  return `${match.units} unit${match.units === 1 ? '' : 's'} match${match.units === 1 ? 'es' : ''} the unit filters, from ${money(match.price_from, currency)}${size}`;
}

export function projectText(project: ProjectDetailData): string {
  const currency = project.cost.currency;
  const lines = [
    `[project ${project.id}] ${project.name} by ${project.company.name} (developer ${project.company.id})`,
    `Location: ${[project.location.address, project.area_name, project.area_city].filter(Boolean).join(', ') || 'not set'}` +
      (project.location.area_id === null ? '' : ` (area ${project.location.area_id})`),
    `From ${money(project.price_from, currency)}; handover ${day(project.handover_date)}; development status ${project.development_status}; ` +
      `${project.is_branded ? 'branded; ' : ''}${project.is_resale ? 'resale; ' : ''}escrow ${project.is_escrow ? 'yes' : 'no'}`,
  ];
  if (project.payment_plans.length) lines.push(`Payment plan: ${project.payment_plans.map((part) => `${part.percent}% ${['', 'down payment', 'during construction', 'on completion'][part.type]}`).join(', ')}`);
  const features = [...project.preferences.features, ...project.preferences.amenities].map((feature) => feature.name);
  if (features.length) lines.push(`Features and amenities: ${features.join(', ')}`);
  lines.push(`Units (${project.units.length}):`);
  for (const unit of project.units.slice(0, UNITS_SHOWN)) {
    lines.push(`- [unit ${unit.id}] no. ${unit.unit_number}: ${bedrooms(unit.bedrooms)}, ${amount(unit.unit_area)} m², ${money(unit.price, currency)}, ${UNIT_STATUS[unit.status] ?? unit.status}`);
  }
  if (project.units.length > UNITS_SHOWN) lines.push(`\u2026 and ${project.units.length - UNITS_SHOWN} more units (all of them are in the structured content).`);
  const nearby = Object.entries(project.nearby_facilities).filter(([, entries]) => entries.length > 0);
  if (nearby.length) {
    lines.push('Nearby:');
    for (const [category, entries] of nearby) {
      const names = entries.slice(0, FACILITIES_SHOWN).map((entry) => `${facilityName(entry.facility)} (${amount(Math.round(entry.distance))} m)`);
      lines.push(`- ${category}: ${names.join(', ')}${entries.length > FACILITIES_SHOWN ? `, \u2026 ${entries.length} in all` : ''}`);
    }
  }
  if (project.description) lines.push(`Description: ${project.description}`);
  return lines.join('\n');
}

function facilityName(facility: Record<string, unknown>): string {
  for (const key of ['name', 'asset_name', 'facility_name', 'title']) if (typeof facility[key] === 'string') return facility[key] as string;
  return String(facility.source_id ?? 'facility');
}

/** `currency`: the currency of the unit's price (the answer names it only when one was asked for). */
export function unitText(unit: UnitData, currency: string): string {
  const { project } = unit;
  const tags = unit.preferences.map((link) => link.preference.name);
  return [
    `[unit ${unit.id}] no. ${unit.unit_number} in [project ${project.id}] ${project.name} by ${project.company.CompanyName}`,
    `${bedrooms(unit.bedrooms)}, ${amount(unit.unit_area)} m², floor ${unit.floor}, parking ${unit.parking}, ${FURNISHING[unit.furnishing] ?? unit.furnishing}, ${UNIT_STATUS[unit.status] ?? unit.status}`,
    `Price: ${unit.price === null ? 'on request' : `${money(unit.price, currency)} (the agency\u2019s price)`}`,
    ...(project.area ? [`Area: ${project.area.name}, ${project.area.city} (area ${project.area.id})`] : []),
    ...(tags.length ? [`Tags: ${tags.join(', ')}`] : []),
  ].join('\n');
}

export function contactsText(contacts: ProjectContactsData): string {
  const lines = [`Developer: ${contacts.company.name} (developer ${contacts.company.id})`];
  if (contacts.workers.length === 0) lines.push('No staff listed.');
  for (const worker of contacts.workers) {
    const reach = [worker.email, worker.contact_phone].filter(Boolean).join(', ');
    lines.push(`- ${worker.name}, ${worker.role}: ${reach}${worker.languages?.length ? `; speaks ${worker.languages.join(', ')}` : ''}`);
  }
  return lines.join('\n');
}

export function referenceText(list: ReferenceListName, items: ReferenceItem[]): string {
  const { title, usedBy } = REFERENCE_LISTS[list];
  const lines = [`${title} (${items.length}), ids for ${usedBy}:`];
  for (const item of items) {
    const name = item.name ?? '(no name defined)';
    lines.push(`- ${item.id}: ${name}${item.city ? `, ${item.city}` : ''}${item.projects === undefined ? '' : ` \u2014 ${item.projects} project${item.projects === 1 ? '' : 's'}`}`);
  }
  return lines.join('\n');
}

export function applicationText({ data, replayed }: ApplicationOutcomeData): string {
  const { client, opportunity, offer } = data;
  const name = [client.first_name, client.last_name].filter(Boolean).join(' ');
  const lines = [
    replayed
      ? 'This application had already been filed with this idempotency key: nothing new was written; here is the original answer.'
      : 'Application filed in the agency\u2019s CRM.',
  ];
  // A key with private applications answers without the CRM's ids (src/contract/schemas/applications.ts).
  if ('id' in client && 'id' in opportunity && 'id' in offer) {
    lines.push(
      `Client ${client.id} (${name}, ${client.created ? 'new' : 'existing client reused'})`,
      `Opportunity ${opportunity.id} "${opportunity.name}" in stage ${opportunity.stage.name}`,
      `Draft offer ${offer.id} for unit ${offer.unit.unit_number} of ${offer.unit.project_name}: ${money(offer.price, offer.currency)}`,
    );
  } else {
    lines.push(`Client ${name}; opportunity "${opportunity.name}"`, `Draft offer for unit ${offer.unit.unit_number} of ${offer.unit.project_name}: ${money(offer.price, offer.currency)}`);
  }
  return lines.join('\n');
}
