/**
 * Per-caller tool lists: a tool a caller may not use (`allow`) or that is
 * withheld (its upstream changed it) is not listed. The SDK's McpServer
 * lists every registered tool to everyone; the gateway wraps its
 * `tools/list` handler on the servers it creates. Remove this once the
 * SDK lets a server filter `tools/list` per request.
 */
import { ANONYMOUS_PRINCIPAL, LOCAL_PRINCIPAL, type AuthInfo } from '@ext/core';
import { principalOf } from '@ext/core/sdk-v2/server';
import type { ListToolsResult, McpServer } from '@modelcontextprotocol/server';
import { callerInput, type PolicyLookup } from './stage.js';

type ListHandler = (request: unknown, ctx: unknown) => Promise<ListToolsResult>;

/** The caller as the SDK carried it to the handler (`ctx.http.authInfo`); off HTTP, the local client and its scopes. */
function callerOf(ctx: unknown, localScopes: readonly string[]): { principal: string; authInfo: AuthInfo | undefined } {
  const http = (ctx as { http?: { authInfo?: AuthInfo } } | undefined)?.http;
  if (http === undefined) return { principal: LOCAL_PRINCIPAL, authInfo: { scopes: localScopes } };
  const principal = principalOf(http.authInfo as Parameters<typeof principalOf>[0]) ?? ANONYMOUS_PRINCIPAL;
  return { principal, authInfo: http.authInfo };
}

/** Whether `tool` is listed for the caller: not withheld, and `allow` (judged with no arguments) lets it. */
function listed(lookup: PolicyLookup, name: string, caller: ReturnType<typeof callerOf>): boolean {
  if (lookup.withheld(name) !== undefined) return false;
  const policy = lookup.policy(name);
  if (policy?.allow === undefined) return true;
  // A rule that reads the arguments cannot be judged without a call: listed, and judged when called.
  const input = callerInput(caller.principal, caller.authInfo, name, {});
  try {
    return policy.allow.evaluate(input);
  } catch {
    return true;
  }
}

/**
 * Wraps `mcp`'s `tools/list` so each caller sees only the tools it may use
 * (GW-27), the local client of a stdio server holding `localScopes`
 * (GW-35); call after registering tools.
 */
export function filterToolList(mcp: McpServer, lookup: PolicyLookup, localScopes: readonly string[] = []): void {
  const server = mcp.server as unknown as { _getRequestHandler(method: string): ListHandler | undefined };
  const original = server._getRequestHandler('tools/list');
  if (original === undefined) return;
  mcp.server.setRequestHandler('tools/list', async (request, ctx) => {
    const answer = await original(request, ctx);
    const caller = callerOf(ctx, localScopes);
    return { ...answer, tools: answer.tools.filter((tool) => listed(lookup, tool.name, caller)) };
  });
}
