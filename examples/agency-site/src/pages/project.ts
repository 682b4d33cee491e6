import type { Project } from '@catalogue-api/sdk';
import { bedrooms, canApply, date, imageUrl, money, PAYMENT_STAGE, UNIT_STATUS, widthClass, area as size } from '../format.js';
import { html, type Html } from '../html.js';
import { layout } from './layout.js';

const CATEGORY_LABEL: Record<string, string> = {
  transport: 'Transport',
  education: 'Schools and education',
  healthcare: 'Healthcare',
  retail: 'Shopping',
  lifestyle: 'Lifestyle',
  employment: 'Business districts',
  tourism: 'Leisure and tourism',
  airports_ports: 'Airports and ports',
};
const NEARBY_SHOWN = 5;

function gallery(project: Project): Html {
  const images = project.media.images;
  if (images.length === 0) return html`<p class="muted">No photos yet.</p>`;
  return html`<div class="gallery" aria-label="Gallery">${images.map((image) => {
    const url = imageUrl(image.file.url);
    return url ? html`<img class="photo" src="${url}" alt="${image.file.original_name ?? project.name}">` : html`<div class="photo">${image.file.original_name ?? `Photo ${image.position}`}</div>`;
  })}</div>`;
}

function units(project: Project): Html {
  if (project.units.length === 0) return html`<p class="muted">No units listed.</p>`;
  // On small screens each row is a card (CSS): every cell carries its column name for that.
  return html`<table class="units" aria-label="Units"><thead><tr><th scope="col">Unit</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col"><span class="visually-hidden">Application</span></th></tr></thead><tbody>
  ${project.units.map(
    (unit) => html`<tr data-unit-id="${unit.id}"><td data-label="Unit">${unit.unit_number}</td><td data-label="Type">${bedrooms(unit.bedrooms)}</td><td data-label="Size">${size(unit.unit_area)}</td><td data-label="Status">${UNIT_STATUS[unit.status] ?? unit.status}</td><td data-label="Price">${money(unit.price, project.cost.currency)}</td><td>${
      canApply(unit) ? html`<a class="apply button" href="/units/${unit.id}/apply" aria-label="Apply for unit ${unit.unit_number}">Apply</a>` : html`<span class="muted">Sold out</span>`
    }</td></tr>`,
  )}
</tbody></table>`;
}

/**
 * The payment plan: a bar of its parts in proportion, each with its share only (that fits a phone's
 * narrowest part), and the stages in words under it, each with the colour of its parts: "50% During
 * construction, in 4 payments (10% + 10% + 10% + 20%)". The words wrap between words at any width.
 */
function paymentPlan(project: Project): Html {
  if (project.payment_plans.length === 0) return html`<p class="muted">Payment plan on request.</p>`;
  const stages = new Map<number, number[]>();
  for (const part of project.payment_plans) stages.set(part.type, [...(stages.get(part.type) ?? []), part.percent]);
  const total = (shares: number[]) => Math.round(shares.reduce((sum, share) => sum + share, 0) * 100) / 100;
  return html`<div class="plan" aria-hidden="true">${project.payment_plans.map(
    (part) => html`<div class="s${part.type} ${widthClass(Math.max(part.percent, 8))}">${part.percent}%</div>`,
  )}</div>
<ul class="plan-stages" aria-label="Payment plan">${[...stages].map(
    ([type, shares]) =>
      html`<li data-stage="${type}" data-percent="${total(shares)}"><span class="swatch s${type}" aria-hidden="true"></span><span><strong>${total(shares)}%</strong> ${PAYMENT_STAGE[type] ?? 'Other'}${
        shares.length > 1 ? html`<span class="muted">, in ${shares.length} payments (${shares.map((share) => `${share}%`).join(' + ')})</span>` : ''
      }</span></li>`,
  )}</ul>`;
}

function nearby(project: Project): Html {
  const categories = Object.entries(project.nearby_facilities).filter(([, entries]) => entries.length > 0);
  if (categories.length === 0) return html`<p class="muted">No nearby facilities listed.</p>`;
  return html`<div class="nearby">${categories.map(
    ([category, entries]) => html`<section data-category="${category}"><h3>${CATEGORY_LABEL[category] ?? category}</h3><ul>${entries
      .slice(0, NEARBY_SHOWN)
      .map((entry) => html`<li>${String(entry.facility.name ?? entry.facility.source_id)} <span class="muted">${(entry.distance / 1000).toFixed(1)} km</span></li>`)}</ul></section>`,
  )}</div>`;
}

export function projectPage(project: Project): Html {
  const location = [project.location.area_name, project.location.area_city].filter(Boolean).join(', ');
  return layout(
    project.name,
    html`<p><a href="/">← Back to search</a></p>
<h1>${project.name}</h1>
<p class="muted">${project.company.name}${location ? ` · ${location}` : ''}</p>
${gallery(project)}
<div class="facts">
  <div><span>Price from</span>${money(project.price_from, project.cost.currency)}</div>
  <div><span>Size from</span>${size(project.size_from)}</div>
  <div><span>Handover</span>${date(project.handover_date)}</div>
  <div><span>Construction</span>${project.readiness_progress}%</div>
</div>
${project.description ? html`<p>${project.description}</p>` : ''}
<h2>Payment plan</h2>${paymentPlan(project)}
<h2>Units</h2>${units(project)}
<h2>Nearby</h2>${nearby(project)}`,
  );
}
