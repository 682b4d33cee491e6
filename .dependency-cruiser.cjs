/*
 * The import rules of src/, checked by `npm test` (`npm run check:imports`, dependency-cruiser;
 * test/import-rules.test.ts shows each rule failing on a broken tree).
 * Type-only imports count (tsPreCompilationDeps): a circle of types is still a circle to read through.
 *
 * Every module lives in a folder of src/, and every folder sits in one layer of LAYERS, lowest first.
 * A module imports from its own layer or lower ones, never from a higher layer, and no two folders
 * import each other, even through others (the folder-level cycle check), so a loop cannot come back
 * one floor lower than the module-level check looks.
 */

/** The layers of src/, lowest first; each entry names the folders (directly under src/) of one layer. */
const LAYERS = [
  ['lib'], // generic helpers, nothing of the service
  ['domain'], // pure rules
  ['config', 'metrics'], // the environment read once; the metric instruments (a leaf everyone records into)
  ['contract'], // schemas, presenters, links: the API's shapes
  ['db', 'management'], // the database and its drivers; the management socket
  ['changes'], // change kinds and the change signal
  ['queries', 'bodies'], // SQL reads and writes; sending prepared and large bodies
  ['import', 'text', 'search', 'webhooks'], // the bundle import; text normalising; the in-memory search; webhook delivery
  ['statistics', 'alerts', 'usage'], // market statistics over search; saved searches; per-key usage
  ['details'], // the detail read model: caches and prepared bodies of project and unit details
  ['http'], // routes, plugins, reply plumbing, the OpenAPI document, the MCP door
  ['service'], // the composition root, the server process and what watches it
  ['demo'], // the demo catalogue
  ['cli'], // the command line
];

const ALL = LAYERS.flat();
const folders = (names) => `^src/(${names.join('|')})/`;

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.join('-')}`,
  comment: `${layer.join(', ')} may not import a higher layer (${LAYERS.slice(index + 1).flat().join(', ')}).`,
  severity: 'error',
  from: { path: folders(layer) },
  to: { path: folders(LAYERS.slice(index + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'every-module-in-a-layer',
      comment: `Every module of src/ sits in a folder of a layer (${ALL.join(', ')}); a module anywhere else has no place in the order.`,
      severity: 'error',
      from: { path: '^src/', pathNot: folders(ALL) },
      to: {},
    },
    {
      name: 'every-module-in-a-layer',
      comment: `Every module of src/ sits in a folder of a layer (${ALL.join(', ')}); nothing imports a module outside them.`,
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: folders(ALL) },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No two folders of src import each other, directly or through others (folders of one layer included).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular',
      comment: 'No import circle anywhere in src, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
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
