import { openApiDocument } from '@catalogue-api/sdk';

/*
 * Optional search features, read from the OpenAPI document the SDK was generated from: a control is
 * shown only when GET /projects declares its parameter, so regenerating the SDK against a service
 * that gained `sort`, `facets` or an area filter turns the control on without touching the pages.
 */
export interface SearchCapabilities {
  /** Values of `sort` (the enum, or the values quoted in its description), when declared. */
  sort: string[] | undefined;
  /** Facet names `facets` accepts, when declared. */
  facets: string[] | undefined;
  /** Name of the area filter parameter (`area_ids`), when declared. */
  areaParameter: string | undefined;
}

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema?: { enum?: unknown[]; items?: { enum?: unknown[] }; anyOf?: Array<{ const?: unknown; enum?: unknown[] }> };
}

/** The values a parameter's schema allows: `enum`, `items.enum`, or a union of constants. */
function allowedValues(parameter: Parameter | undefined, excluded: string[] = []): string[] | undefined {
  if (!parameter) return undefined;
  const schema = parameter.schema ?? {};
  const values = schema.enum ?? schema.items?.enum ?? schema.anyOf?.flatMap((member) => member.enum ?? (member.const === undefined ? [] : [member.const]));
  if (values && values.length > 0) return values.map(String);
  // A comma-separated list has no enum; its description quotes the names in back-ticks.
  const quoted = [...(parameter.description ?? '').matchAll(/`(-?[a-z_]+)`/g)].map((match) => match[1]).filter((name) => !excluded.includes(name));
  return quoted.length > 0 ? [...new Set(quoted)] : [];
}

export function searchCapabilities(document: { paths?: Record<string, any> } = openApiDocument): SearchCapabilities {
  const parameters: Parameter[] = document.paths?.['/projects']?.get?.parameters ?? [];
  const query = (name: string) => parameters.find((parameter) => parameter.in === 'query' && parameter.name === name);
  return {
    // A sort description may quote other parameters ("`distance`, only with `lat`/`lng`"); facet
    // names, on the other hand, are often filter names (`bedrooms`).
    sort: allowedValues(query('sort'), parameters.map((parameter) => parameter.name)),
    // Its description also quotes `facets` itself (the response field).
    facets: allowedValues(query('facets'), ['facets']),
    areaParameter: query('area_ids') ? 'area_ids' : undefined,
  };
}
