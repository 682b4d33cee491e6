/*
 * Replacing the value of one property of serialized JSON by JSON text prepared elsewhere, without
 * parsing either. The property `key` is serialized from a placeholder value and its text is then
 * replaced by the raw text (the routes send the result: src/bodies/raw-json.ts; the search snapshot keeps
 * its list items in two halves around `price_from`).
 *
 * The replacement is unambiguous: in serialized JSON a `"` inside a string is escaped, so the
 * unescaped sequence `"key":<placeholder>` can only be the property itself. It is still checked to
 * occur exactly once, so a schema change that renames or nests the property fails loudly, not silently.
 */

export class RawJsonError extends Error {}

export function spliceRawProperty<P = string>(serialized: string, key: string, placeholder: unknown, rawParts: readonly P[]): (string | P)[] {
  const marker = `${JSON.stringify(key)}:${JSON.stringify(placeholder)}`;
  const at = serialized.indexOf(marker);
  if (at < 0 || serialized.indexOf(marker, at + marker.length) >= 0) {
    throw new RawJsonError(`expected the property ${key} exactly once in the serialized response`);
  }
  const valueAt = at + JSON.stringify(key).length + 1;
  return [serialized.slice(0, valueAt), ...rawParts, serialized.slice(at + marker.length)];
}

/**
 * Serialized JSON of an object with one more property, `key`, whose value is the raw JSON text `raw`,
 * after the others (the object's schema declares it last): `{"a":1}` -> `{"a":1,"key":raw}`.
 */
export function appendRawProperty(serializedObject: string, key: string, raw: string): string {
  if (!serializedObject.endsWith('}')) throw new RawJsonError(`expected a serialized object to add ${key} to`);
  const empty = serializedObject === '{}';
  return `${serializedObject.slice(0, -1)}${empty ? '' : ','}${JSON.stringify(key)}:${raw}}`;
}
