import { defineConfig } from 'vitest/config';
import { sdkSourceResolve } from './vitest.shared.js';

// `npm run test:e2e`: the example site in headless Chromium, apart from `npm test` (it needs a browser).
export default defineConfig({
  ...sdkSourceResolve,
  test: {
    include: ['test-e2e/**/*.e2e.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
