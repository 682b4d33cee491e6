import { randomBytes, randomUUID } from 'node:crypto';

/*
 * The secrets and message ids of Standard Webhooks (standardwebhooks.com): secrets written
 * `whsec_<base64>`, message ids unique and opaque. Below the queries that store them and the worker
 * that signs with them (src/webhooks/signing.ts).
 */
const SECRET_BYTES = 32;

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function newSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** A message id (`webhook-id`): unique, opaque, the same on every attempt of one message. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}
