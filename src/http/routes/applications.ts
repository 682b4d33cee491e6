import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app.js';

// Not built yet: see the open issue for this part of the API.
export const applicationRoutes: FastifyPluginAsyncTypebox<AppDeps> = async () => {};
