import type { ApplicationResult, FieldError, Unit } from '@catalogue-api/sdk';
import { bedrooms, money, area as size } from '../format.js';
import { html, type Html } from '../html.js';
import { layout } from './layout.js';

/** What the visitor typed; sent back into the form when the service refuses it. */
export interface ApplicationFields {
  first_name: string;
  last_name: string;
  email: string;
  mobile_number: string;
  message: string;
}

export const EMPTY_FIELDS: ApplicationFields = { first_name: '', last_name: '', email: '', mobile_number: '', message: '' };

/** The form's fields, the body path the API names them by, and what to say about a problem, in plain words. */
const FIELDS: { name: keyof ApplicationFields; path: string; label: string; problem: string }[] = [
  { name: 'first_name', path: 'client.first_name', label: 'First name', problem: 'Please enter your first name.' },
  { name: 'last_name', path: 'client.last_name', label: 'Last name', problem: 'Please shorten your last name.' },
  { name: 'email', path: 'client.email', label: 'E-mail', problem: 'Please enter a valid e-mail address, such as name@example.com.' },
  { name: 'mobile_number', path: 'client.mobile_number', label: 'Mobile number (with country code)', problem: 'Please enter a phone number with digits, such as +971 50 123 4567.' },
  { name: 'message', path: 'message', label: 'Message', problem: 'Please shorten your message.' },
];

const CONTACT_REQUIRED = 'Please give an e-mail address or a mobile number, so that our advisor can reach you.';

/** The refusal's problems by form field (from `errors[]`, which the SDK asks for), and those about no field. */
function problemsByField(error: { message: string; errors?: FieldError[] } | undefined) {
  const byField = new Map<keyof ApplicationFields, string>();
  const general: string[] = [];
  for (const problem of error?.errors?.length ? error.errors : error ? [{ field: null, code: 'invalid', message: error.message }] : []) {
    const field = FIELDS.find((candidate) => candidate.path === problem.field);
    if (field) byField.set(field.name, field.problem);
    else if (/client\.email or client\.mobile_number is required/.test(problem.message)) general.push(CONTACT_REQUIRED);
    else general.push(problem.message);
  }
  return { byField, general };
}

/** `currency`: the project's (GET /units/{id} does not carry it). `error`: the service's refusal, shown field by field, the values kept. */
export function applicationPage(
  unit: Unit,
  currency: string,
  fields: ApplicationFields,
  idempotencyKey: string,
  error?: { message: string; requestId?: string; errors?: FieldError[] },
): Html {
  const { byField, general } = problemsByField(error);
  const control = ({ name }: (typeof FIELDS)[number]) => {
    const problem = byField.get(name);
    const aria = problem ? html` aria-invalid="true" aria-describedby="error-${name}"` : '';
    const attributes = {
      first_name: html` required autocomplete="given-name"`,
      last_name: html` autocomplete="family-name"`,
      email: html` type="email" autocomplete="email"`,
      mobile_number: html` type="tel" autocomplete="tel"`,
      message: html``,
    }[name];
    return name === 'message'
      ? html`<textarea id="field-${name}" name="${name}" rows="4"${aria}>${fields[name]}</textarea>`
      : html`<input id="field-${name}" name="${name}" value="${fields[name]}"${attributes}${aria}>`;
  };
  const summary =
    error && (byField.size > 0 || general.length > 0)
      ? html`<div class="error" role="alert"><strong>${byField.size > 0 ? `Please check ${byField.size === 1 ? 'the field' : `the ${byField.size} fields`} marked below.` : 'Your application could not be sent.'}</strong>${general.map((line) => html`<p>${line}</p>`)}${error.requestId ? html`<small>Reference: ${error.requestId}</small>` : ''}</div>`
      : '';
  return layout(
    `Apply for ${unit.project.name} ${unit.unit_number}`,
    html`<p><a href="/projects/${unit.project_id}">← Back to ${unit.project.name}</a></p>
<h1>Apply for unit ${unit.unit_number}</h1>
<p class="muted">${unit.project.name} · ${bedrooms(unit.bedrooms)} · ${size(unit.unit_area)} · ${money(unit.price, currency)}</p>
${summary}
<form class="apply" method="post" action="/units/${unit.id}/apply" novalidate>
  <input type="hidden" name="idempotency_key" value="${idempotencyKey}">
  ${FIELDS.map((field) => {
    const problem = byField.get(field.name);
    return html`<div class="field"><label for="field-${field.name}"><span>${field.label}</span></label>${control(field)}${problem ? html`<p class="field-error" id="error-${field.name}">${problem}</p>` : ''}</div>`;
  })}
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
