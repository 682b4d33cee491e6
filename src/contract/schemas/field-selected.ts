import { Type, type TObject, type TRefUnsafe, type TUnion } from '@sinclair/typebox';

/*
 * How the contract describes an object a route answers either whole or, with `fields=` (field-selection.ts),
 * cut down to the properties named. Two named schemas (components of the OpenAPI document):
 * - `<Name>`: the object whole, every specified property required, as answered without `fields`;
 * - `<Name>Selection`: the same properties, none required, as answered with `fields` (each property kept
 *   has its full content, so only the top level loses `required`).
 * The route's payload is `anyOf` the two, so a validator accepts every answer the service gives, and a
 * generated client keeps a type for the whole object to use when it sends no `fields`.
 *
 * The route only documents these schemas: the bodies are written by the serializers of the whole object
 * (project-detail-body.ts, unit-detail-body.ts, the search snapshot's items), so nothing is serialized
 * through the `anyOf`.
 */
export interface FieldSelectable<T extends TObject> {
  /** The whole object, named. */
  full: T;
  /** The same properties, none required. */
  selection: TObject;
  /** The payload of the route: either of the two, by reference. */
  payload: TUnion<[TRefUnsafe<T>, TRefUnsafe<TObject>]>;
}

export function fieldSelectable<T extends TObject>(schema: T, name: string): FieldSelectable<T> {
  const full = Type.Object(schema.properties, {
    ...optionsOf(schema),
    $id: name,
    title: name,
    description: `${schema.description ?? ''} As answered without \`fields\`.`.trim(),
  }) as unknown as T;
  const selection = Type.Partial(Type.Object(schema.properties), {
    ...optionsOf(schema),
    $id: `${name}Selection`,
    title: `${name}Selection`,
    description: `${schema.description ?? ''} As answered with \`fields\`: only the properties named (each with its full content), so none is required.`.trim(),
  });
  const payload = Type.Union([Type.Ref(full), Type.Ref(selection)], {
    description: `Without \`fields\`: \`${name}\`, the whole object. With \`fields\`: \`${name}Selection\`, only the properties named.`,
  });
  return { full, selection, payload };
}

/** The schema's own options other than the ones fieldSelectable sets (e.g. examples). */
function optionsOf(schema: TObject): Record<string, unknown> {
  const { type: _type, properties: _properties, required: _required, description: _description, $id: _id, title: _title, ...rest } = schema as TObject & Record<string, unknown>;
  for (const key of Object.getOwnPropertySymbols(rest)) delete (rest as Record<symbol, unknown>)[key];
  return rest;
}
