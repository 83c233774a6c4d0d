/**
 * Sends one approval webhook message to one endpoint through the core's
 * Standard Webhooks deliverer (`@ext/core/webhooks`: signed, retried on a
 * network error, a timeout, a 5xx or a 429 under one `webhook-id`, never
 * redirected), failing with a structured error naming the endpoint by its
 * origin only.
 */
import { ExtensionError } from '@ext/core';
import { sendWebhook, type WebhookDeliveryConfig } from '@ext/core/webhooks';
import type { ResolvedEndpoint } from './options.js';

/** What a delivery needs beside the endpoint and the body. */
export type DeliveryConfig = Pick<WebhookDeliveryConfig, 'fetch' | 'timeoutMs' | 'attempts' | 'now'>;

/**
 * Delivers `body` to `endpoint` under one message id; resolves once the
 * endpoint answered 2xx, throws `ExtensionError('WEBHOOK_DELIVERY_FAILED')`
 * (naming the endpoint by its origin only) when it never did.
 */
export async function deliver(endpoint: ResolvedEndpoint, body: string, config: DeliveryConfig): Promise<void> {
  const outcome = await sendWebhook(endpoint, body, config);
  if (outcome.delivered) return;
  throw new ExtensionError(
    'transient',
    'WEBHOOK_DELIVERY_FAILED',
    `Approval webhook to ${endpoint.origin} failed after ${String(outcome.attempts)} attempt(s): ${outcome.reason}`,
    {
      details: {
        endpoint: endpoint.origin,
        webhook_id: outcome.messageId,
        attempts: outcome.attempts,
        status: outcome.status,
      },
    },
  );
}
