import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../openapi/document.js';
import { PROMPTS } from './prompts.js';
import { REFERENCE_LIST_NAMES } from './reference-lists.js';
import { TOOLS } from './tools.js';

/*
 * GET /llms.txt (llmstxt.org): what an AI agent or its developer needs to use this API, in a few
 * lines of Markdown with links; no key needed. The tool and prompt lines come from their definitions.
 * Links are absolute under PUBLIC_BASE_URL, relative to this server otherwise.
 */
export function llmsTxt(publicBaseUrl: string | undefined): string {
  const url = (path: string) => `${publicBaseUrl ?? ''}${path}`;
  return `# Catalogue API

> Partner API for UAE real estate (API ${API_VERSION}): an agency's catalogue of off-plan and ready projects, units,
> developers, areas and nearby facilities, every price in the agency's own prices, and applications
> filed into the agency's CRM. Every call needs the agency's API key: \`X-API-Key: ck_…\` or
> \`Authorization: Bearer ck_…\`. What a key sees (developers under contract) and its prices differ per key.

## MCP (for AI assistants)

- [MCP endpoint](${url('/mcp')}): Model Context Protocol over Streamable HTTP, \`POST\` only, stateless (no session), same key headers as the REST API. Errors of the key (401, 403) and of the rate limit (429) keep their HTTP status, with the API's message in a JSON-RPC error.
- Stdio for desktop assistants: \`catalogue mcp --base-url ${publicBaseUrl ?? 'https://api.example.com'} --key ck_…\` (or \`CATALOGUE_API_KEY\`) passes everything to the endpoint above.
${TOOLS.map((tool) => `- Tool \`${tool.name}\`: ${tool.title}.${tool.annotations.readOnlyHint ? '' : ' Writes: confirm with the user first; requires an idempotency_key.'}`).join('\n')}
- Resources: ${REFERENCE_LIST_NAMES.map((list) => `\`catalogue://reference/${list}\``).join(', ')}.
- Prompts: ${PROMPTS.map((prompt) => `\`${prompt.name}\``).join(', ')}.

## REST API

- [OpenAPI 3.1 (JSON)](${url('/openapi.json')}) and [YAML](${url('/openapi.yaml')}): every route, parameter, message and example.
- [Reference site](${url('/docs')})
- \`GET /projects\`: search with filters, sort, facets and paging; \`GET /projects/{id}\`, \`/projects/{id}/contacts\`, \`/units/{id}\`: details.
- \`GET /areas\`, \`/preferences\` (unit tags), \`/project-preferences\` (features, amenities), \`/companies\` (developers): the ids filters take.
- \`POST /units/{id}/applications\` with \`Idempotency-Key\`: an end client's application into the agency's CRM.
- Envelope: \`{"status":"success","data":…}\` or \`{"status":"error","message":…}\`; a 400 message names the parameter.

## Optional

- [Health](${url('/health')}): service and database state, no key.
`;
}

export async function llmsTxtRoute(app: FastifyInstance, publicBaseUrl: string | undefined): Promise<void> {
  const text = llmsTxt(publicBaseUrl);
  app.get('/llms.txt', { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/markdown; charset=utf-8').header('cache-control', 'public, max-age=3600').send(text);
  });
}
