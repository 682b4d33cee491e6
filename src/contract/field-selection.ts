import { Type, type TObject } from '@sinclair/typebox';
import { FilterError } from '../domain/project-filters.js';
import { perObject } from '../lib/per-object.js';

/*
 * Field selection (`fields=name,media,units`), the one home of the rule for every route that offers it
 * (GET /projects items, GET /projects/{id}, GET /units/{id}): an opt-in addition, so without `fields`
 * nothing here runs and the answer is the specified one, byte for byte.
 *
 * A selection names top-level properties of the object the route presents (for the project detail its
 * blocks too: `media`, `units`, `nearby_facilities` are properties like any other). The names a route
 * knows come from its response schema, so they cannot drift from the contract. The selected answer is
 * the full answer with the other properties removed, in the full answer's order: it is cut from the
 * serialized JSON of the full answer (GET /units/{id}, answered from the search snapshot, writes only
 * the selected properties' prepared texts, in the serializer's order: the same bytes, held by
 * test/unit-detail-differential.test.ts). The ETag (a hash of the body as sent) therefore differs per
 * selection, and compression sees the smaller body.
 */

export type FieldSelection = ReadonlySet<string>;

/** The property names a selection may use: those of the route's response object schema. */
export function selectableFields(schema: TObject): readonly string[] {
  return namesOf(schema);
}

/** Each schema's names, listed once: the routes ask on every request. */
const namesOf = perObject((schema: TObject): readonly string[] => Object.freeze(Object.keys(schema.properties)));

/** The querystring parameter, described with the names it accepts and an example. */
export function fieldsParameter(schema: TObject, example: string) {
  const names = selectableFields(schema);
  return Type.Optional(
    Type.String({
      maxLength: 2000,
      examples: [example],
      description:
        `Comma-separated names of the top-level properties to return, e.g. \`${example}\`; every other property is left out (an ` +
        'addition to the specification: without `fields` the full object is returned). The properties keep their order and their full ' +
        `content. Names: ${names.map((name) => `\`${name}\``).join(', ')}. An unknown name is answered 400 listing the unknown names.`,
    }),
  );
}

/**
 * The selection asked for, or undefined when `fields` is absent (the full answer). Names are trimmed;
 * repeats are allowed. An empty list or an unknown name is a 400 naming the parameter and the names.
 *
 * A page asks with the same `fields` on every request, so each list's selections are kept by their raw
 * text (a few hundred, then started again): the split, the checks and the sets were a measurable share
 * of a lean project page's CPU (docs/performance.md, "Per-request work kept"). A refused text is not
 * kept; it is refused again.
 */
export function parseFields(raw: string | undefined, known: readonly string[], parameter = 'fields'): FieldSelection | undefined {
  if (raw === undefined) return undefined;
  const kept = parsedOf(known);
  let selection = kept.get(raw);
  if (selection) return selection;
  selection = parseNames(raw, known, parameter);
  if (kept.size >= PARSED_PER_LIST) kept.clear();
  kept.set(raw, selection);
  return selection;
}

/** Selections kept per list of known names (selectableFields' frozen lists), by raw text. */
const parsedOf = perObject((_known: readonly string[]) => new Map<string, FieldSelection>());
/** Raw texts kept per list: the pages of a site ask with a few; a client varying it freely only refills the map. */
const PARSED_PER_LIST = 256;

function parseNames(raw: string, known: readonly string[], parameter: string): FieldSelection {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new FilterError(parameter, `${parameter} must name at least one property`);
  const knownSet = new Set(known);
  const unknown = [...new Set(names.filter((name) => !knownSet.has(name)))];
  if (unknown.length > 0) {
    throw new FilterError(parameter, `${parameter} has unknown names: ${unknown.join(', ')} (known: ${known.join(', ')})`);
  }
  return new Set(names);
}

/**
 * The selection as one text, the same for every order and repeat of the same names (part of the kept
 * bodies' keys: `fields=units,name` and `fields=name,units` are one body). Made once per selection.
 */
export function selectionKey(fields: FieldSelection): string {
  return keyOf(fields);
}

const keyOf = perObject((fields: FieldSelection) => [...fields].sort().join(','));

/** The object with only the selected properties, in the object's own order. */
export function pickFields(value: Readonly<Record<string, unknown>>, fields: FieldSelection): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (fields.has(key)) picked[key] = value[key];
  return picked;
}

/** JSON text of an object, or of an array of objects, with only the selected properties of each object. */
export function selectJsonFields(json: string, fields: FieldSelection): string {
  const value = JSON.parse(json) as Record<string, unknown> | Record<string, unknown>[];
  return JSON.stringify(Array.isArray(value) ? value.map((item) => pickFields(item, fields)) : pickFields(value, fields));
}

/** A serialized success envelope `{status, data}` with only the selected properties of `data`. */
export function selectEnvelopeData(envelopeJson: string, fields: FieldSelection): string {
  const envelope = JSON.parse(envelopeJson) as { data: Record<string, unknown> };
  return JSON.stringify({ ...envelope, data: pickFields(envelope.data, fields) });
}
