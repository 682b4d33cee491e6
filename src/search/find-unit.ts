import type { Static } from '@sinclair/typebox';
import { selectableFields, type FieldSelection } from '../contract/field-selection.js';
import { UnitModel } from '../contract/schemas/units.js';
import type { ReadScope } from '../domain/currency.js';
import { displayPrices, keyPricingOf, shownPriceJson } from './display-prices.js';
import { unitIndexOf, type Snapshot } from './snapshot.js';
import { textAt, type UnitDetails } from './unit-details.js';
import { visibleScope } from './visibility.js';

/*
 * GET /units/{id} on a snapshot: the same visibility as the SQL path (src/queries/units.ts, kept as the
 * reference of test/unit-detail-differential.test.ts): the snapshot holds the live units of published
 * projects, and the key sees those of its contracted developers. The answer is joined from the texts
 * prepared in the snapshot (unit-details.ts) with the key-dependent values filled in: the price in the
 * key's prices or, with `currency=`, converted, and then the `currency` field (as the list items do).
 * The texts are the project's page (unit-details.ts), made when one of its units is first asked.
 */

/** The unit's index in the snapshot when the key sees it, else -1 (unknown, deleted, unpublished, not contracted: alike). */
export function visibleUnitIndex(snapshot: Snapshot, scope: ReadScope, unitId: number): number {
  const k = unitIndexOf(snapshot.units, unitId);
  if (k < 0) return -1;
  return visibleScope(snapshot, scope.contracted_developer_ids).visible[snapshot.units.project[k]] === 1 ? k : -1;
}

/** The currency of the project of the unit at index k (its own, before any `currency=`). */
export function unitProjectCurrency(snapshot: Snapshot, k: number): string {
  const { projects, units } = snapshot;
  return projects.currencies[projects.currencyIndex[units.project[k]]];
}

interface UnitContext {
  details: UnitDetails;
  snapshot: Snapshot;
  /** Unit and project index in the snapshot, and the unit's index in the page. */
  k: number;
  p: number;
  i: number;
  price: string;
  /** The `currency` value as JSON, only with `currency=`. */
  currency: string | undefined;
}

type UnitProperty = keyof Static<typeof UnitModel>;

/** Each property's value as JSON (undefined: left out), as the route's serializer writes it. */
const PROPERTIES: { [name in UnitProperty]-?: (unit: UnitContext) => string | undefined } = {
  id: ({ details, i }) => String(details.id[i]),
  project_id: ({ snapshot, p }) => String(snapshot.projects.id[p]),
  unit_number: ({ details, i }) => textAt(details.numbers, i),
  bedrooms: ({ snapshot, k }) => String(snapshot.units.bedrooms[k]),
  status: ({ snapshot, k }) => String(snapshot.units.status[k]),
  furnishing: ({ details, i }) => String(details.furnishing[i]),
  parking: ({ snapshot, k }) => String(snapshot.units.parking[k]),
  floor: ({ details, i }) => String(details.floor[i]),
  price: ({ price }) => price,
  currency: ({ currency }) => currency,
  unit_area: ({ snapshot, k }) => String(snapshot.units.area[k]),
  plan_file_id: ({ details, i }) => (details.planFile[i] < 0 ? 'null' : String(details.fileId[details.planFile[i]])),
  plan_file: ({ details, i }) => (details.planFile[i] < 0 ? 'null' : textAt(details.files, details.planFile[i])),
  preferences: ({ details, i }) => {
    let text = '[';
    for (let l = details.linkStart[i]; l < details.linkStart[i + 1]; l++) {
      if (l > details.linkStart[i]) text += ',';
      text += `{"id":${details.linkId[l]},"unit_id":${details.id[i]}${details.tagParts.get(details.linkTag[l])}${details.linkTails[details.linkTime[l]]}`;
    }
    return `${text}]`;
  },
  project: ({ details }) => details.project,
  // As the drivers write a timestamp (src/db/type-parsers.mjs), quoted as the serializer does.
  created_at: ({ details, i }) => `"${new Date(details.createdMs[i]).toISOString()}"`,
  updated_at: ({ details, i }) => `"${new Date(details.updatedMs[i]).toISOString()}"`,
};

/**
 * The properties in the serializer's order, with their key text: fast-json-stringify writes the
 * required properties first and then the optional ones (`currency`), each in the schema's order.
 */
const renderers = new Map<string, (unit: UnitContext) => string | undefined>(Object.entries(PROPERTIES));
const required = new Set<string>(UnitModel.required);
const names = selectableFields(UnitModel);
const ORDER = [...names.filter((name) => required.has(name)), ...names.filter((name) => !required.has(name))].map((name) => {
  const render = renderers.get(name);
  if (!render) throw new Error(`find-unit: no value for the property ${name} of UnitModel`);
  return { name, key: `${JSON.stringify(name)}:`, render };
});

/**
 * The data of GET /units/{id} for the unit at index `k` (visibleUnitIndex) as JSON text, from its
 * project's page (made on the same snapshot); with `fields`, only the properties named (the full
 * answer with the others left out).
 */
export function unitJson(snapshot: Snapshot, page: UnitDetails, k: number, scope: ReadScope, fields?: FieldSelection): string {
  const { projects, units } = snapshot;
  const p = units.project[k];
  const i = k - projects.unitStart[p];
  if (page.id[i] !== units.id[k]) throw new Error(`unit details: unit ${units.id[k]} is not at its place in its project's page`);
  const currencyIndex = projects.currencyIndex[p];
  // Kept per snapshot, price vector and currency, as for the list items.
  const display = scope.display && displayPrices(snapshot, scope.price_vector, scope.display);
  const converted = display?.from[currencyIndex];
  const unit: UnitContext = {
    details: page,
    snapshot,
    k,
    p,
    i,
    price: shownPriceJson(units.baseCents[k], keyPricingOf(scope.price_vector), converted),
    // The asked currency when converted; a project's currency without a rate keeps its own.
    currency: display && (converted ? display.json : JSON.stringify(projects.currencies[currencyIndex])),
  };
  let text = '{';
  for (const { name, key, render } of ORDER) {
    if (fields && !fields.has(name)) continue;
    const value = render(unit);
    if (value === undefined) continue;
    text += text.length > 1 ? `,${key}${value}` : key + value;
  }
  return `${text}}`;
}
