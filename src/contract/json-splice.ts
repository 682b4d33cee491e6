/*
 * Replacing the value of one property of serialized JSON by JSON text prepared elsewhere, without
 * parsing either. The property `key` is serialized from a placeholder value and its text is then
 * replaced by the raw text (the routes send the result: src/http/raw-json.ts; the search snapshot keeps
 * its list items in two halves around `price_from`).
 *
 * The replacement is unambiguous: in serialized JSON a `"` inside a string is escaped, so the
 * unescaped sequence `"key":<placeholder>` can only be the property itself. It is still checked to
 * occur exactly once, so a schema change that renames or nests the property fails loudly, not silently.
 */

export class RawJsonError extends Error {}

export function spliceRawProperty(serialized: string, key: string, placeholder: unknown, rawParts: readonly string[]): string[] {
  const marker = `${JSON.stringify(key)}:${JSON.stringify(placeholder)}`;
  const at = serialized.indexOf(marker);
  if (at < 0 || serialized.indexOf(marker, at + marker.length) >= 0) {
    throw new RawJsonError(`expected the property ${key} exactly once in the serialized response`);
  }
  const valueAt = at + JSON.stringify(key).length + 1;
  return [serialized.slice(0, valueAt), ...rawParts, serialized.slice(at + marker.length)];
}
