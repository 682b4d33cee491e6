import { defineConfig } from 'vitest/config';
import { sdkSourceResolve } from './vitest.shared.js';

/*
 * `npm run test:scale-out`: the service on a throwaway PostgreSQL primary with a streaming replica,
 * several API servers and Redis (test/scale-out). Apart from `npm test`, which stays quick: starting
 * the clusters alone takes about 10 s. One file at a time: each starts its own clusters.
 */
export default defineConfig({
  ...sdkSourceResolve,
  test: {
    include: ['test/scale-out/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
