/** The options of `createReferenceOrigin`, checked and filled in once, and the state a running origin keeps. */
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, consoleLogger, positiveIntegerOption, type Logger, type Store } from '@ext/core';
import { byteCountOption } from './option-checks.js';
import { secretBytes } from './signing.js';

export interface UploadOptions {
  /** Largest upload accepted, in bytes. Default 128 MiB. */
  readonly maxBytes?: number | undefined;
  /** Lifetime of an upload URL, in seconds. Default 300. */
  readonly ttlSeconds?: number | undefined;
  /** Lifetime of the reference an upload creates, in seconds. Default: the origin's `ttlSeconds`. */
  readonly referenceTtlSeconds?: number | undefined;
}

export interface ReferenceOriginOptions {
  /** HMAC-SHA256 key that signs the URLs: at least 32 bytes, kept secret, the same on every instance. */
  readonly secret: string | Uint8Array;
  /** Keys that signed earlier URLs and still verify them (rotation). Default none. */
  readonly previousSecrets?: readonly (string | Uint8Array)[] | undefined;
  /** Where reference metadata lives: give the server adapter's store, so every instance behind a load balancer finds it. */
  readonly store: Store;
  /** The `origin_server` of the references, e.g. the MCP server's name. */
  readonly serverName: string;
  /**
   * The public URL where {@link ReferenceOrigin.handle} is mounted, e.g.
   * `https://files.example.com/refs`; its path is the prefix `handle` serves.
   * Default: set by {@link ReferenceOrigin.listen} (`http://host:port/refs`).
   */
  readonly baseUrl?: string | undefined;
  /** Default lifetime of a reference and its URL, in seconds. Default 3600. */
  readonly ttlSeconds?: number | undefined;
  /** Where chunk sources, uploads and imports are written. Default `<os tmpdir>/mcp-ext-data-references`. */
  readonly spoolDirectory?: string | undefined;
  /** Enables the upload endpoint (raw bytes in, a reference out). Default: disabled. */
  readonly uploads?: UploadOptions | boolean | undefined;
  /** Namespace of the store keys. Default `"data-references"`. */
  readonly keyPrefix?: string | undefined;
  readonly logger?: Logger | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The factory's name, as every option error starts. */
export const ORIGIN = 'createReferenceOrigin';

/** The path `listen()` serves under when no `baseUrl` was given. */
export const DEFAULT_PATH = '/refs';

/** Produces a live source's bytes from byte `offset` on. */
export type Generate = (offset: number) => AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Upload limits, filled in. */
export interface UploadLimits {
  readonly maxBytes: number;
  readonly ttlSeconds: number;
  readonly referenceTtlSeconds: number;
}

/** One origin's checked options, and what it holds while it runs. */
export interface OriginState {
  /** Signs new URLs. */
  readonly key: Uint8Array;
  /** Verify URLs: `key`, then the previous secrets. */
  readonly keys: readonly Uint8Array[];
  readonly store: Store;
  readonly serverName: string;
  readonly ttlSeconds: number;
  readonly spoolDirectory: string;
  readonly keyPrefix: string;
  readonly logger: Logger;
  readonly now: () => number;
  readonly uploads: UploadLimits | undefined;
  /** The public base URL, once known (the option, or `listen()`). */
  baseUrl: string | undefined;
  /** The path prefix `handle` serves, without a trailing slash. */
  basePath: string;
  /** The live sources this process serves, by reference id. */
  readonly generators: Map<string, Generate>;
  /** Expiry clean-ups scheduled by this process. */
  readonly timers: Set<NodeJS.Timeout>;
  /** The HTTP servers `listen()` started. */
  readonly servers: Server[];
  /** Set once the spool directory exists (or is being made). */
  spoolReady: Promise<void> | undefined;
}

/** Checks the options, in order, and builds an origin's state; throws a `ConfigurationError` naming the option. */
export function originState(options: ReferenceOriginOptions): OriginState {
  const key = secretBytes(options.secret, `${ORIGIN}: secret`);
  const keys = [
    key,
    ...(options.previousSecrets ?? []).map((secret, index) =>
      secretBytes(secret, `${ORIGIN}: previousSecrets[${String(index)}]`),
    ),
  ];
  if (typeof options.store !== 'object')
    throw new ConfigurationError('INVALID_OPTION', `${ORIGIN}: store is required (the server adapter's store)`);
  const serverName = options.serverName;
  if (typeof serverName !== 'string' || serverName.length === 0 || serverName.length > 256) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${ORIGIN}: serverName must be a non-empty string of at most 256 characters`,
    );
  }
  const base = options.baseUrl === undefined ? undefined : parseBaseUrl(options.baseUrl);
  const ttlSeconds = positiveIntegerOption(ORIGIN, 'ttlSeconds', options.ttlSeconds, 3600);
  const spoolDirectory = options.spoolDirectory ?? join(tmpdir(), 'mcp-ext-data-references');
  const keyPrefix = options.keyPrefix ?? 'data-references';
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new ConfigurationError('INVALID_OPTION', `${ORIGIN}: keyPrefix must be a non-empty string`);
  return {
    key,
    keys,
    store: options.store,
    serverName,
    ttlSeconds,
    spoolDirectory,
    keyPrefix,
    logger: options.logger ?? consoleLogger,
    now: options.now ?? Date.now,
    uploads: uploadLimits(options.uploads, ttlSeconds),
    baseUrl: base?.url,
    basePath: base?.path ?? DEFAULT_PATH,
    generators: new Map(),
    timers: new Set(),
    servers: [],
    spoolReady: undefined,
  };
}

function uploadLimits(option: UploadOptions | boolean | undefined, ttlSeconds: number): UploadLimits | undefined {
  const uploads = option === true ? {} : option === false ? undefined : option;
  if (uploads === undefined) return undefined;
  return {
    maxBytes: byteCountOption(ORIGIN, 'uploads.maxBytes', uploads.maxBytes, 128 * 1024 * 1024),
    ttlSeconds: positiveIntegerOption(ORIGIN, 'uploads.ttlSeconds', uploads.ttlSeconds, 300),
    referenceTtlSeconds: positiveIntegerOption(
      ORIGIN,
      'uploads.referenceTtlSeconds',
      uploads.referenceTtlSeconds,
      ttlSeconds,
    ),
  };
}

/** The base URL without a trailing slash, and its path; throws a `ConfigurationError` unless it is an http(s) URL. */
function parseBaseUrl(value: string): { url: string; path: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigurationError('INVALID_OPTION', `${ORIGIN}: baseUrl is not a URL (${String(error)})`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${ORIGIN}: baseUrl must be an http(s) URL without query or fragment`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return { url: `${url.origin}${path}`, path };
}

/** Sets the public base URL (and with it the path served). */
export function setBase(state: OriginState, value: string): void {
  const base = parseBaseUrl(value);
  state.basePath = base.path;
  state.baseUrl = base.url;
}

/** The public base URL; throws `MISSING_BASE_URL` until it is known. */
export function currentBase(state: OriginState): string {
  if (state.baseUrl === undefined) {
    throw new ConfigurationError(
      'MISSING_BASE_URL',
      `${ORIGIN}: the public URL is not known yet; pass baseUrl or call listen() first`,
    );
  }
  return state.baseUrl;
}
