import { randomBytes } from 'node:crypto';
import {
  ConfigurationError,
  ExtensionError,
  type MethodHandler,
  type RequestContext,
  type ServerExtension,
  type ToolMiddleware,
} from '@ext/core';
import {
  defaultGrant,
  indexScopes,
  missingScopes,
  parseCheckRequest,
  parseNegotiationRequest,
  parseRequestMeta,
  parseSession,
  requiredScopesFor,
  sessionActive,
  sessionKey,
  sessionToJson,
  settleDecision,
  touchSession,
  unionScopes,
  type GrantDecision,
  type Parsed,
  type SessionRecord,
} from './logic.js';
import {
  PERMISSIONS_ID,
  PERMISSIONS_PACKAGE,
  PERMISSIONS_WIRE_VERSION,
  PermissionsClientSettingsSchema,
  type DeniedScope,
  type PermissionCheckResponse,
  type ScopeDefinition,
  type ScopeNegotiationResponse,
} from './schema.js';

export type { GrantDecision } from './logic.js';

/** Decides which of the requested (declared, not yet held) scopes a negotiation grants. */
export type GrantPolicy = (requested: readonly string[], ctx: RequestContext) => GrantDecision | Promise<GrantDecision>;

export interface PermissionsServerOptions {
  /** The scopes this server declares. Default: none. */
  readonly scopes?: readonly ScopeDefinition[] | undefined;
  /** Which requested scopes `negotiate` grants. Default: those with `auto_grant: true`; the others are denied with a reason. */
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

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `permissionsServer: ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

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

function invalidInput(failure: Exclude<Parsed<unknown>, { ok: true }>, suggestion: string): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', failure.message, {
    userActionable: false,
    suggestion,
    details: { field: failure.field, pointer: failure.pointer },
  });
}

function metaOf(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const meta = params._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
}

/**
 * The server half of scoped permissions: declares scopes, advertises each
 * tool's `required_scopes`, serves `<id>/check` and `<id>/negotiate`, and
 * refuses a tool call whose caller lacks a required scope before anything
 * with effects runs.
 */
export function permissionsServer(options: PermissionsServerOptions = {}): ServerExtension {
  const scopes = indexScopes(options.scopes ?? [], 'permissionsServer');
  const idleSeconds = positiveInteger('sessionTtlSeconds', options.sessionTtlSeconds, 900);
  const maxSessionSeconds = positiveInteger('maxSessionSeconds', options.maxSessionSeconds, 3600);
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
  const now = options.now ?? Date.now;
  const policy: GrantPolicy = options.grant ?? ((requested) => defaultGrant(requested, scopes, elevationUrl));
  /** Required scopes of every tool seen at registration, for `check`. */
  const toolScopes = new Map<string, readonly string[]>();

  const withElevation = <T extends Record<string, unknown>>(value: T): T =>
    elevationUrl === undefined ? value : { ...value, elevation_url: elevationUrl };

  /** Loads a session; `touch` records the use (refreshing the inactivity timer). */
  async function loadSession(ctx: RequestContext, token: string, touch: boolean): Promise<SessionRecord | undefined> {
    const key = sessionKey(keyPrefix, ctx.principal, token);
    const record = parseSession(await ctx.store.get(key));
    if (record === undefined) return undefined;
    const at = now();
    if (!sessionActive(record, at)) {
      if (touch) await ctx.store.delete(key);
      return undefined;
    }
    if (touch) {
      const touched = touchSession(record, at);
      await ctx.store.set(key, sessionToJson(touched.record), { ttlMs: touched.ttlMs });
    }
    return record;
  }

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const required = toolScopes.get(ctx.tool.name) ?? requiredScopesFor(ctx.tool, PERMISSIONS_ID, scopes);
    const negotiated = ctx.negotiated(PERMISSIONS_PACKAGE);
    let token: string | undefined;
    if (negotiated !== undefined) {
      const parsed = parseRequestMeta(call.meta[negotiated.id], negotiated.id);
      if (!parsed.ok)
        throw invalidInput(parsed, `Send the session_token from ${negotiated.id}/negotiate, or leave the entry out.`);
      token = parsed.value;
    }
    const session = token === undefined ? undefined : await loadSession(ctx, token, true);
    if (required.length === 0) return next();
    const fromOAuth = missingScopes(required, ctx.authInfo?.scopes ?? []);
    if (fromOAuth.length === 0) return next();
    if (token !== undefined && session === undefined) {
      throw new ExtensionError(
        'auth_required',
        'SESSION_EXPIRED',
        'The permission session has expired or is not valid for this caller',
        {
          userActionable: false,
          suggestion: `Negotiate the scopes again with ${negotiated?.id ?? PERMISSIONS_ID}/negotiate and retry with the new session token.`,
          details: withElevation({ tool: call.name, missing_scopes: fromOAuth }),
        },
      );
    }
    const missing = missingScopes(fromOAuth, session?.scopes ?? []);
    if (missing.length > 0) {
      throw new ExtensionError(
        'auth_required',
        'SCOPE_INSUFFICIENT',
        `Calling ${call.name} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
        {
          userActionable: true,
          suggestion:
            elevationUrl === undefined
              ? `Ask for ${missing.join(', ')} with ${PERMISSIONS_ID}/negotiate, then retry.`
              : `Ask for ${missing.join(', ')} with ${PERMISSIONS_ID}/negotiate or have a person grant them at ${elevationUrl}, then retry.`,
          details: withElevation({ tool: call.name, required_scopes: [...required], missing_scopes: missing }),
        },
      );
    }
    return next();
  };

  const check: MethodHandler = async (params, ctx) => {
    const parsed = parseCheckRequest(params);
    if (!parsed.ok) throw invalidInput(parsed, 'Send { tool, scopes_held } as in the PermissionCheckRequest schema.');
    const request = parsed.value;
    const required = toolScopes.get(request.tool);
    if (required === undefined) {
      return {
        allowed: false,
        reason: `This server has no tool named ${JSON.stringify(request.tool)}.`,
      } satisfies PermissionCheckResponse;
    }
    const meta = parseRequestMeta(metaOf(params)[PERMISSIONS_ID], PERMISSIONS_ID);
    if (!meta.ok)
      throw invalidInput(meta, `Send the session_token from ${PERMISSIONS_ID}/negotiate, or leave the entry out.`);
    // A check has no effects: it reads the session without counting it as activity.
    const session = meta.value === undefined ? undefined : await loadSession(ctx, meta.value, false);
    const missing = missingScopes(required, unionScopes(ctx.authInfo?.scopes, session?.scopes));
    if (missing.length === 0) return { allowed: true } satisfies PermissionCheckResponse;
    const expired = meta.value !== undefined && session === undefined;
    const response: PermissionCheckResponse = withElevation({
      allowed: false,
      missing_scopes: missing,
      reason: `${request.tool} needs ${missing.join(', ')}${expired ? '; the session token sent has expired, negotiate again' : ''}.`,
    });
    return response;
  };

  const negotiate: MethodHandler = async (params, ctx) => {
    const parsed = parseNegotiationRequest(params);
    if (!parsed.ok) throw invalidInput(parsed, 'Send { requested_scopes } as in the ScopeNegotiationRequest schema.');
    const request = parsed.value;
    const requested = unionScopes(request.requested_scopes);
    const held = new Set(ctx.authInfo?.scopes ?? []);
    const denied: DeniedScope[] = [];
    const alreadyHeld: string[] = [];
    const ask: string[] = [];
    for (const scope of requested) {
      if (!scopes.has(scope)) denied.push({ scope, reason: 'This server declares no such scope.' });
      else if (held.has(scope)) alreadyHeld.push(scope);
      else ask.push(scope);
    }
    const decision = ask.length === 0 ? { granted: [], denied: [] } : settleDecision(ask, await policy(ask, ctx));
    const granted = unionScopes(alreadyHeld, decision.granted);
    const at = now();
    const lifetime = Math.min(request.ttl_seconds ?? maxSessionSeconds, maxSessionSeconds);
    const record: SessionRecord = {
      scopes: granted,
      expires_at: at + lifetime * 1000,
      last_used: at,
      idle_seconds: idleSeconds,
    };
    const token = randomBytes(32).toString('base64url');
    await ctx.store.set(sessionKey(keyPrefix, ctx.principal, token), sessionToJson(record), {
      ttlMs: Math.min(idleSeconds, lifetime) * 1000,
    });
    const response: ScopeNegotiationResponse = {
      granted_scopes: granted,
      denied_scopes: [...denied, ...decision.denied],
      session: {
        token,
        scopes: granted,
        expires_at: new Date(record.expires_at).toISOString(),
        inactivity_timeout_seconds: idleSeconds,
      },
    };
    return response;
  };

  const settings: Record<string, unknown> = {
    scopes: [...scopes.values()],
    session_ttl_seconds: idleSeconds,
    max_session_seconds: maxSessionSeconds,
  };
  if (elevationUrl !== undefined) settings.elevation_url = elevationUrl;

  return {
    side: 'server',
    keepsCallerState: true,
    name: PERMISSIONS_PACKAGE,
    ids: [PERMISSIONS_ID],
    settings: { version: PERMISSIONS_WIRE_VERSION, ...settings },
    peerSettings: PermissionsClientSettingsSchema,
    stage: 'permissions',
    middleware,
    methods: { check, negotiate },
    toolMeta(tool) {
      // Validates at registration, so a scope typo fails at startup, naming the tool and the scope.
      const required = requiredScopesFor(tool, PERMISSIONS_ID, scopes);
      toolScopes.set(tool.name, required);
      return { required_scopes: required };
    },
  };
}
export { registerPermissionTools, PERMISSION_TOOL_NAMES } from './tools.js';
