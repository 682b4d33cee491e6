import { randomBytes } from 'node:crypto';

/*
 * JSON.stringify that takes the JSON text of some objects as it was prepared elsewhere. A search's page
 * of items is the REST answer's prepared JSON text, parsed for the tool's structured content
 * (catalogue.ts); serializing those objects again for every MCP answer was the largest cost an MCP
 * search had over the REST one (docs/performance.md, "MCP: one server, prepared item JSON"). Node 20
 * has no JSON.rawJSON, so a prepared value is written as a placeholder string and its text put in
 * place of that string afterwards. The
 * placeholder carries a random nonce made at start: no string of a request or of the catalogue can
 * be mistaken for it.
 *
 * A prepared object must not change after it is registered (its text would no longer be its JSON):
 * pages of a kept search result never do.
 */

const preparedText = new WeakMap<object, string>();
const MARK = `\u0000prepared-json-${randomBytes(8).toString('hex')}-`;
const QUOTED_MARK = JSON.stringify(MARK).slice(0, -1);

/** Registers `json` as the JSON text of `value` (which JSON.stringify would write equivalently). */
export function withPreparedJson<T extends object>(value: T, json: string): T {
  preparedText.set(value, json);
  return value;
}

/** JSON.stringify(value), with the registered text for registered objects. */
export function stringifyPrepared(value: unknown): string {
  const texts: string[] = [];
  const json = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'object' || item === null) return item;
    const text = preparedText.get(item);
    if (text === undefined) return item;
    texts.push(text);
    return `${MARK}${texts.length - 1}`;
  });
  if (texts.length === 0) return json;
  let out = '';
  let from = 0;
  for (let index = 0; index < texts.length; index++) {
    const placeholder = `${QUOTED_MARK}${index}"`;
    const at = json.indexOf(placeholder, from);
    out += json.slice(from, at) + texts[index];
    from = at + placeholder.length;
  }
  return out + json.slice(from);
}
