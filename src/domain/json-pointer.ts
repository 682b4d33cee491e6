/*
 * How an error names the field it is about: a JSON pointer from the schema validator (ajv) as the
 * path a client writes, `/client/first_name` -> `client.first_name`, `/units/12/status` ->
 * `units[12].status`. One rule for the API's 400s (src/http/validation.ts) and the importer's
 * refusals (src/import/validate-bundle.ts), so both name fields the same way.
 */
export function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}
