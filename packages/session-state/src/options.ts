/** The options of `sessionStateServer()`: what an author may set, the defaults and limits, and their validation. */
import { ConfigurationError, type CallContext } from '@ext/core';
import { isRecord, type JsonValue, type Resolved } from '@ext/core/kit';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS } from './schema.js';
import { createKeyRing, type KeyRing, type SessionKey } from './token.js';

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

/** The options with every default applied (`serverName` has none), the keys derived and the schema compiled. */
export type ResolvedOptions = Resolved<Omit<SessionStateServerOptions, 'keys' | 'schema'>, 'serverName'> & {
  readonly ring: KeyRing;
  readonly ttlMs: number;
  readonly check: ((value: JsonValue) => string | undefined) | undefined;
};

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

/** Applies the defaults; throws `INVALID_OPTION` naming the first bad option. */
export function resolve(options: unknown): ResolvedOptions {
  if (!isRecord(options)) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: expects an options object with at least "keys"`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.has(key)) throw new ConfigurationError('INVALID_OPTION', `${WHERE}: unknown option "${key}"`);
  }
  const ring = createKeyRing(options.keys, WHERE);
  const ttlSeconds = integerOption('ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS, 1, MAX_TTL_SECONDS);
  const maxTokenBytes = integerOption(
    'maxTokenBytes',
    options.maxTokenBytes,
    DEFAULT_MAX_TOKEN_BYTES,
    MIN_TOKEN_BYTES,
    MAX_TOKEN_BYTES,
  );
  const serverName = options.serverName;
  if (serverName !== undefined && (typeof serverName !== 'string' || serverName.length === 0)) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: serverName must be a non-empty string`);
  }
  assertFunction('subject', options.subject);
  assertFunction('now', options.now);
  if (options.rolling !== undefined && typeof options.rolling !== 'boolean') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: rolling must be a boolean`);
  }
  return {
    ring,
    ttlSeconds,
    ttlMs: ttlSeconds * 1000,
    maxTokenBytes,
    serverName,
    rolling: options.rolling ?? false,
    check: compileCheck(options.schema),
    subject: (options.subject as ResolvedOptions['subject'] | undefined) ?? ((ctx) => ctx.principal),
    now: (options.now as ResolvedOptions['now'] | undefined) ?? Date.now,
  };
}
