/*
 * The import rules of src/, checked by `npm test` (`npm run check:imports`, dependency-cruiser).
 * Type-only imports count (tsPreCompilationDeps): a circle of types is still a circle to read through.
 * Layers, lowest first: lib (generic helpers) < domain (pure rules) < contract (schemas, presenters, links) < db, queries,
 * search, import < http (routes, plugins, reply plumbing) < server, cli.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle anywhere in src, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'http-is-on-top',
      comment: 'Only the app, the CLI and the server look at src/http/; everything else sits below it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(http/|server\\.ts$|cli/)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'contract-below-data',
      comment: 'The API contract (schemas, presenters, links, the JSON splice) is used by search and queries, never the reverse.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/(search|queries|import|db|changes|management|demo|cli)/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'Pure rules import nothing of the service but other rules and the generic helpers of src/lib.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain|lib)/' },
    },
    {
      name: 'lib-is-a-leaf',
      comment: 'Generic helpers (src/lib) know nothing of the service: they import nothing of src but each other.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'mcp-sdk-on-demand',
      comment:
        'The MCP SDK is loaded on the first POST /mcp (src/http/mcp/engine.ts) or by the CLI\'s stdio proxy, never at start-up: only the modules behind that door import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/mcp/(engine|server|streamable-http|request-transport|stdio-proxy)\\.ts$' },
      to: { path: '(^|/)@modelcontextprotocol/sdk/' },
    },
    {
      name: 'mcp-engine-behind-a-dynamic-import',
      comment: 'The modules that load the MCP SDK are reached from outside only by import() or for their types.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/mcp/(engine|server|streamable-http|request-transport|stdio-proxy)\\.ts$' },
      to: { path: '^src/http/mcp/(engine|server|streamable-http|request-transport|stdio-proxy)\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'redis-client-on-demand',
      comment: 'ioredis is loaded only when REDIS_URL asks for it, by import() in src/http/rate-limit-store.ts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '(^|/)ioredis(/|$)', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'redis-client-in-one-place',
      comment: 'Only the rate limit store loads ioredis.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/rate-limit-store\\.ts$' },
      to: { path: '(^|/)ioredis(/|$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
