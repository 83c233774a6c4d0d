/**
 * The `./webhooks` entry of `@ext/core`: Standard Webhooks signing, and
 * delivery of signed messages with retries, for extensions that post to
 * endpoints their users name (approval webhooks, event subscriptions).
 */
export { webhookSigner, webhookSecretKey, WEBHOOK_SECRET_MIN_BYTES, WEBHOOK_SECRET_MAX_BYTES } from './signing.js';
export type { WebhookSigner } from './signing.js';
export { sendWebhook, newMessageId, backoffMs, isRetryableStatus } from './delivery.js';
export type { WebhookTarget, WebhookDeliveryConfig, WebhookOutcome } from './delivery.js';
export { isPublicAddress, nonPublicReason } from './addresses.js';
