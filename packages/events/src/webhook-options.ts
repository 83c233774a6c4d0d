/**
 * The `webhooks` option of `eventsServer`: whether the official Events
 * draft's webhook delivery (`events/subscribe`) is offered, and how
 * deliveries are made. Checked once; a bad value throws
 * `ConfigurationError('INVALID_OPTION')` naming it.
 */
import { ConfigurationError } from '@ext/core';
import { positiveIntegerOption } from '@ext/core/kit';

export interface EventWebhookOptions {
  /**
   * Accept `http:` callback URLs. Default `false`: the draft requires
   * `https:`, since the payloads and the secret would otherwise travel in
   * clear. For tests and private deployments.
   */
  readonly allowHttp?: boolean | undefined;
  /**
   * Accept callback URLs whose host is or resolves to a loopback, private,
   * link-local or other non-public address. Default `false`: callers name
   * the URL, and must not make the server post into its own network.
   */
  readonly allowPrivateAddresses?: boolean | undefined;
  /** Delivery attempts per event, the first included. Default 5. */
  readonly attempts?: number | undefined;
  /** Time allowed to one attempt, milliseconds. Default 5000. */
  readonly timeoutMs?: number | undefined;
  /** First backoff between attempts, milliseconds, doubled per attempt (with jitter) up to 10 s. Default 500. */
  readonly backoffMs?: number | undefined;
  /** Shortest subscription lifetime granted, seconds (shorter suggestions are raised to it). Default 60. */
  readonly minTtlSeconds?: number | undefined;
  /** Dead-letter records kept (oldest dropped first). Default 10000. */
  readonly retainDeadLetters?: number | undefined;
  /** The fetch deliveries go through. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch | undefined;
}

export interface ResolvedWebhookOptions {
  readonly allowHttp: boolean;
  readonly allowPrivateAddresses: boolean;
  readonly attempts: number;
  readonly timeoutMs: number;
  readonly backoffMs: number;
  readonly minTtlSeconds: number;
  readonly retainDeadLetters: number;
  readonly fetch: typeof fetch;
}

function flag(where: string, name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new ConfigurationError('INVALID_OPTION', `${where}: ${name} must be a boolean`);
  return value;
}

/** The webhook options with their defaults, or `undefined` when webhooks are not offered. */
export function resolveWebhookOptions(
  where: string,
  options: EventWebhookOptions | undefined,
): ResolvedWebhookOptions | undefined {
  if (options === undefined) return undefined;
  // Typed callers cannot pass anything else; JavaScript ones can.
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError('INVALID_OPTION', `${where}: webhooks must be an object`);
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${where}: webhooks.fetch must be a function`);
  }
  return {
    allowHttp: flag(where, 'webhooks.allowHttp', options.allowHttp),
    allowPrivateAddresses: flag(where, 'webhooks.allowPrivateAddresses', options.allowPrivateAddresses),
    attempts: positiveIntegerOption(where, 'webhooks.attempts', options.attempts, 5),
    timeoutMs: positiveIntegerOption(where, 'webhooks.timeoutMs', options.timeoutMs, 5000),
    backoffMs: positiveIntegerOption(where, 'webhooks.backoffMs', options.backoffMs, 500),
    minTtlSeconds: positiveIntegerOption(where, 'webhooks.minTtlSeconds', options.minTtlSeconds, 60),
    retainDeadLetters: positiveIntegerOption(where, 'webhooks.retainDeadLetters', options.retainDeadLetters, 10_000),
    fetch: options.fetch ?? globalThis.fetch,
  };
}
