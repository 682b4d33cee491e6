import type { Project } from '@catalogue-api/sdk';
import { bedrooms, date, imageUrl, money, PAYMENT_STAGE, UNIT_STATUS, area as size } from '../format.js';
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
  return html`<table aria-label="Units"><thead><tr><th>Unit</th><th>Type</th><th>Size</th><th>Status</th><th>Price</th><th></th></tr></thead><tbody>
  ${project.units.map(
    (unit) => html`<tr data-unit-id="${unit.id}"><td>${unit.unit_number}</td><td>${bedrooms(unit.bedrooms)}</td><td>${size(unit.unit_area)}</td><td>${UNIT_STATUS[unit.status] ?? unit.status}</td><td>${money(unit.price, project.cost.currency)}</td><td><a class="apply" href="/units/${unit.id}/apply">Apply</a></td></tr>`,
  )}
</tbody></table>`;
}

function paymentPlan(project: Project): Html {
  if (project.payment_plans.length === 0) return html`<p class="muted">Payment plan on request.</p>`;
  return html`<div class="plan" aria-label="Payment plan">${project.payment_plans.map(
    (part) => html`<div class="s${part.type}" style="flex:${Math.max(part.percent, 8)}">${part.percent}% ${PAYMENT_STAGE[part.type] ?? ''}</div>`,
  )}</div>`;
}

function nearby(project: Project): Html {
  const categories = Object.entries(project.nearby_facilities).filter(([, entries]) => entries.length > 0);
  if (categories.length === 0) return html`<p class="muted">No nearby facilities listed.</p>`;
  return html`<div class="nearby">${categories.map(
    ([category, entries]) => html`<section data-category="${category}"><h4>${CATEGORY_LABEL[category] ?? category}</h4><ul>${entries
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
