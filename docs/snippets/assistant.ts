import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Step 7: what an assistant does with the MCP endpoint: discover the tools, map a name to an id, search. */
export async function assistantSearch(baseUrl: string, apiKey: string, areaName: string) {
  const client = new Client({ name: 'my-agency-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { 'X-API-Key': apiKey } } }));
  try {
    const { tools } = await client.listTools();
    console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

    // Names to ids first: a model should never guess an id.
    const areas = (await client.callTool({ name: 'list_reference', arguments: { list: 'areas' } })) as CallToolResult;
    const items = (areas.structuredContent as { items: { id: number; name: string }[] }).items;
    const area = items.find((item) => item.name === areaName);

    const found = (await client.callTool({
      name: 'search_projects',
      arguments: { bedrooms: '2', sort: 'price_from', facets: 'area', limit: 5 },
    })) as CallToolResult;
    if (found.isError) throw new Error(`search failed: ${JSON.stringify(found.content)}`);
    // The text is what a model reads; structuredContent is GET /projects' data, in the key's prices.
    const [text] = found.content;
    console.log(text.type === 'text' ? text.text : '');
    const page = found.structuredContent as { total: number; facets: { area: { value: number; count: number }[] } };
    return { tools: tools.map((tool) => tool.name), areaId: area?.id, page };
  } finally {
    await client.close();
  }
}
