/**
 * The client half of `@ext/permissions`: the descriptor that attaches the
 * session token to calls, and the helpers to check, negotiate and describe
 * what this client may do.
 */
import { ConfigurationError, ExtensionError, type ClientExtension, type ExtendedClient } from '@ext/core';
import { deprecatedAliases, lazyValidator, positiveIntegerOption } from '@ext/core/kit';
import { describeGrant, unionScopes, type GrantSummary } from './logic.js';
import {
  PERMISSIONS_ID,
  PERMISSIONS_PACKAGE,
  PERMISSIONS_WIRE_VERSION,
  PermissionCheckResponseSchema,
  PermissionsServerSettingsSchema,
  ScopeNegotiationResponseSchema,
  type PermissionCheckResponse,
  type PermissionsServerSettings,
  type ScopeDefinition,
  type ScopeNegotiationResponse,
  type SessionToken,
} from './schema.js';

export interface PermissionsClientOptions {
  /** Clock in milliseconds, to stop sending a session past its `expires_at` (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

interface ClientState {
  session: SessionToken | undefined;
  readonly now: () => number;
}

// Keyed by the descriptor the client composed, so each client keeps its own session.
const states = new WeakMap<ClientExtension, ClientState>();

function usable(state: ClientState): SessionToken | undefined {
  const session = state.session;
  if (session === undefined) return undefined;
  if (Date.parse(session.expires_at) <= state.now()) {
    state.session = undefined;
    return undefined;
  }
  return session;
}

/**
 * The client half: advertises the extension and attaches the session token
 * of the last {@link negotiateScopes} to every tool call.
 */
export function permissionsClient(options: PermissionsClientOptions = {}): ClientExtension {
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'permissionsClient: now must be a function returning milliseconds');
  }
  const state: ClientState = { session: undefined, now: options.now ?? Date.now };
  const extension: ClientExtension = {
    side: 'client',
    name: PERMISSIONS_PACKAGE,
    ids: [PERMISSIONS_ID],
    settings: { version: PERMISSIONS_WIRE_VERSION },
    peerSettings: PermissionsServerSettingsSchema,
    prepareCall(call, negotiated) {
      if (negotiated === undefined || call.meta[negotiated.id] !== undefined) return;
      const session = usable(state);
      if (session !== undefined) call.meta[negotiated.id] = { session_token: session.token };
    },
  };
  states.set(extension, state);
  return extension;
}

function stateOf(client: ExtendedClient, where: string): ClientState {
  const half = client.composed.extensions.find((extension) => extension.name === PERMISSIONS_PACKAGE);
  const state = half === undefined ? undefined : states.get(half);
  if (state === undefined) {
    throw new ConfigurationError('MISSING_EXTENSION', `${where}: compose permissionsClient() into this client first`);
  }
  return state;
}

function invalidResponse(method: string): ExtensionError {
  return new ExtensionError('permanent', 'INVALID_RESPONSE', `The server answered ${method} with a malformed result`);
}

// Compiled on first use: keeps import free of work.
const checkResponse = lazyValidator(PermissionCheckResponseSchema);
const negotiationResponse = lazyValidator(ScopeNegotiationResponseSchema);

/** The server's permissions settings (scopes, session timeouts), or `undefined` when it does not negotiate the extension. */
export function getPermissionsSettings(client: ExtendedClient): PermissionsServerSettings | undefined {
  return client.negotiated<PermissionsServerSettings>(PERMISSIONS_ID)?.settings;
}

/** The session the client holds (from the last negotiation), unless past its `expires_at`. */
export function currentSession(client: ExtendedClient): SessionToken | undefined {
  return usable(stateOf(client, 'currentSession'));
}

/** Forgets the session, e.g. after `SESSION_EXPIRED`. */
export function clearSession(client: ExtendedClient): void {
  stateOf(client, 'clearSession').session = undefined;
}

// The protocol may add its own `_meta` (server info) to any result; the payload is the rest.
function withoutMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...payload } = result;
  return payload;
}

function sessionMeta(id: string, session: SessionToken | undefined): Record<string, unknown> {
  return session === undefined ? {} : { _meta: { [id]: { session_token: session.token } } };
}

/**
 * Asks the server, without calling the tool and without using quota,
 * whether this client may call it now. `undefined` when the server does not
 * negotiate the extension.
 */
export async function preflight(
  client: ExtendedClient,
  tool: string,
  args?: Record<string, unknown>,
): Promise<PermissionCheckResponse | undefined> {
  const negotiated = client.negotiated(PERMISSIONS_ID);
  if (negotiated === undefined) return undefined;
  const session = usable(stateOf(client, 'preflight'));
  const params: Record<string, unknown> = {
    tool,
    scopes_held: [...(session?.scopes ?? [])],
    ...sessionMeta(negotiated.id, session),
  };
  if (args !== undefined) params.parameters = args;
  const method = `${negotiated.id}/check`;
  const result = withoutMeta(await client.request(method, params));
  if (!checkResponse().Check(result)) throw invalidResponse(method);
  return result;
}

export interface NegotiateScopesOptions {
  /** Shown to the person asked for consent. */
  readonly justification?: string | undefined;
  /** Requested session lifetime; the server may shorten it. */
  readonly ttlSeconds?: number | undefined;
}

/**
 * Asks the server for scopes. The scopes of the current session are asked
 * for again, so the new session replaces it without losing them; the new
 * session token goes with every later call. `undefined` when the server
 * does not negotiate the extension.
 */
export async function negotiateScopes(
  client: ExtendedClient,
  scopes: readonly string[],
  options: NegotiateScopesOptions = {},
): Promise<ScopeNegotiationResponse | undefined> {
  const state = stateOf(client, 'negotiateScopes');
  const negotiated = client.negotiated(PERMISSIONS_ID);
  if (negotiated === undefined) return undefined;
  const ttlSeconds =
    options.ttlSeconds === undefined
      ? undefined
      : positiveIntegerOption('negotiateScopes', 'ttlSeconds', options.ttlSeconds, options.ttlSeconds);
  const params: Record<string, unknown> = { requested_scopes: unionScopes(usable(state)?.scopes, scopes) };
  if (options.justification !== undefined) params.justification = options.justification;
  if (ttlSeconds !== undefined) params.ttl_seconds = ttlSeconds;
  const method = `${negotiated.id}/negotiate`;
  const result = withoutMeta(await client.request(method, params));
  if (!negotiationResponse().Check(result)) throw invalidResponse(method);
  state.session = result.session;
  return result;
}

/** One tool that needs scopes: whether this client may call it now, and what it lacks. */
export interface ToolPermission {
  readonly name: string;
  readonly allowed: boolean;
  readonly missingScopes: readonly string[];
  /** @deprecated Use `missingScopes`; the snake_case spelling goes in the next major. */
  readonly missing_scopes: readonly string[];
}

/** What the client can and cannot do on this server. */
export interface PermissionSummary extends GrantSummary {
  /** Per tool that needs scopes. */
  readonly tools: readonly ToolPermission[];
}

function toolPermission(name: string, missingScopes: readonly string[]): ToolPermission {
  const entry = { name, allowed: missingScopes.length === 0, missingScopes };
  return deprecatedAliases('@ext/permissions PermissionSummary.tools[]', entry, {
    missing_scopes: 'missingScopes',
  }) as ToolPermission;
}

/**
 * Describes, in sentences, what this client can and cannot do ("Can read
 * tickets. Cannot delete tickets (needs tickets:delete)."), from the
 * server's scope definitions and a pre-flight check of every tool that
 * needs scopes (so OAuth scopes the client cannot see are counted).
 * `undefined` when the server does not negotiate the extension.
 */
export async function summarize(client: ExtendedClient): Promise<PermissionSummary | undefined> {
  const settings = getPermissionsSettings(client);
  if (settings === undefined) return undefined;
  const definitions: readonly ScopeDefinition[] = settings.scopes ?? [];
  const negotiated = client.negotiated(PERMISSIONS_ID);
  const id = negotiated?.id ?? PERMISSIONS_ID;
  const listed = await client.listTools();
  const tools: ToolPermission[] = [];
  const needed = new Set<string>();
  const lacking = new Set<string>();
  for (const tool of listed) {
    const meta = tool._meta?.[id] as { required_scopes?: unknown } | undefined;
    const required = Array.isArray(meta?.required_scopes)
      ? meta.required_scopes.filter((scope): scope is string => typeof scope === 'string')
      : [];
    if (required.length === 0) continue;
    const answer = await preflight(client, tool.name);
    const missing = answer?.allowed === true ? [] : [...(answer?.missing_scopes ?? required)];
    for (const scope of required) needed.add(scope);
    for (const scope of missing) lacking.add(scope);
    tools.push(toolPermission(tool.name, missing));
  }
  const session = currentSession(client)?.scopes ?? [];
  // A scope no tool needs cannot be tested by a check: count it held when the session grants it.
  const held = definitions
    .map((scope) => scope.name)
    .filter((name) => (needed.has(name) ? !lacking.has(name) : session.includes(name)));
  return { ...describeGrant(definitions, held), tools };
}
