/**
 * The one local client of a gateway served over stdio (core's principal
 * `local`): the scopes `identity.stdio` grants it, and the tools whose
 * policy needs scopes it lacks, named at start so that an operator learns
 * of them before a call is refused (GW-35).
 */
import type { Logger } from '@ext/core';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayTool } from './gateway-tool.js';

/** The scopes the local client holds: what `identity.stdio.scopes` grants, else none. */
export function localScopes(identity: GatewayConfig['identity']): readonly string[] {
  return identity?.stdio?.scopes ?? [];
}

/** Each tool needing scopes `granted` lacks, with those scopes: `name (scope, scope)`. */
export function toolsBeyondScopes(tools: readonly GatewayTool[], granted: readonly string[]): string[] {
  const held = new Set(granted);
  return tools.flatMap((tool) => {
    const missing = tool.policy.scopes.filter((scope) => !held.has(scope));
    return missing.length === 0 ? [] : [`${tool.name} (${missing.join(', ')})`];
  });
}

/** Logs, once at start, the tools the local client cannot call for want of scopes, and how to grant them. */
export function warnOfScopesNotGranted(
  tools: readonly GatewayTool[],
  identity: GatewayConfig['identity'],
  logger: Logger,
): void {
  const beyond = toolsBeyondScopes(tools, localScopes(identity));
  if (beyond.length === 0) return;
  logger.warn(
    `gateway: over stdio the local client lacks scopes these tools need, so their calls are refused: ${beyond.join(', ')}; grant them with identity.stdio.scopes`,
  );
}
