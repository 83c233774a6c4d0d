/**
 * The client half of `@ext/idempotency` (the `./client` entry): the
 * descriptor, which keys every call, and helpers that keep one key across
 * the attempts of one logical call.
 */
import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type ToolResult,
} from '@ext/core';
import { positiveIntegerOption } from '@ext/core/kit';
import { isValidIdempotencyKey, readResultMeta } from './logic.js';
import {
  IDEMPOTENCY_ID,
  IDEMPOTENCY_PACKAGE,
  IDEMPOTENCY_WIRE_VERSION,
  IdempotencyServerSettingsSchema,
  type IdempotencyRequestMeta,
  type IdempotencyResultMeta,
} from './schema.js';

export interface IdempotencyClientOptions {
  /**
   * Mint a fresh key for every `callTool` that carries none, when the server
   * negotiated the extension. Default `true`. A retry through `callTool`
   * is a new logical call; use {@link callIdempotent} to keep one key.
   */
  readonly autoKey?: boolean | undefined;
  /** `idempotency_ttl_seconds` to request; default: none (the server's default applies). */
  readonly ttlSeconds?: number | undefined;
  /** Key generator. Default `crypto.randomUUID`. Its keys must match `^[a-zA-Z0-9_\-:.]{1,128}$`. */
  readonly generateKey?: (() => string) | undefined;
}

function checkTtl(where: string, ttl: number | undefined): void {
  if (ttl !== undefined) positiveIntegerOption(where, 'ttlSeconds', ttl, ttl);
}

function checkKey(where: string, key: unknown): string {
  if (!isValidIdempotencyKey(key)) {
    throw new ConfigurationError(
      'INVALID_IDEMPOTENCY_KEY',
      `${where}: an idempotency key must be 1 to 128 characters from [a-zA-Z0-9_-:.], got ${JSON.stringify(key)}`,
    );
  }
  return key;
}

/** The `params._meta` entry for a key, ready to spread into `CallToolOptions.meta`. */
export function idempotencyMeta(key: string, ttlSeconds?: number): Record<string, IdempotencyRequestMeta> {
  checkKey('idempotencyMeta', key);
  checkTtl('idempotencyMeta', ttlSeconds);
  const entry: IdempotencyRequestMeta = { idempotency_key: key };
  if (ttlSeconds !== undefined) entry.idempotency_ttl_seconds = ttlSeconds;
  return { [IDEMPOTENCY_ID]: entry };
}

/** A new random key (UUID v4). */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/**
 * The client half: advertises the extension and, when the server
 * negotiated it, gives every tool call that carries no key a fresh one.
 */
export function idempotencyClient(options: IdempotencyClientOptions = {}): ClientExtension {
  const autoKey = options.autoKey ?? true;
  if (typeof autoKey !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyClient: autoKey must be a boolean');
  checkTtl('idempotencyClient', options.ttlSeconds);
  const generate = options.generateKey ?? randomUUID;
  if (typeof generate !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyClient: generateKey must be a function');
  }
  return {
    side: 'client',
    name: IDEMPOTENCY_PACKAGE,
    ids: [IDEMPOTENCY_ID],
    settings: { version: IDEMPOTENCY_WIRE_VERSION },
    peerSettings: IdempotencyServerSettingsSchema,
    prepareCall(call, negotiated) {
      if (negotiated === undefined || !autoKey) return;
      // A key the caller (or callIdempotent) chose stays, so retries keep it.
      if (call.meta[negotiated.id] !== undefined) return;
      const entry: IdempotencyRequestMeta = { idempotency_key: checkKey('idempotencyClient generateKey', generate()) };
      if (options.ttlSeconds !== undefined) entry.idempotency_ttl_seconds = options.ttlSeconds;
      call.meta[negotiated.id] = entry;
    },
  };
}

export interface IdempotentCallOptions extends CallToolOptions {
  /** The key for every attempt; default: a new UUID. */
  readonly key?: string | undefined;
  /** How long the server should remember the key, in seconds (sent as `idempotency_ttl_seconds`). */
  readonly ttlSeconds?: number | undefined;
}

/**
 * One logical call: every invocation is an attempt with the same key. It
 * takes no argument, so it can be handed to `withRetry` as it is.
 */
export interface IdempotentAttempt {
  (): Promise<ToolResult>;
  /** The key of every attempt, chosen or minted at once; sent only when the server negotiated the extension. */
  readonly key: string;
}

/**
 * Binds one key to one logical call and returns the attempt function, with
 * the key as its `key`; hand it to any retry loop
 * (`withRetry(idempotentCall(client, name, args))`) so a retry after a lost
 * reply is replayed by the server instead of executed twice. Options:
 * `key` (default: a new UUID), `ttlSeconds`, and any `callTool` option.
 * Without negotiation the attempts are plain calls.
 */
export function idempotentCall(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown> = {},
  options: IdempotentCallOptions = {},
): IdempotentAttempt {
  const { key: chosen, ttlSeconds, ...callOptions } = options;
  const key = checkKey('idempotentCall', chosen ?? randomUUID());
  checkTtl('idempotentCall', ttlSeconds);
  const entry: IdempotencyRequestMeta = { idempotency_key: key };
  if (ttlSeconds !== undefined) entry.idempotency_ttl_seconds = ttlSeconds;
  const attempt = (): Promise<ToolResult> => {
    const negotiated = client.negotiated(IDEMPOTENCY_ID);
    const meta: Record<string, unknown> = { ...(callOptions.meta ?? {}) };
    if (negotiated !== undefined) meta[negotiated.id] = { ...entry };
    return client.callTool(name, args, { ...callOptions, meta });
  };
  return Object.assign(attempt, { key });
}

export interface CallIdempotentOptions extends IdempotentCallOptions {
  /**
   * Runs the attempts, e.g. `(attempt) => withRetry(attempt)` with
   * `withRetry` from `@ext/errors/client`; it gets the same attempt
   * function `idempotentCall` returns, `key` included. Default: a single
   * attempt.
   */
  readonly retry?: ((attempt: IdempotentAttempt) => Promise<ToolResult>) | undefined;
}

/** Calls a tool once logically: one key, as many attempts as `retry` makes. */
export async function callIdempotent(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown> = {},
  options: CallIdempotentOptions = {},
): Promise<ToolResult> {
  const { retry, ...rest } = options;
  const attempt = idempotentCall(client, name, args, rest);
  return retry === undefined ? attempt() : retry(attempt);
}

/** How the server handled the key of this result; `undefined` when it did not (or sent a malformed entry). */
export function getReplayInfo(result: unknown): IdempotencyResultMeta | undefined {
  return readResultMeta(result, IDEMPOTENCY_ID);
}
