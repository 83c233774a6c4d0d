/** The options of `createReferenceOrigin`, checked and filled in once, and the state a running origin keeps. */
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, type Logger, type Store } from '@ext/core';
import { consoleLogger, positiveIntegerOption, type Resolved } from '@ext/core/kit';
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
export type UploadLimits = Resolved<UploadOptions>;

/** One origin's checked options, and what it holds while it runs. */
export type OriginState = Resolved<
  Pick<
    ReferenceOriginOptions,
    'store' | 'serverName' | 'ttlSeconds' | 'spoolDirectory' | 'keyPrefix' | 'logger' | 'now'
  >
> & {
  /** Signs new URLs. */
  readonly key: Uint8Array;
  /** Verify URLs: `key`, then the previous secrets. */
  readonly keys: readonly Uint8Array[];
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
};

/** Checks the options, in order, and builds an origin's state; throws a `ConfigurationError` naming the option. */
export function originState(options: ReferenceOriginOptions): OriginState {
  const {
    secret,
    previousSecrets = [],
    store,
    serverName,
    baseUrl,
    ttlSeconds = 3600,
    spoolDirectory = join(tmpdir(), 'mcp-ext-data-references'),
    uploads,
    keyPrefix = 'data-references',
    logger = consoleLogger,
    now = Date.now,
  } = options;
  const key = secretBytes(secret, `${ORIGIN}: secret`);
  const keys = [
    key,
    ...previousSecrets.map((previous, index) => secretBytes(previous, `${ORIGIN}: previousSecrets[${String(index)}]`)),
  ];
  if (typeof store !== 'object')
    throw new ConfigurationError('INVALID_OPTION', `${ORIGIN}: store is required (the server adapter's store)`);
  if (typeof serverName !== 'string' || serverName.length === 0 || serverName.length > 256) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${ORIGIN}: serverName must be a non-empty string of at most 256 characters`,
    );
  }
  const base = baseUrl === undefined ? undefined : parseBaseUrl(baseUrl);
  positiveIntegerOption(ORIGIN, 'ttlSeconds', ttlSeconds);
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new ConfigurationError('INVALID_OPTION', `${ORIGIN}: keyPrefix must be a non-empty string`);
  return {
    key,
    keys,
    store,
    serverName,
    ttlSeconds,
    spoolDirectory,
    keyPrefix,
    logger,
    now,
    uploads: uploadLimits(uploads, ttlSeconds),
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
  const { maxBytes = 128 * 1024 * 1024, ttlSeconds: urlTtlSeconds = 300, referenceTtlSeconds = ttlSeconds } = uploads;
  return {
    maxBytes: byteCountOption(ORIGIN, 'uploads.maxBytes', maxBytes),
    ttlSeconds: positiveIntegerOption(ORIGIN, 'uploads.ttlSeconds', urlTtlSeconds),
    referenceTtlSeconds: positiveIntegerOption(ORIGIN, 'uploads.referenceTtlSeconds', referenceTtlSeconds),
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
