/**
 * The tool-call middleware: reads the session the call names, and refuses
 * a call whose caller lacks a required scope before anything with effects
 * runs.
 */
import { ExtensionError, type ToolMiddleware } from '@ext/core';
import { invalidInputError } from '@ext/core/kit';
import { missingScopes, parseRequestMeta, requiredScopesFor, withElevation } from './logic.js';
import type { ResolvedOptions } from './options.js';
import { PERMISSIONS_ID } from './schema.js';
import { loadSession } from './session-store.js';

/** The session token sent is unknown, expired, or another caller's (only a client that negotiated the extension sends one). */
function sessionExpired(
  id: string,
  tool: string,
  missing: readonly string[],
  elevationUrl: string | undefined,
): ExtensionError {
  return new ExtensionError(
    'auth_required',
    'SESSION_EXPIRED',
    'The permission session has expired or is not valid for this caller',
    {
      userActionable: false,
      suggestion: `Negotiate the scopes again with ${id}/negotiate and retry with the new session token.`,
      details: withElevation({ tool, missing_scopes: missing }, elevationUrl),
    },
  );
}

/**
 * What the caller can do about missing scopes (PERM-18): a client that
 * negotiated the extension (under `negotiatedId`) is pointed at its
 * `negotiate` method; any other only at what a person can do.
 */
function scopeSuggestion(
  missing: readonly string[],
  negotiatedId: string | undefined,
  elevationUrl: string | undefined,
): string {
  const scopes = missing.join(', ');
  const them = missing.length > 1 ? 'them' : 'it';
  if (negotiatedId !== undefined) {
    return elevationUrl === undefined
      ? `Ask for ${scopes} with ${negotiatedId}/negotiate, then retry.`
      : `Ask for ${scopes} with ${negotiatedId}/negotiate or have a person grant ${them} at ${elevationUrl}, then retry.`;
  }
  return elevationUrl === undefined
    ? `Ask the server's operator to grant your account ${scopes}, or sign in with an account that has ${them}; then retry.`
    : `Have a person grant ${scopes} at ${elevationUrl}, or sign in with an account that has ${them}; then retry.`;
}

/** The caller holds neither from its authentication nor from its session the scopes `missing`. */
function scopeInsufficient(
  tool: string,
  required: readonly string[],
  missing: readonly string[],
  negotiatedId: string | undefined,
  elevationUrl: string | undefined,
): ExtensionError {
  return new ExtensionError(
    'auth_required',
    'SCOPE_INSUFFICIENT',
    `Calling ${tool} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    {
      userActionable: true,
      suggestion: scopeSuggestion(missing, negotiatedId, elevationUrl),
      details: withElevation({ tool, required_scopes: [...required], missing_scopes: missing }, elevationUrl),
    },
  );
}

/** The middleware of `permissionsServer()`; `toolScopes` holds the required scopes of each tool seen at registration. */
export function permissionsMiddleware(
  config: ResolvedOptions,
  toolScopes: ReadonlyMap<string, readonly string[]>,
): ToolMiddleware {
  return async (call, ctx, next) => {
    const required = toolScopes.get(ctx.tool.name) ?? requiredScopesFor(ctx.tool, PERMISSIONS_ID, config.scopes);
    const negotiated = ctx.negotiated(PERMISSIONS_ID);
    let token: string | undefined;
    if (negotiated !== undefined) {
      const parsed = parseRequestMeta(call.meta[negotiated.id], negotiated.id);
      if (!parsed.ok)
        throw invalidInputError(
          parsed,
          `Send the session_token from ${negotiated.id}/negotiate, or leave the entry out.`,
        );
      token = parsed.value;
    }
    const session = token === undefined ? undefined : await loadSession(ctx, config, token, true);
    if (required.length === 0) return next();
    const fromOAuth = missingScopes(required, ctx.authInfo?.scopes ?? []);
    if (fromOAuth.length === 0) return next();
    if (token !== undefined && session === undefined) {
      throw sessionExpired(negotiated?.id ?? PERMISSIONS_ID, call.name, fromOAuth, config.elevationUrl);
    }
    const missing = missingScopes(fromOAuth, session?.scopes ?? []);
    if (missing.length > 0) {
      throw scopeInsufficient(call.name, required, missing, negotiated?.id, config.elevationUrl);
    }
    return next();
  };
}
