import {
  ConfigurationError,
  ExtensionError,
  type CallContext,
  type JsonValue,
  type ServerExtension,
  type ToolMiddleware,
} from '@ext/core';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { createSlot, setSlot, type SlotOutcome } from './locals.js';
import { decodeState, invalidTokenError, parseRequestMeta, refusalResult, withResultMeta } from './logic.js';
import {
  DEFAULT_MAX_TOKEN_BYTES,
  DEFAULT_TTL_SECONDS,
  SESSION_STATE_ID,
  SESSION_STATE_PACKAGE,
  SESSION_STATE_WIRE_VERSION,
  SessionStateClientSettingsSchema,
  type SessionStateClientSettings,
  type SessionStateResultMeta,
  type SessionStateServerSettings,
} from './schema.js';
import {
  createKeyRing,
  openToken,
  sealedLength,
  sealToken,
  type KeyRing,
  type SessionKey,
  type TokenBinding,
} from './token.js';

export { sessionState } from './locals.js';
export type { SessionStateHandle } from './locals.js';
export type { SessionKey } from './token.js';

export interface SessionStateServerOptions {
  /**
   * The sealing keys, newest first: the first one seals new tokens, every
   * one opens tokens sealed with it. Rotate by adding a new key in front and
   * removing the old one after `ttlSeconds`. Required.
   */
  readonly keys: readonly SessionKey[];
  /** Lifetime of a token from the call that sealed it, at most ten years. Default 3600. */
  readonly ttlSeconds?: number | undefined;
  /** Largest token sealed or accepted, in bytes, from 256 to 16 MiB. Default 65536. */
  readonly maxTokenBytes?: number | undefined;
  /**
   * Bound into every token (a token sealed by one server name never opens
   * on another, even with shared keys) and advertised as `server_name`, so
   * a client keeps one token per server. Default: none (bound to `""`).
   */
  readonly serverName?: string | undefined;
  /** Re-seal the unchanged state with a fresh expiry on every call that carried a valid token. Default `false`. */
  readonly rolling?: boolean | undefined;
  /** TypeBox schema of the state: checked when a token opens and on every `set()`. Default: any JSON. */
  readonly schema?: TSchema | undefined;
  /**
   * Who a token belongs to: a token opens only for the caller it was sealed
   * for. Default: the core's principal (`ctx.principal`, which the core
   * resolves from the caller's authentication; see its SPEC, IDENT-1).
   */
  readonly subject?: ((ctx: CallContext) => string) | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The package whose structured errors carry the refusal's code to the client. */
const ERRORS_PACKAGE = '@ext/errors';

const OPTION_NAMES = new Set([
  'keys',
  'ttlSeconds',
  'maxTokenBytes',
  'serverName',
  'rolling',
  'schema',
  'subject',
  'now',
]);
const WHERE = 'sessionStateServer';
/** Room for a small state under the longest key id (a sealed `null` under a 64-character id takes 142 bytes). */
const MIN_TOKEN_BYTES = 256;
/** Ten years: expiries stay well inside what a date can represent. */
const MAX_TTL_SECONDS = 315_360_000;
/** Far beyond any sensible cookie; keeps the size arithmetic exact. */
const MAX_TOKEN_BYTES = 16 * 1024 * 1024;

interface Resolved {
  readonly ring: KeyRing;
  readonly ttlMs: number;
  readonly ttlSeconds: number;
  readonly maxTokenBytes: number;
  readonly serverName: string | undefined;
  readonly rolling: boolean;
  readonly check: ((value: JsonValue) => string | undefined) | undefined;
  readonly subject: (ctx: CallContext) => string;
  readonly now: () => number;
}

function integerOption(name: string, value: unknown, fallback: number, minimum: number, maximum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${WHERE}: ${name} must be an integer from ${minimum} to ${maximum}, got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}

function assertFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: ${name} must be a function`);
  }
}

function compileCheck(schema: unknown): ((value: JsonValue) => string | undefined) | undefined {
  if (schema === undefined) return undefined;
  if (typeof schema !== 'object' || schema === null) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: schema must be a TypeBox schema`);
  }
  const validator = Compile(schema as TSchema);
  return (value) => {
    if (validator.Check(value)) return undefined;
    const first = validator.Errors(value)[0];
    return `${first?.instancePath === undefined || first.instancePath === '' ? '/' : first.instancePath} ${first?.message ?? 'is invalid'}`;
  };
}

function resolve(options: unknown): Resolved {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: expects an options object with at least "keys"`);
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!OPTION_NAMES.has(key)) throw new ConfigurationError('INVALID_OPTION', `${WHERE}: unknown option "${key}"`);
  }
  const ring = createKeyRing(record.keys, WHERE);
  const ttlSeconds = integerOption('ttlSeconds', record.ttlSeconds, DEFAULT_TTL_SECONDS, 1, MAX_TTL_SECONDS);
  const maxTokenBytes = integerOption(
    'maxTokenBytes',
    record.maxTokenBytes,
    DEFAULT_MAX_TOKEN_BYTES,
    MIN_TOKEN_BYTES,
    MAX_TOKEN_BYTES,
  );
  const serverName = record.serverName;
  if (serverName !== undefined && (typeof serverName !== 'string' || serverName.length === 0)) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: serverName must be a non-empty string`);
  }
  assertFunction('subject', record.subject);
  assertFunction('now', record.now);
  if (record.rolling !== undefined && typeof record.rolling !== 'boolean') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: rolling must be a boolean`);
  }
  return {
    ring,
    ttlSeconds,
    ttlMs: ttlSeconds * 1000,
    maxTokenBytes,
    serverName,
    rolling: record.rolling ?? false,
    check: compileCheck(record.schema),
    subject: (record.subject as Resolved['subject'] | undefined) ?? ((ctx) => ctx.principal),
    now: (record.now as Resolved['now'] | undefined) ?? Date.now,
  };
}

/** Opens the token of a request, if it carries one; the refusal otherwise. */
function openIncoming(
  raw: unknown,
  id: string,
  binding: TokenBinding,
  config: Resolved,
): { plaintext: string; expiresAt: number } | undefined | ExtensionError {
  const limits = { maxTokenBytes: config.maxTokenBytes, id };
  const parsed = parseRequestMeta(raw, id);
  if (!parsed.ok)
    return invalidTokenError('malformed', {
      ...limits,
      message: parsed.message,
      field: parsed.field,
      pointer: parsed.pointer,
    });
  if (parsed.token === undefined) return undefined;
  const opened = openToken(config.ring, parsed.token, binding, {
    now: config.now(),
    maxTokenBytes: config.maxTokenBytes,
  });
  if (!opened.ok) return invalidTokenError(opened.reason, limits);
  const decoded = decodeState(opened.plaintext);
  // Sealed by this server, yet no longer what its schema accepts (the state's shape changed since).
  if (decoded === undefined || config.check?.(decoded.value) !== undefined)
    return invalidTokenError('invalid_state', limits);
  return { plaintext: opened.plaintext, expiresAt: opened.expiresAt };
}

/**
 * The result entry for what the handler did: a new token when it set state
 * (or, with `rolling`, re-sealed what it kept), the order to drop the token
 * when it cleared state, nothing otherwise.
 */
function resultEntry(
  outcome: SlotOutcome,
  hadToken: boolean,
  config: Resolved,
  binding: TokenBinding,
  limit: number,
): SessionStateResultMeta | undefined {
  const seal = (plaintext: string, changed: boolean): SessionStateResultMeta => {
    const expiresAt = config.now() + config.ttlMs;
    return {
      session_state: sealToken(config.ring, plaintext, expiresAt, binding),
      expires_at: new Date(expiresAt).toISOString(),
      state_changed: changed,
    };
  };
  switch (outcome.kind) {
    case 'set':
      return seal(outcome.plaintext, true);
    case 'cleared':
      return { state_changed: true };
    case 'unchanged': {
      if (!config.rolling || !hadToken || outcome.plaintext === undefined) return undefined;
      // After a rotation to a longer key id the same state may no longer fit; the client then keeps its token.
      if (sealedLength(config.ring.sealingKeyId, Buffer.byteLength(outcome.plaintext, 'utf8')) > limit)
        return undefined;
      return seal(outcome.plaintext, false);
    }
  }
}

/**
 * The server half: a middleware at the `session-state` stage (right under
 * errors) that opens the token the client sent, hands the state to the
 * handler through {@link sessionState}, and seals what the handler set into
 * `result._meta`. Tokens are AES-256-GCM sealed, expire after `ttlSeconds`,
 * and are bound to the caller and the server name.
 */
export function sessionStateServer(options: SessionStateServerOptions): ServerExtension {
  const config = resolve(options);
  const settings: SessionStateServerSettings = {
    version: SESSION_STATE_WIRE_VERSION,
    ttl_seconds: config.ttlSeconds,
    max_token_bytes: config.maxTokenBytes,
  };
  if (config.serverName !== undefined) settings.server_name = config.serverName;

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const negotiated = ctx.negotiated<SessionStateClientSettings>(SESSION_STATE_PACKAGE);
    // Where the client's capabilities cannot be known (legacy stateless HTTP), act as if it spoke the extension.
    const enabled = negotiated !== undefined || ctx.peerExtensions === undefined;
    const id = negotiated?.id ?? SESSION_STATE_ID;
    const clientLimit = negotiated?.settings.max_token_bytes;
    const limit = clientLimit === undefined ? config.maxTokenBytes : Math.min(config.maxTokenBytes, clientLimit);
    const binding: TokenBinding = { serverName: config.serverName ?? '', subject: config.subject(ctx) };

    let incoming: { plaintext: string; expiresAt: number } | undefined;
    if (enabled) {
      const opened = openIncoming(call.meta[id], id, binding, config);
      if (ExtensionError.isInstance(opened)) {
        // A client that reads structured errors learns the code from them; any other is told in this extension's own terms.
        if (ctx.negotiated(ERRORS_PACKAGE) !== undefined) throw opened;
        return refusalResult(opened, id);
      }
      incoming = opened;
    }

    const slot = createSlot({
      enabled,
      incoming,
      maxTokenBytes: limit,
      sealingKeyId: config.ring.sealingKeyId,
      check: config.check,
    });
    setSlot(ctx, slot);
    // A handler that throws discards what it set: nothing below is reached.
    const result = await next();
    // Nothing of this extension reaches a client that did not advertise it; an author's own entry never passes for ours.
    if (!enabled) return withResultMeta(result, undefined, id);
    return withResultMeta(result, resultEntry(slot.outcome(), incoming !== undefined, config, binding, limit), id);
  };

  return {
    side: 'server',
    keepsCallerState: true,
    name: SESSION_STATE_PACKAGE,
    ids: [SESSION_STATE_ID],
    settings,
    peerSettings: SessionStateClientSettingsSchema,
    stage: 'session-state',
    middleware,
  };
}
