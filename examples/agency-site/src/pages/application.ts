import type { ApplicationResult, Unit } from '@catalogue-api/sdk';
import { bedrooms, money, area as size } from '../format.js';
import { html, type Html } from '../html.js';
import { errorBox, layout } from './layout.js';

/** What the visitor typed; sent back into the form when the service refuses it. */
export interface ApplicationFields {
  first_name: string;
  last_name: string;
  email: string;
  mobile_number: string;
  message: string;
}

export const EMPTY_FIELDS: ApplicationFields = { first_name: '', last_name: '', email: '', mobile_number: '', message: '' };

/** `currency`: the project's (GET /units/{id} does not carry it). */
export function applicationPage(unit: Unit, currency: string, fields: ApplicationFields, idempotencyKey: string, error?: { message: string; requestId?: string }): Html {
  return layout(
    `Apply for ${unit.project.name} ${unit.unit_number}`,
    html`<p><a href="/projects/${unit.project_id}">← Back to ${unit.project.name}</a></p>
<h1>Apply for unit ${unit.unit_number}</h1>
<p class="muted">${unit.project.name} · ${bedrooms(unit.bedrooms)} · ${size(unit.unit_area)} · ${money(unit.price, currency)}</p>
${error ? errorBox(error.message, error.requestId) : ''}
<form class="apply" method="post" action="/units/${unit.id}/apply">
  <input type="hidden" name="idempotency_key" value="${idempotencyKey}">
  <label><span>First name</span><input name="first_name" required value="${fields.first_name}" autocomplete="given-name"></label>
  <label><span>Last name</span><input name="last_name" value="${fields.last_name}" autocomplete="family-name"></label>
  <label><span>E-mail</span><input name="email" value="${fields.email}" autocomplete="email" inputmode="email"></label>
  <label><span>Mobile number (with country code)</span><input name="mobile_number" value="${fields.mobile_number}" autocomplete="tel" inputmode="tel"></label>
  <label><span>Message</span><textarea name="message" rows="4">${fields.message}</textarea></label>
  <div><button type="submit">Send application</button></div>
</form>`,
  );
}

export function offerPage(result: ApplicationResult): Html {
  const { offer, opportunity, client } = result;
  return layout(
    'Application received',
    html`<div class="offer" data-offer-id="${offer.id}">
<h1>Thank you, ${client.first_name}!</h1>
<p>Your application is with our advisor ${offer.advisor_name}${offer.advisor_email ? html` (<a href="mailto:${offer.advisor_email}">${offer.advisor_email}</a>)` : ''}, who will send you the offer.</p>
<dl>
  <dt>Offer</dt><dd>#<span class="offer-id">${offer.id}</span> · ${offer.offer_status.name}</dd>
  <dt>Reference</dt><dd><code>${offer.uuid}</code></dd>
  <dt>Unit</dt><dd>${offer.unit.project_name}, unit ${offer.unit.unit_number}</dd>
  <dt>Price</dt><dd>${money(offer.price, offer.currency)}</dd>
  <dt>Opportunity</dt><dd>${opportunity.name} (${opportunity.stage.name})</dd>
  <dt>Client record</dt><dd>${client.created ? 'new client' : 'existing client, unchanged'}</dd>
</dl>
<p><a href="/projects/${offer.unit.project_id}">Back to the project</a></p>
</div>`,
  );
}
