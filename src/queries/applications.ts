import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { ApplicationRejected, mergeWithUnit, opportunityName, prepareApplication, resolveCurrency, type ApplicationRequest } from '../domain/application-merge.js';
import type { ApplicationResponse } from '../contract/schemas/applications.js';
import { offerPrice } from '../domain/currency.js';
import type { KeyRecord } from './api-keys.js';
import type { KeyScope } from '../domain/key-scope.js';
import { findApplicableUnit } from './applicable-unit.js';
import { findOrCreateClient } from './application-client.js';
import { readCurrencyRates } from './currency-rates.js';
import { loadReferences, type FeatureItem } from './application-references.js';
import { lockFirstStage } from './board-stages.js';
import { reserveIdempotencyKey, storeIdempotentResponse } from './idempotency-keys.js';
import { findAdvisor } from './offer-advisor.js';
import { linkedInterests, MEASURE_UNITS_FT2, offerUnit, privateApplicationResult } from './private-application.js';
import { recordApplicationEvent } from './webhook-events.js';

/*
 * POST /units/{id}/applications as one transaction: the idempotency reservation (when asked for), the
 * client (found or created), the opportunity with its tags and features, the draft offer and the link
 * between them all commit together or not at all. The steps with rules of their own live in their own
 * modules; this one composes them and writes the offer, the opportunity and their links.
 *
 * Concurrency is settled by the database, so it holds with any number of API processes; the modules
 * that take part say how: board-stages.ts (the column lock under which the card's position is taken
 * here, distinct and gap-free), application-client.ts (one client per contact) and idempotency-keys.ts
 * (a duplicate request waits, then replays).
 */

export { DEFAULT_STAGE } from './board-stages.js';
export { IN_FLIGHT_WAIT_MS } from './idempotency-keys.js';
export type { FeatureItem };

export type ApplicationKey = KeyScope & Pick<KeyRecord, 'id' | 'private_applications'> & {
  company: { id: number };
  author: { id: number };
};

export interface ApplicationInput {
  unitId: number;
  request: ApplicationRequest;
  key: ApplicationKey;
  idempotency?: { key: string; requestHash: string };
}

/** The 201 body's `data`: its one definition is the response schema (validation, serialization, OpenAPI). */
export type ApplicationData = ApplicationResponse;

export interface ApplicationOutcome {
  statusCode: number;
  data: ApplicationData;
  /** True when an Idempotency-Key replay returned the stored response and nothing was written. */
  replayed: boolean;
}

const APPLICATION_CREATED = 201;

export async function submitApplication(db: Kysely<DB>, input: ApplicationInput): Promise<ApplicationOutcome> {
  const prepared = prepareApplication(input.request);
  const { key } = input;
  return db.transaction().execute(async (trx) => {
    if (input.idempotency) {
      const replay = await reserveIdempotencyKey(trx, key.id, input.idempotency);
      if (replay) return { statusCode: replay.statusCode, data: replay.response as ApplicationData, replayed: true };
    }

    const unit = await findApplicableUnit(trx, key, input.unitId);
    if (!unit) throw new ApplicationRejected({ code: 'unit_not_found' });
    // The offer's price in the offer's currency (converted when it differs and both have a rate); the
    // budget derived from the unit takes the same price.
    const offerCurrency = resolveCurrency(prepared.currency, unit.facts.project_currency);
    const priced = offerPrice(
      { baseCents: unit.baseCents, keyPrice: unit.facts.price, currency: unit.facts.project_currency },
      offerCurrency,
      key.price_vector,
      await readCurrencyRates(trx),
    );
    const merged = mergeWithUnit(prepared, { ...unit.facts, price: priced.price });
    const references = await loadReferences(trx, prepared, merged);

    const offerStatus = await trx.selectFrom('offer_statuses').select(['id', 'name']).orderBy('id').limit(1).executeTakeFirst();
    if (!offerStatus) throw new ApplicationRejected({ code: 'offer_status_catalogue_empty' });
    const advisor = await findAdvisor(trx, key.company.id, key.author.id);
    if (!advisor) throw new ApplicationRejected({ code: 'author_gone' });

    const client = await findOrCreateClient(trx, key.company.id, prepared, merged);
    // The offer depends on nothing the board lock protects, so it is written before taking it.
    const offer = await trx
      .insertInto('offers')
      .values({
        uuid: randomUUID(),
        company_id: key.company.id,
        author_id: key.author.id,
        unit_id: unit.id,
        offer_status_id: offerStatus.id,
        price: priced.price,
        unit_currency: priced.conversion?.unit_currency ?? null,
        unit_price: priced.conversion?.unit_price ?? null,
        exchange_rate: priced.conversion?.rate ?? null,
        rate_as_of: priced.conversion?.rate_as_of ?? null,
        language: prepared.language,
        currency: merged.currency,
        measure_units: MEASURE_UNITS_FT2,
        advisor_name: advisor.name,
        advisor_email: advisor.email,
        advisor_phone: advisor.contact_phone,
        is_sent: false,
      })
      .returning(['id', 'uuid', 'price', 'language', 'currency', 'measure_units', 'advisor_name', 'advisor_email', 'advisor_phone', 'is_sent', 'created_at'])
      .executeTakeFirstOrThrow();

    // Taken as late as possible: every application of the agency queues on this lock until commit, so
    // what follows is two statements (the card at the end of the column, then its links) and the commit.
    const stage = await lockFirstStage(trx, key.company.id);
    const opportunity = await trx
      .insertInto('opportunities')
      .values({
        company_id: key.company.id,
        client_id: client.id,
        stage_id: stage.id,
        author_id: key.author.id,
        api_key_id: key.id,
        unit_id: unit.id,
        name: opportunityName(client.first_name, client.last_name, unit.facts.project_name, unit.facts.unit_number),
        investment_type: prepared.investment_type,
        currency: merged.currency,
        min_budget: merged.budget.min,
        max_budget: merged.budget.max,
        position: sql<number>`(SELECT coalesce(max(o.position) + 1, 0) FROM opportunities o WHERE o.stage_id = ${stage.id})`,
        notes: prepared.message,
      })
      .returning(['id', 'name', 'investment_type', 'currency', 'min_budget', 'max_budget', 'position', 'created_at'])
      .executeTakeFirstOrThrow();
    await sql`
      WITH tags AS (
        INSERT INTO opportunity_tags (opportunity_id, tag_id) SELECT ${opportunity.id}, unnest(${merged.preference_ids}::int[])
      ), features AS (
        INSERT INTO opportunity_project_features (opportunity_id, feature_id) SELECT ${opportunity.id}, unnest(${merged.project_preference_ids}::int[])
      )
      INSERT INTO offer_opportunities (offer_id, opportunity_id) VALUES (${offer.id}, ${opportunity.id})`.execute(trx);

    // A key with private applications answers from the request and the unit only (the CRM is written alike).
    const data: ApplicationData = key.private_applications ? privateApplicationResult(prepared, merged, unit, offer.price, references) : {
      client: {
        id: client.id,
        first_name: client.first_name,
        last_name: client.last_name,
        email: client.email,
        mobile_number: client.mobile_number,
        property_types: client.property_types,
        preferred_area_ids: client.preferred_area_ids,
        property_features: client.property_features,
        created: client.created,
        created_at: client.created_at,
      },
      opportunity: {
        id: opportunity.id,
        name: opportunity.name,
        stage: { id: stage.id, name: stage.name, position: stage.position },
        investment_type: opportunity.investment_type,
        currency: opportunity.currency,
        min_budget: opportunity.min_budget,
        max_budget: opportunity.max_budget,
        position: opportunity.position,
        ...linkedInterests(merged, references),
        created_at: opportunity.created_at,
      },
      offer: {
        id: offer.id,
        uuid: offer.uuid,
        offer_status: { id: offerStatus.id, name: offerStatus.name },
        unit: offerUnit(unit),
        price: offer.price,
        language: offer.language,
        currency: offer.currency,
        measure_units: offer.measure_units,
        advisor_name: offer.advisor_name,
        advisor_email: offer.advisor_email,
        advisor_phone: offer.advisor_phone,
        is_sent: offer.is_sent,
        created_at: offer.created_at,
        price_conversion: priced.conversion,
      },
    };

    // The agency's webhooks learn of it in this transaction: sent if and only if the application commits.
    await recordApplicationEvent(trx, key.company.id, {
      api_key_id: key.id,
      client_id: client.id,
      client_created: client.created,
      opportunity_id: opportunity.id,
      offer_id: offer.id,
      offer_uuid: offer.uuid,
      unit_id: unit.id,
      project_id: unit.project_id,
      price: offer.price,
      currency: offer.currency,
      created_at: offer.created_at,
    });
    if (input.idempotency) {
      await storeIdempotentResponse(trx, key.id, input.idempotency.key, APPLICATION_CREATED, data);
    }
    return { statusCode: APPLICATION_CREATED, data, replayed: false };
  });
}
