/*
 * The import rules of src/, checked by `npm test` (`npm run check:imports`, dependency-cruiser).
 * Type-only imports count (tsPreCompilationDeps): a circle of types is still a circle to read through.
 * Layers, lowest first: domain (pure rules) < contract (schemas, presenters, links) < db, queries,
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
      comment: 'Pure rules import nothing of the service but other rules.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
