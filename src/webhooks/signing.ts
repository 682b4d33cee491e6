import { Webhook } from 'standardwebhooks';

/*
 * Signatures as Standard Webhooks defines them (standardwebhooks.com), made by its reference library:
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with
 * the secret's bytes, secrets written `whsec_<base64>`. During a rotation the header carries one
 * signature per secret, space-separated; a receiver accepts the message when any of them verifies,
 * so it can switch to the new secret at any time within the 24 h.
 */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers of one attempt, signed with every secret in `secrets` (the current one first). */
export function signMessage(messageId: string, body: string, secrets: string[], at: Date = new Date()): SignedHeaders {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
