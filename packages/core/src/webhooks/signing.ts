/**
 * Standard Webhooks secrets and signatures: a secret is `whsec_` and the key
 * in base64; a signature is `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` (made by the `standardwebhooks`
 * package, so any off-the-shelf verifier accepts it).
 */
import { Webhook } from 'standardwebhooks';

/** Signs a message; `at` is the moment sent as `webhook-timestamp`. */
export interface WebhookSigner {
  sign(messageId: string, at: Date, body: string): string;
}

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The Standard Webhooks bounds of a secret's key, bytes. */
export const WEBHOOK_SECRET_MIN_BYTES = 24;
export const WEBHOOK_SECRET_MAX_BYTES = 64;

/**
 * The key bytes of a `whsec_` secret, or `undefined` when `value` is not
 * one: not a string, not `whsec_` and base64, or a key outside
 * `minBytes`..`maxBytes` (default 24..64, as Standard Webhooks asks).
 */
export function webhookSecretKey(
  value: unknown,
  minBytes = WEBHOOK_SECRET_MIN_BYTES,
  maxBytes = WEBHOOK_SECRET_MAX_BYTES,
): Buffer | undefined {
  const encoded = typeof value === 'string' ? WHSEC.exec(value)?.[1] : undefined;
  if (encoded === undefined) return undefined;
  const key = Buffer.from(encoded, 'base64');
  // Base64 that does not round-trip is not what the sender meant.
  if (key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return undefined;
  return key.length >= minBytes && key.length <= maxBytes ? key : undefined;
}

/** A signer for a `whsec_` secret; throws when the secret is not one (check it first with {@link webhookSecretKey}). */
export function webhookSigner(secret: string): WebhookSigner {
  const webhook = new Webhook(secret);
  return { sign: (messageId, at, body) => webhook.sign(messageId, at, body) };
}
