/**
 * The draft's webhook `delivery` checked at subscribe time: the callback
 * URL is hostile input (a caller names where the server will post), the
 * secret must be a Standard Webhooks secret.
 */
import { nonPublicReason, webhookSecretKey } from '@ext/core/webhooks';
import type { RequestFailure } from './requests.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';

function refused(field: 'url' | 'secret', message: string): RequestFailure {
  return { code: 'INVALID_INPUT', field: `delivery.${field}`, pointer: `/delivery/${field}`, message };
}

/** Why `raw` may not be posted to, or `undefined` when it may; the host is resolved unless private addresses are allowed. */
export async function checkCallbackUrl(
  raw: string,
  options: ResolvedWebhookOptions,
): Promise<RequestFailure | undefined> {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined) return refused('url', 'Invalid delivery.url: must be an absolute https URL');
  const schemes = options.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return refused('url', `Invalid delivery.url: the scheme must be ${options.allowHttp ? 'https or http' : 'https'}`);
  }
  if (url.username !== '' || url.password !== '') {
    return refused(
      'url',
      'Invalid delivery.url: credentials in the URL are not accepted (the secret signs deliveries)',
    );
  }
  if (url.hash !== '') return refused('url', 'Invalid delivery.url: a fragment is not accepted');
  if (!options.allowPrivateAddresses) {
    const reason = await nonPublicReason(url);
    if (reason !== undefined) return refused('url', `Invalid delivery.url: ${reason}`);
  }
  return undefined;
}

/** Why `secret` is not a Standard Webhooks secret, or `undefined` when it is one. */
export function checkSecret(secret: string): RequestFailure | undefined {
  return webhookSecretKey(secret) === undefined
    ? refused('secret', 'Invalid delivery.secret: must be "whsec_" and base64 of 24 to 64 random bytes')
    : undefined;
}
