import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../domain/api-key.js';
import { isValidPriceVector } from '../domain/pricing.js';
import { domainProblem, normaliseDomain } from '../domain/origin.js';
import { assertKeyOwner, insertKey, KeyAdminError, type KeyListing, type NewKey } from './api-keys.js';

/*
 * Issuing keys: the secret is generated here, returned once, and only its SHA-256 is stored.
 */
export async function createApiKey(db: Kysely<DB>, input: NewKey): Promise<{ secret: string; key: KeyListing }> {
  validateKeyFields(input);
  await assertKeyOwner(db, input.companyId, input.authorId);
  const secret = generateApiKey();
  const key = await insertKey(db, { ...input, domains: input.domains ?? null, keyHash: hashApiKey(secret), keyPrefix: displayPrefix(secret) });
  return { secret, key };
}

export function validateKeyFields(input: { name?: string; priceVector?: number; domains?: string[] | null }): void {
  if (input.name !== undefined && !input.name.trim()) throw new KeyAdminError('name must not be empty');
  if (input.priceVector !== undefined && !isValidPriceVector(input.priceVector)) {
    throw new KeyAdminError('price vector must be a number greater than -100 and at most 100');
  }
  for (const domain of input.domains ?? []) {
    const problem = domainProblem(domain);
    if (problem) throw new KeyAdminError(problem);
  }
}

/** `a.com, b.com` -> ['a.com', 'b.com']; an empty string clears the list. */
export function parseDomainList(value: string): string[] | null {
  const domains = value.split(',').map(normaliseDomain).filter(Boolean);
  return domains.length ? [...new Set(domains)] : null;
}
