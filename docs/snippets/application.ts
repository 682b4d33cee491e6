import { randomUUID } from 'node:crypto';
import { CatalogueApiError, type CatalogueClient } from '@catalogue-api/sdk';

/**
 * Step 5: the application form's handler. Make the Idempotency-Key when you render the form and send
 * it with the post: a double click or a retry then returns the first offer instead of a second one.
 * What it returns is for the visitor: the unit and price, and the name the visitor typed, never the
 * CRM's records (use a key with private applications, which does not even send them).
 */
export async function apply(catalogue: CatalogueClient, unitId: number, form: { firstName: string; email?: string; mobile?: string }, idempotencyKey: string = randomUUID()) {
  try {
    const { offer, client } = await catalogue.submitApplication(
      unitId,
      { client: { first_name: form.firstName, email: form.email, mobile_number: form.mobile }, preferences: { based_on_unit: true } },
      { idempotencyKey },
    );
    return { ok: true as const, name: client.first_name, project: offer.unit.project_name, unit: offer.unit.unit_number, price: offer.price, currency: offer.currency };
  } catch (error) {
    // 400: the message names the field, e.g. "client.mobile_number must contain at least one digit".
    if (error instanceof CatalogueApiError && error.status === 400) return { ok: false as const, message: error.message };
    throw error;
  }
}
