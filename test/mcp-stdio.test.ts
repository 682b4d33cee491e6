import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../src/demo/demo-bundle.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { listen } from './helpers/mcp.js';
import { catalogueBundle } from './helpers/project-scenarios.js';

/*
 * `catalogue mcp` as a desktop assistant runs it: a child process spoken to over stdio by the SDK's
 * stdio client, passing everything to a running service (a real listener) with the key.
 */

const CLI = ['--import', 'tsx', 'src/cli/main.ts', 'mcp'];

describe('catalogue mcp (stdio) against a running service', () => {
  let t: TestApp;
  let baseUrl: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp('pglite', catalogueBundle());
    baseUrl = await listen(t.app);
    key = await t.key({ companyId: DEMO_AGENCY_ID, authorId: DEMO_AUTHOR_ID, priceVector: 7.5 });
  }, 300_000);
  afterAll(() => t?.close());

  it('serves the service\u2019s tools and answers, with the key\u2019s prices', async () => {
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, '--base-url', baseUrl],
      env: { ...process.env, CATALOGUE_API_KEY: key } as Record<string, string>,
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'catalogue-api' });
      expect(client.getInstructions()).toMatch(/submit_application/);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('search_projects');
      const result = (await client.callTool({ name: 'search_projects', arguments: { bedrooms: '2', limit: 3 } })) as CallToolResult;
      const viaRest = await (await fetch(new URL('/projects?bedrooms=2&limit=3', baseUrl), { headers: { 'x-api-key': key } })).json();
      expect(result.structuredContent).toEqual((viaRest as { data: unknown }).data);
      const missing = (await client.callTool({ name: 'get_project', arguments: { project_id: 999999 } })) as CallToolResult;
      expect(missing.isError).toBe(true);
      expect(missing.content).toEqual([{ type: 'text', text: 'project not found' }]);
      const { resources } = await client.listResources();
      expect(resources.length).toBe(7);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a wrong key stops the start with the API\u2019s message on stderr, nothing on stdout', async () => {
    const child = spawn(process.execPath, [...CLI, '--base-url', baseUrl, '--key', 'ck_wrong'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: mcp: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: .*invalid api key/);
  }, 60_000);
});
