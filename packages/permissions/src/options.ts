/** The options of `permissionsServer()`: what an author may set, the defaults, and their validation. */
import { ConfigurationError, type RequestContext } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import { defaultGrant, indexScopes, type GrantDecision, type ScopeDeclaration } from './logic.js';
import type { ScopeDefinition } from './schema.js';

/** Decides which of the requested (declared, not yet held) scopes a negotiation grants. */
export type GrantPolicy = (requested: readonly string[], ctx: RequestContext) => GrantDecision | Promise<GrantDecision>;

export interface PermissionsServerOptions {
  /** The scopes this server declares: `{ name, description, tools, autoGrant? }`. Default: none. */
  readonly scopes?: readonly ScopeDeclaration[] | undefined;
  /** Which requested scopes `negotiate` grants. Default: those with `autoGrant: true`; the others are denied with a reason. */
  readonly grant?: GrantPolicy | undefined;
  /** Inactivity timeout of a session, in seconds (advertised as `session_ttl_seconds`). Default 900. */
  readonly sessionTtlSeconds?: number | undefined;
  /** Longest lifetime of a session, in seconds, whatever the client asks. Default 3600. */
  readonly maxSessionSeconds?: number | undefined;
  /** Where a person can grant missing scopes (https). Default: none. */
  readonly elevationUrl?: string | undefined;
  /** Namespace of the store keys. Default `"permissions"`. */
  readonly keyPrefix?: string | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options with every default applied (`elevationUrl` has none), the scopes indexed and the grant policy decided. */
export type ResolvedOptions = Resolved<Omit<PermissionsServerOptions, 'scopes' | 'grant'>, 'elevationUrl'> & {
  /** The declared scopes by name. */
  readonly scopes: ReadonlyMap<string, ScopeDefinition>;
  readonly policy: GrantPolicy;
};

const FACTORY = 'permissionsServer';

function httpsUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigurationError('INVALID_OPTION', `permissionsServer: elevationUrl is not a URL (${String(error)})`);
  }
  if (url.protocol !== 'https:')
    throw new ConfigurationError('INVALID_OPTION', 'permissionsServer: elevationUrl must be an https URL');
  return url.href;
}

/** Applies the defaults; throws `INVALID_OPTION` naming the first bad option. */
export function resolveOptions(options: PermissionsServerOptions): ResolvedOptions {
  const {
    scopes: declared = [],
    grant,
    sessionTtlSeconds = 900,
    maxSessionSeconds = 3600,
    elevationUrl: givenUrl,
    keyPrefix = 'permissions',
    now = Date.now,
  } = options;
  const scopes = indexScopes(declared, FACTORY);
  positiveIntegerOption(FACTORY, 'sessionTtlSeconds', sessionTtlSeconds);
  positiveIntegerOption(FACTORY, 'maxSessionSeconds', maxSessionSeconds);
  const elevationUrl = httpsUrl(givenUrl);
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new ConfigurationError('INVALID_OPTION', 'permissionsServer: keyPrefix must be a non-empty string');
  if (grant !== undefined && typeof grant !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'permissionsServer: grant must be a function (requested, ctx) => { granted, denied }',
    );
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'permissionsServer: now must be a function returning milliseconds');
  }
  const policy: GrantPolicy = grant ?? ((requested) => defaultGrant(requested, scopes, elevationUrl));
  return { scopes, sessionTtlSeconds, maxSessionSeconds, elevationUrl, keyPrefix, now, policy };
}
