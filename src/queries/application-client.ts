import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { MergedInterests, PreparedApplication } from '../domain/application-merge.js';

/*
 * The client an application is filed under: the agency's existing client with the same contact, or a
 * new one. Races between concurrent applications are settled by the database, so this holds with any
 * number of API processes: a new client is inserted with ON CONFLICT DO NOTHING against the two unique
 * indexes (company + lower(email), company + mobile digits) and re-selected when another transaction won
 * the race.
 */

const clientColumns = [
  'id',
  'first_name',
  'last_name',
  'email',
  'mobile_number',
  'property_types',
  'preferred_area_ids',
  'property_features',
  'created_at',
] as const;

/**
 * The company's client with the same email (case-insensitive) or the same mobile digits, preferring an
 * email match; otherwise a new client. The insert does nothing when a concurrent transaction created
 * a matching client first (either unique index), and the re-select then finds that one.
 */
export async function findOrCreateClient(trx: Transaction<DB>, companyId: number, prepared: PreparedApplication, merged: MergedInterests) {
  const { email, mobile_digits: digits } = prepared.client;
  const find = () =>
    trx
      .selectFrom('clients')
      .select(clientColumns)
      .where('company_id', '=', companyId)
      .where((eb) =>
        eb.or([
          ...(email ? [eb.and([eb('email', 'is not', null), eb(eb.fn('lower', ['email']), '=', email)])] : []),
          ...(digits ? [eb.and([eb('mobile_digits', '<>', ''), eb('mobile_digits', '=', digits)])] : []),
        ]),
      )
      .orderBy(sql`coalesce(lower(email) = ${email}, false)`, 'desc')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();

  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await find();
    if (existing) return { ...existing, created: false };
    const { client } = prepared;
    const inserted = await trx
      .insertInto('clients')
      .values({
        company_id: companyId,
        first_name: client.first_name,
        last_name: client.last_name,
        email: client.email,
        mobile_number: client.mobile_number,
        landline_number: client.landline_number,
        address_line1: client.address_line1,
        address_line2: client.address_line2,
        city: client.city,
        country: client.country,
        postcode: client.postcode,
        social_links: JSON.stringify(client.social_links),
        property_types: merged.property_types,
        preferred_area_ids: merged.preferred_area_ids,
        property_features: merged.property_features,
      })
      .onConflict((oc) => oc.doNothing())
      .returning(clientColumns)
      .executeTakeFirst();
    if (inserted) return { ...inserted, created: true };
  }
  throw new Error(`client of company ${companyId} neither found nor created`);
}
