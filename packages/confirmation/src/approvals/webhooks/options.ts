/**
 * The options of `approvalWebhooks`, checked once when it is called: each
 * bad option throws `ConfigurationError('INVALID_OPTION')` naming it.
 */
import { ConfigurationError, type Store } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import { webhookSigner, type WebhookSigner } from '@ext/core/webhooks';
import type { ApprovalDesk } from '../desk.js';

/** Where webhooks go, and the secret their signature is made with. */
export interface WebhookEndpoint {
  /** The receiver's http(s) URL. */
  readonly url: string;
  /** The endpoint's Standard Webhooks secret: `whsec_` and at least 24 bytes in base64. */
  readonly secret: string;
  /** The body: Standard Webhooks JSON (`standard`, the default) or a Slack message (`slack`). */
  readonly format?: 'standard' | 'slack' | undefined;
}

export interface ApprovalWebhooksOptions {
  /** Where each request and decision is sent, each signed with its own secret. */
  readonly endpoints: readonly WebhookEndpoint[];
  /** Public base URL the decision links point at, e.g. `https://gw.example/approvals/links`. */
  readonly linkBaseUrl: string;
  /** Secret (at least 32 bytes) that signs decision links (HMAC-SHA256). */
  readonly linkSecret: string;
  /** Link lifetime, seconds; never beyond the request's own expiry. Default 900. */
  readonly linkTtlSeconds?: number | undefined;
  /** Where used links are remembered (single use, across instances): the desk's store. */
  readonly store: Store;
  /**
   * The desk links decide on (or a function returning it, as the desk is
   * created after its backends). Default: the desk that last notified the
   * backend on this instance; set it when links may reach an instance
   * before any request was made there.
   */
  readonly desk?: ApprovalDesk | (() => ApprovalDesk) | undefined;
  /** Namespace of the store keys; the desk's `keyPrefix`. Default `"confirmation"`. */
  readonly keyPrefix?: string | undefined;
  /** The fetch deliveries go through. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch | undefined;
  /** Time allowed to one delivery attempt, milliseconds. Default 5000. */
  readonly timeoutMs?: number | undefined;
  /** Delivery attempts per message, with exponential backoff and jitter between them. Default 3. */
  readonly attempts?: number | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** An endpoint with its signer. */
export interface ResolvedEndpoint {
  readonly url: string;
  /** The URL's origin, for messages: an endpoint's path may hold a secret (Slack's do). */
  readonly origin: string;
  readonly format: 'standard' | 'slack';
  readonly signer: WebhookSigner;
}

/** The options, checked and with defaults: the endpoints with their signers, the link base split, its key. */
export type WebhooksConfig = Resolved<
  Omit<ApprovalWebhooksOptions, 'endpoints' | 'linkBaseUrl' | 'linkSecret' | 'desk'>
> & {
  readonly endpoints: readonly ResolvedEndpoint[];
  /** `linkBaseUrl` without a trailing slash: a link is this, `/`, and the token. */
  readonly linkPrefix: string;
  /** The pathname of `linkBaseUrl` without a trailing slash (`""` at the root). */
  readonly linkPath: string;
  readonly linkKey: Uint8Array;
  readonly desk: (() => ApprovalDesk) | undefined;
};

export const FACTORY = 'approvalWebhooks';
const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
/** Shortest endpoint secret, bytes (the Standard Webhooks spec asks for 24 to 64). */
const MIN_ENDPOINT_SECRET_BYTES = 24;
const MIN_LINK_SECRET_BYTES = 32;

function invalid(option: string, rule: string): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `${FACTORY}: ${option} ${rule}`);
}

function httpUrl(value: unknown, option: string): URL {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalid(option, 'must be an http(s) URL');
  }
  return url;
}

function resolveEndpoint(endpoint: WebhookEndpoint, index: number): ResolvedEndpoint {
  const name = `endpoints[${index}]`;
  const url = httpUrl(endpoint.url, `${name}.url`);
  const secret = WHSEC.exec(typeof endpoint.secret === 'string' ? endpoint.secret : '')?.[1];
  if (secret === undefined || Buffer.from(secret, 'base64').length < MIN_ENDPOINT_SECRET_BYTES) {
    throw invalid(`${name}.secret`, `must be "whsec_" and at least ${MIN_ENDPOINT_SECRET_BYTES} bytes in base64`);
  }
  const format: string = endpoint.format ?? 'standard';
  if (format !== 'standard' && format !== 'slack') throw invalid(`${name}.format`, 'must be "standard" or "slack"');
  return { url: url.href, origin: url.origin, format, signer: webhookSigner(endpoint.secret) };
}

function linkBaseOf(value: unknown): { readonly linkPrefix: string; readonly linkPath: string } {
  const url = httpUrl(value, 'linkBaseUrl');
  if (url.search !== '' || url.hash !== '') throw invalid('linkBaseUrl', 'must have no query or fragment');
  const linkPath = url.pathname.replace(/\/+$/, '');
  return { linkPrefix: `${url.origin}${linkPath}`, linkPath };
}

function deskOf(option: ApprovalWebhooksOptions['desk']): (() => ApprovalDesk) | undefined {
  if (option === undefined || typeof option === 'function') return option;
  if (typeof option !== 'object') throw invalid('desk', 'must be an approvalDesk or a function returning it');
  return () => option;
}

function functionOption<T>(value: T, option: string): T {
  if (typeof value !== 'function') throw invalid(option, 'must be a function');
  return value;
}

/** The options checked, with their defaults; throws `ConfigurationError` naming the first bad one. */
export function resolveWebhooksOptions(options: ApprovalWebhooksOptions): WebhooksConfig {
  const {
    endpoints,
    linkBaseUrl,
    linkSecret,
    linkTtlSeconds = 900,
    store,
    desk,
    keyPrefix = 'confirmation',
    fetch: deliver = globalThis.fetch,
    timeoutMs = 5000,
    attempts = 3,
    now = Date.now,
  } = options;
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw invalid('endpoints', 'must be a non-empty array of { url, secret }');
  }
  if (typeof linkSecret !== 'string' || Buffer.byteLength(linkSecret) < MIN_LINK_SECRET_BYTES) {
    throw invalid('linkSecret', `must be a string of at least ${MIN_LINK_SECRET_BYTES} bytes`);
  }
  if (typeof store !== 'object' || typeof store.setIfAbsent !== 'function') {
    throw invalid('store', "is required (the desk's store)");
  }
  if (typeof keyPrefix !== 'string' || keyPrefix === '') throw invalid('keyPrefix', 'must be a non-empty string');
  return {
    endpoints: endpoints.map(resolveEndpoint),
    ...linkBaseOf(linkBaseUrl),
    linkKey: Buffer.from(linkSecret),
    linkTtlSeconds: positiveIntegerOption(FACTORY, 'linkTtlSeconds', linkTtlSeconds),
    store,
    desk: deskOf(desk),
    keyPrefix,
    fetch: functionOption(deliver, 'fetch'),
    timeoutMs: positiveIntegerOption(FACTORY, 'timeoutMs', timeoutMs),
    attempts: positiveIntegerOption(FACTORY, 'attempts', attempts),
    now: functionOption(now, 'now'),
  };
}
