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

/**
 * The confirmation shows the visitor what the visitor typed and what the unit is, never a CRM record:
 * whoever types a known client's phone number must not see that client's name, nor learn that the
 * contact is a client (no ids, no "existing client"). The site's key has private applications, so the
 * service does not send those either (docs/integrating.md).
 */
export function offerPage(fields: ApplicationFields, result: ApplicationResult): Html {
  const { offer } = result;
  const contact = [fields.email.trim(), fields.mobile_number.trim()].filter(Boolean).join(' / ');
  return layout(
    'Application received',
    html`<div class="offer">
<h1>Thank you, ${fields.first_name.trim()}!</h1>
<p>Your application is with the agency: an advisor will send you the offer.</p>
<dl>
  <dt>Unit</dt><dd>${offer.unit.project_name}, unit ${offer.unit.unit_number}</dd>
  <dt>Price</dt><dd>${money(offer.price, offer.currency)}</dd>
  <dt>Name</dt><dd>${[fields.first_name.trim(), fields.last_name.trim()].filter(Boolean).join(' ')}</dd>
  <dt>Contact</dt><dd>${contact}</dd>
</dl>
<p><a href="/projects/${offer.unit.project_id}">Back to the project</a></p>
</div>`,
  );
}
