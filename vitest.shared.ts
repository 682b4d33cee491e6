import { defaultServerConditions } from 'vite';

/*
 * Shared by every vitest config: in this repository `@catalogue-api/sdk` resolves to its TypeScript
 * sources through the `catalogue-source` export condition (sdk/package.json), as tsx --conditions and
 * tsconfig's customConditions do, so the tests never need a built SDK.
 */
export const sdkSourceResolve = {
  ssr: { resolve: { conditions: ['catalogue-source', ...defaultServerConditions] } },
};
