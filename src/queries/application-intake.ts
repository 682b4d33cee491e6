import type { Database } from '../db/database.js';
import { createPoolSlots, halfThePool } from '../db/pool-slots.js';
import type { ApplicationRequest } from '../domain/application-merge.js';
import { requestHash } from '../domain/idempotency.js';
import { submitApplication, type ApplicationKey, type ApplicationOutcome } from './applications.js';

/*
 * The one way in for applications, whoever sends them (POST /units/{id}/applications, the MCP tool
 * submit_application): one set of write slots per process, so that every application transaction,
 * whatever its door, counts against the same half of the pool (see src/db/pool-slots.ts), and one
 * idempotency hash, so that an Idempotency-Key means the same request through either door.
 */

/** How long an application may wait for a write slot before it is answered 503 (nothing written). */
export const APPLICATION_SLOT_WAIT_MS = 15_000;

export interface ApplicationSubmission {
  unitId: number;
  body: ApplicationRequest;
  key: ApplicationKey;
  idempotencyKey?: string;
}

export interface ApplicationIntake {
  submit(submission: ApplicationSubmission): Promise<ApplicationOutcome>;
}

export function createApplicationIntake(database: Database): ApplicationIntake {
  const slots = createPoolSlots('write', halfThePool(database.poolSize), APPLICATION_SLOT_WAIT_MS);
  return {
    submit: ({ unitId, body, key, idempotencyKey }) =>
      slots.run(() =>
        submitApplication(database.db, {
          unitId,
          request: body,
          key,
          idempotency:
            idempotencyKey === undefined
              ? undefined
              : {
                  key: idempotencyKey,
                  // The answer's form is part of the request: a stored full answer never replays to a private key.
                  requestHash: requestHash('POST', `/units/${unitId}/applications`, key.private_applications ? { private_applications: true, body } : body),
                },
        }),
      ),
  };
}
