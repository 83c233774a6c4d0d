/** The options of `permissionsServer()`: what an author may set, the defaults, and their validation. */
import { ConfigurationError, positiveIntegerOption, type RequestContext } from '@ext/core';
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

/** The options with every default applied. */
export interface ResolvedOptions {
  /** The declared scopes by name. */
  readonly scopes: ReadonlyMap<string, ScopeDefinition>;
  readonly idleSeconds: number;
  readonly maxSessionSeconds: number;
  readonly elevationUrl: string | undefined;
  readonly keyPrefix: string;
  readonly now: () => number;
  readonly policy: GrantPolicy;
}

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
  const scopes = indexScopes(options.scopes ?? [], FACTORY);
  const idleSeconds = positiveIntegerOption(FACTORY, 'sessionTtlSeconds', options.sessionTtlSeconds, 900);
  const maxSessionSeconds = positiveIntegerOption(FACTORY, 'maxSessionSeconds', options.maxSessionSeconds, 3600);
  const elevationUrl = httpsUrl(options.elevationUrl);
  const keyPrefix = options.keyPrefix ?? 'permissions';
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new ConfigurationError('INVALID_OPTION', 'permissionsServer: keyPrefix must be a non-empty string');
  if (options.grant !== undefined && typeof options.grant !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'permissionsServer: grant must be a function (requested, ctx) => { granted, denied }',
    );
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'permissionsServer: now must be a function returning milliseconds');
  }
  const policy: GrantPolicy = options.grant ?? ((requested) => defaultGrant(requested, scopes, elevationUrl));
  return { scopes, idleSeconds, maxSessionSeconds, elevationUrl, keyPrefix, now: options.now ?? Date.now, policy };
}
