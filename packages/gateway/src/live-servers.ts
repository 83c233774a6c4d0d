/**
 * The servers a gateway has connected (a 2025-era session, a stdio
 * client) that outlive a change of tools: what is registered on each, and
 * how each is given the new tools when they change.
 */
import type { ExtendedServer, Logger } from '@ext/core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import type { ToolRedaction } from './redact/tool-results.js';
import { registerGatewayTools } from './tools.js';

/** A connected server, the gateway tools registered on it, and the scopes its composition declares. */
export interface LiveServer {
  readonly server: ExtendedServer;
  tools: readonly GatewayTool[];
  readonly scopes: ReadonlySet<string>;
}

/** The scopes a composition for `tools` declares: every scope their policies name. */
export function declaredScopeNames(tools: readonly GatewayTool[]): ReadonlySet<string> {
  return new Set(tools.flatMap((tool) => tool.policy.scopes));
}

/** Removes tools registered on `mcp` (the SDK keeps the handles that remove them private). */
function removeTools(mcp: McpServer, tools: readonly GatewayTool[]): void {
  const registered = Reflect.get(mcp, '_registeredTools') as Record<string, { remove(): void } | undefined>;
  for (const tool of tools) registered[tool.name]?.remove();
}

/**
 * A server that outlives a change of tools (a 2025-era session, stdio)
 * swaps its tools for `tools`, then tells its client the list changed. A
 * tool needing a scope the server's composition was built without is
 * withheld: that composition could not check it (GW-19). Returns the names
 * withheld.
 */
export function retool(
  mcp: McpServer,
  entry: LiveServer,
  tools: readonly GatewayTool[],
  context: {
    readonly callUpstream: CallUpstream;
    readonly logger: Logger;
    readonly redaction: ToolRedaction;
    readonly policyVersion: string;
  },
): string[] {
  const usable = tools.filter((tool) => tool.policy.scopes.every((scope) => entry.scopes.has(scope)));
  try {
    removeTools(mcp, entry.tools);
    registerGatewayTools(entry.server, usable, context.callUpstream, context);
    entry.tools = usable;
    mcp.sendToolListChanged();
  } catch (error) {
    context.logger.warn('gateway: could not give a connected client the changed tools', { error: String(error) });
  }
  return tools.filter((tool) => !usable.includes(tool)).map((tool) => tool.name);
}

/** Logs, once per change, the tools connected sessions were not given, and why. */
export function reportWithheld(withheld: readonly string[][], logger: Logger): void {
  const sessions = withheld.filter((names) => names.length > 0);
  if (sessions.length === 0) return;
  const names = [...new Set(sessions.flat())].sort();
  logger.warn(
    `gateway: ${String(sessions.length)} connected session(s) were not given ${names.join(', ')}: the tools need scopes those sessions were set up without; a new session gets them`,
  );
}
