import type { FastifyReply, FastifyRequest } from 'fastify';
import { extractApiKey } from '../domain/api-key.js';
import { isOriginAllowed } from '../domain/origin.js';
import type { KeyRecord } from '../queries/api-keys.js';
import { messages } from '../domain/error-catalogue.js';
import { ApiError } from './errors.js';
import type { KeyHashes } from './key-hashes.js';

/** What every authenticated route knows about its caller. */
export type AuthContext = KeyRecord;

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

export type KeyLookup = (keyHash: string) => Promise<KeyRecord | undefined>;

/*
 * The order of the checks is part of the contract: no key (401) -> unknown/revoked/deleted key (401)
 * -> domain list (403) -> agency licence (403). The author check for applications comes later, in
 * requireLiveAuthor, because only that operation needs the author.
 */
export function authenticate(lookup: KeyLookup, hashes: KeyHashes) {
  return async function onRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const headers = request.headers;
    const key = extractApiKey(single(headers.authorization), single(headers['x-api-key']));
    if (!key) throw new ApiError(401, messages.missingApiKey);
    const keyHash = hashes.of(key);
    if (keyHash === undefined) throw new ApiError(401, messages.invalidApiKey);

    const record = await lookup(keyHash);
    if (!record) throw new ApiError(401, messages.invalidApiKey);
    hashes.remember(key, keyHash);

    if (!isOriginAllowed(record.allowed_domains, single(headers.origin), single(headers.referer))) {
      throw new ApiError(403, messages.originNotAllowed);
    }
    if (record.company.licence_status !== 'approved') throw new ApiError(403, messages.licenceRequired);

    request.auth = record;
  };
}

/** Applications are authored by the key's issuer: the agency and the user must still exist. */
export function requireLiveAuthor(auth: AuthContext): void {
  if (auth.company.deleted || auth.author.deleted || !auth.author.member) throw new ApiError(401, messages.authorGone);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
