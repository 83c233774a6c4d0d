/** The import policy, pure: its options checked once, and whether a reference's URL, or a redirect, may be fetched. */
import { ConfigurationError, type ExtensionError } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import { importFailure } from './import-failures.js';
import { byteCountOption } from './option-checks.js';

/** Which origins an importing server fetches from: exact URL origins, or a predicate. */
export type OriginPolicy = readonly string[] | ((url: URL) => boolean);

/** A checked policy: a predicate over URLs. */
export type OriginCheck = (url: URL) => boolean;

export interface ImportPolicy {
  /** Origins the importer fetches from: URL origins (`https://files.example.com`) or a predicate. Required; an empty list imports nothing. */
  readonly allowedOrigins: OriginPolicy;
  /** Largest payload imported, in bytes (declared and actual). Default 1 GiB. */
  readonly maxBytes?: number | undefined;
  /** Redirects followed within the same origin. Default 3. */
  readonly maxRedirects?: number | undefined;
  /** Times a dropped transfer is resumed with a `Range` request. Default 3. */
  readonly maxResumes?: number | undefined;
  /**
   * Refuse data that cannot be verified: a reference without a sha256
   * checksum whose origin sends no `Repr-Digest` either. Default `true`.
   */
  readonly requireChecksum?: boolean | undefined;
  /** The fetch to use (tests, proxies). Default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** An import policy with defaults filled and options checked: its origins as a predicate. */
export type ResolvedImportPolicy = Resolved<Omit<ImportPolicy, 'allowedOrigins'>> & { readonly allowed: OriginCheck };

export const DEFAULT_MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/** Validates an import policy; throws a `ConfigurationError` naming the option. */
export function resolveImportPolicy(policy: ImportPolicy, where: string): ResolvedImportPolicy {
  const {
    allowedOrigins,
    maxBytes = DEFAULT_MAX_IMPORT_BYTES,
    maxRedirects = 3,
    maxResumes = 3,
    requireChecksum = true,
    fetch: fetchBytes = fetch,
    now = Date.now,
  } = policy;
  const allowed = originCheck(allowedOrigins, `${where}: allowedOrigins`);
  // Checked, not defaulted, when given as something else (null from JavaScript): a policy never weakens by accident.
  if (typeof requireChecksum !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', `${where}: requireChecksum must be a boolean`);
  if (typeof fetchBytes !== 'function')
    throw new ConfigurationError('INVALID_OPTION', `${where}: fetch must be a function`);
  if (typeof now !== 'function') throw new ConfigurationError('INVALID_OPTION', `${where}: now must be a function`);
  return {
    allowed,
    maxBytes: byteCountOption(where, 'maxBytes', maxBytes),
    maxRedirects: maxRedirects === 0 ? 0 : positiveIntegerOption(where, 'maxRedirects', maxRedirects),
    maxResumes: maxResumes === 0 ? 0 : positiveIntegerOption(where, 'maxResumes', maxResumes),
    requireChecksum,
    fetch: fetchBytes,
    now,
  };
}

/**
 * Validates an allow-list at configuration time: each entry an http(s) URL
 * origin (`https://files.example.com`, `http://127.0.0.1:8080`), without
 * path, query or credentials. Throws a `ConfigurationError` naming the entry.
 */
export function originCheck(policy: OriginPolicy, option: string): OriginCheck {
  if (typeof policy === 'function') return policy;
  if (!Array.isArray(policy))
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${option} must be an array of URL origins or a function (url) => boolean`,
    );
  const origins = new Set<string>();
  for (const entry of policy as readonly unknown[]) {
    let url: URL | undefined;
    try {
      url = typeof entry === 'string' ? new URL(entry) : undefined;
    } catch (error) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} is not a URL (${String(error)})`,
      );
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} must be an http or https URL origin`,
      );
    }
    if (
      (url.pathname !== '/' && url.pathname !== '') ||
      url.search !== '' ||
      url.hash !== '' ||
      url.username !== '' ||
      url.password !== ''
    ) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} must be an origin only (scheme, host, port), e.g. ${url.origin}`,
      );
    }
    origins.add(url.origin);
  }
  return (url) => origins.has(url.origin);
}

export type UrlDecision =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly error: ExtensionError };

/** Whether a reference's `access_url` may be fetched: http(s), no credentials, an allowed origin. Never throws. */
export function checkAccessUrl(raw: string | undefined, allowed: OriginCheck): UrlDecision {
  if (raw === undefined) {
    return {
      ok: false,
      error: importFailure(
        'invalid_input',
        'UNSUPPORTED_URL',
        'The reference carries no access_url, so its bytes cannot be fetched',
        {
          suggestion: 'Pass the whole DataReference the origin server returned, including its access_url.',
          details: { field: 'access_url' },
        },
      ),
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      ok: false,
      error: importFailure('invalid_input', 'UNSUPPORTED_URL', 'The access_url is not a valid URL', {
        details: { field: 'access_url' },
      }),
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      error: importFailure(
        'invalid_input',
        'UNSUPPORTED_URL',
        `Only http and https access URLs are fetched, not ${url.protocol.replace(/:$/, '')}`,
        {
          details: { field: 'access_url', scheme: url.protocol.replace(/:$/, '') },
        },
      ),
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      error: importFailure('invalid_input', 'UNSUPPORTED_URL', 'Access URLs with credentials in them are not fetched', {
        details: { field: 'access_url' },
      }),
    };
  }
  if (!allowed(url)) {
    return {
      ok: false,
      error: importFailure('permanent', 'ORIGIN_NOT_ALLOWED', `This server does not import from ${url.origin}`, {
        userActionable: true,
        suggestion: 'Import only references produced by servers this server is configured to trust.',
        details: { origin: url.origin },
      }),
    };
  }
  return { ok: true, url };
}

/**
 * Where a redirect may lead: the same origin (scheme, host and port) as the
 * request that got it, over http(s); anything else is refused. Never throws.
 */
export function checkRedirect(from: URL, location: string | null): UrlDecision {
  let target: URL | undefined;
  try {
    target = location === null ? undefined : new URL(location, from);
  } catch {
    target = undefined;
  }
  if (target === undefined) {
    return {
      ok: false,
      error: importFailure(
        'transient',
        'TRANSFER_FAILED',
        'The origin answered with a redirect without a valid Location',
      ),
    };
  }
  if (target.origin !== from.origin || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
    return {
      ok: false,
      error: importFailure(
        'permanent',
        'REDIRECT_REFUSED',
        `The origin redirected to ${target.origin}, another host; redirects are followed only within ${from.origin}`,
        {
          userActionable: true,
          details: { origin: from.origin, redirect_origin: target.origin },
        },
      ),
    };
  }
  return { ok: true, url: target };
}

/** Milliseconds until `expires_at`, `undefined` when absent or unreadable, never below 0. */
export function msUntil(expiresAt: string | undefined, nowMs: number): number | undefined {
  if (expiresAt === undefined) return undefined;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
