/** The extension's JSON-RPC methods: `<id>/check` (may this caller call a tool?) and `<id>/negotiate` (ask for scopes). */
import { invalidInputError, isRecord } from '@ext/core/kit';
import { type MethodHandler } from '@ext/core';
import {
  missingScopes,
  parseCheckRequest,
  parseNegotiationRequest,
  parseRequestMeta,
  settleDecision,
  unionScopes,
  withElevation,
  type SessionRecord,
} from './logic.js';
import type { ResolvedOptions } from './options.js';
import {
  PERMISSIONS_ID,
  type DeniedScope,
  type PermissionCheckResponse,
  type ScopeNegotiationResponse,
} from './schema.js';
import { loadSession, openSession } from './session-store.js';

/** `<id>/check`, answered from the required scopes of each tool seen at registration. */
export function checkMethod(
  config: ResolvedOptions,
  toolScopes: ReadonlyMap<string, readonly string[]>,
): MethodHandler {
  return async (params, ctx) => {
    const parsed = parseCheckRequest(params);
    if (!parsed.ok)
      throw invalidInputError(parsed, 'Send { tool, scopes_held } as in the PermissionCheckRequest schema.');
    const request = parsed.value;
    const required = toolScopes.get(request.tool);
    if (required === undefined) {
      return {
        allowed: false,
        reason: `This server has no tool named ${JSON.stringify(request.tool)}.`,
      } satisfies PermissionCheckResponse;
    }
    const meta = parseRequestMeta(isRecord(params._meta) ? params._meta[PERMISSIONS_ID] : undefined, PERMISSIONS_ID);
    if (!meta.ok)
      throw invalidInputError(meta, `Send the session_token from ${PERMISSIONS_ID}/negotiate, or leave the entry out.`);
    // A check has no effects: it reads the session without counting it as activity.
    const session = meta.value === undefined ? undefined : await loadSession(ctx, config, meta.value, false);
    const missing = missingScopes(required, unionScopes(ctx.authInfo?.scopes, session?.scopes));
    if (missing.length === 0) return { allowed: true } satisfies PermissionCheckResponse;
    const expired = meta.value !== undefined && session === undefined;
    const response: PermissionCheckResponse = withElevation(
      {
        allowed: false,
        missing_scopes: missing,
        reason: `${request.tool} needs ${missing.join(', ')}${expired ? '; the session token sent has expired, negotiate again' : ''}.`,
      },
      config.elevationUrl,
    );
    return response;
  };
}

/** `<id>/negotiate`: grants what the policy allows of the declared scopes asked for, and opens a session with them. */
export function negotiateMethod(config: ResolvedOptions): MethodHandler {
  return async (params, ctx) => {
    const parsed = parseNegotiationRequest(params);
    if (!parsed.ok)
      throw invalidInputError(parsed, 'Send { requested_scopes } as in the ScopeNegotiationRequest schema.');
    const request = parsed.value;
    const requested = unionScopes(request.requested_scopes);
    const held = new Set(ctx.authInfo?.scopes ?? []);
    const denied: DeniedScope[] = [];
    const alreadyHeld: string[] = [];
    const ask: string[] = [];
    for (const scope of requested) {
      if (!config.scopes.has(scope)) denied.push({ scope, reason: 'This server declares no such scope.' });
      else if (held.has(scope)) alreadyHeld.push(scope);
      else ask.push(scope);
    }
    const decision =
      ask.length === 0 ? { granted: [], denied: [] } : settleDecision(ask, await config.policy(ask, ctx));
    const granted = unionScopes(alreadyHeld, decision.granted);
    const at = config.now();
    const lifetime = Math.min(request.ttl_seconds ?? config.maxSessionSeconds, config.maxSessionSeconds);
    const record: SessionRecord = {
      scopes: granted,
      expires_at: at + lifetime * 1000,
      last_used: at,
      idle_seconds: config.sessionTtlSeconds,
    };
    const token = await openSession(ctx, config, record, lifetime);
    const response: ScopeNegotiationResponse = {
      granted_scopes: granted,
      denied_scopes: [...denied, ...decision.denied],
      session: {
        token,
        scopes: granted,
        expires_at: new Date(record.expires_at).toISOString(),
        inactivity_timeout_seconds: config.sessionTtlSeconds,
      },
    };
    return response;
  };
}
