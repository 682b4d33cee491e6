import type { ApplicationResult } from './types.js';

/*
 * POST /units/{id}/applications answers in one of two forms, chosen by the API key: the full answer
 * (the client record, ids, stage, advisor) or, for a key with private applications, only what the
 * request sent and what the unit derived. The full form is the one with a client id.
 */
export type FullApplicationResult = Extract<ApplicationResult, { client: { id: number } }>;
export type PrivateApplicationResult = Exclude<ApplicationResult, FullApplicationResult>;

/** True for the full answer (a key without private applications). */
export function isFullApplicationResult(result: ApplicationResult): result is FullApplicationResult {
  return 'id' in result.client;
}
