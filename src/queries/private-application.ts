import { opportunityName, type MergedInterests, type PreparedApplication } from '../domain/application-merge.js';
import type { PrivateApplicationResult } from '../contract/schemas/applications.js';
import type { ApplicableUnit } from './applicable-unit.js';
import type { References } from './application-references.js';

/*
 * The application answer of a key with `private_applications` (migration 0009, issue 20). Made only
 * from the request (normalised by prepareApplication), the interests merged with the unit, and the
 * catalogue names of the tags and features the request and the unit gave: nothing read from the CRM,
 * so a visitor who types a known contact's phone number learns nothing a new contact would not.
 */
export function privateApplicationResult(prepared: PreparedApplication, merged: MergedInterests, unit: ApplicableUnit, offerPrice: number | null, references: References): PrivateApplicationResult {
  const { client } = prepared;
  return {
    client: {
      first_name: client.first_name,
      last_name: client.last_name,
      email: client.email,
      mobile_number: client.mobile_number,
      property_types: merged.property_types,
      preferred_area_ids: merged.preferred_area_ids,
      property_features: merged.property_features,
    },
    opportunity: {
      name: opportunityName(client.first_name, client.last_name, unit.facts.project_name, unit.facts.unit_number),
      investment_type: prepared.investment_type,
      currency: merged.currency,
      min_budget: merged.budget.min,
      max_budget: merged.budget.max,
      ...linkedInterests(merged, references),
    },
    offer: {
      unit: offerUnit(unit),
      // The offer's price as stored (converted to the offer's currency), not the unit's in its own.
      price: offerPrice,
      language: prepared.language,
      currency: merged.currency,
      measure_units: MEASURE_UNITS_FT2,
      is_sent: false,
    },
  };
}

/** 1 = ft² (the only documented value); offers created by applications always use it. */
export const MEASURE_UNITS_FT2 = 1;

/** The opportunity's linked tags, features and amenities, as both answers show them. */
export function linkedInterests(merged: MergedInterests, references: References) {
  const features = merged.project_preference_ids.map((id) => references.features.get(id)!);
  return {
    preferences: merged.preference_ids.map((id) => ({ id, name: references.tags.get(id)! })),
    project_preferences: { features: features.filter((f) => f.type === 1), amenities: features.filter((f) => f.type === 2) },
  };
}

export const offerUnit = (unit: ApplicableUnit) => ({ id: unit.id, unit_number: unit.facts.unit_number, project_id: unit.project_id, project_name: unit.facts.project_name });
