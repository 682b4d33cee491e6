import { defineConfig } from 'vitest/config';
import { sdkSourceResolve } from './vitest.shared.js';

export default defineConfig({
  ...sdkSourceResolve,
  test: {
    include: ['test/**/*.test.ts'],
    // Their own clusters and servers, a minute or more: `npm run test:scale-out` (vitest.scale-out.config.ts).
    exclude: ['test/scale-out/**', '**/node_modules/**'],
    // Each file starts its own embedded database (a few seconds); two workers match the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
