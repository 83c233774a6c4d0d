/**
 * What a protocol draft adds to tools on an extended v2 McpServer: the
 * top-level `Tool` members extensions contribute (`toolFields`), listed in
 * `tools/list`, and the `tools/call` params the core does not model, kept
 * per request for `ToolCall.params`.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ComposedServer } from '../contract/extension.js';
import { extraCallParams, withToolFields } from '../pipeline/server-adapter.js';
import { interceptHandlerRegistration, observeInstalledRequests, type Server } from './sdk-patches.js';

type Handler = (request: { params?: unknown }, ctx: ServerContext) => unknown;

/**
 * Wraps the `tools/list` and `tools/call` handlers McpServer installs
 * (lazily, with its first tool). Returns the extra params of each call, by
 * request context: McpServer hands the same context to the tool callback.
 * The SDK validates `tools/call` against its era's schema, which drops
 * params it does not know, before the handler McpServer registered sees it:
 * they are read from the request as it arrived.
 */
export function passToolExtras(
  inner: Server,
  composed: ComposedServer,
): WeakMap<ServerContext, Record<string, unknown>> {
  const params = new WeakMap<ServerContext, Record<string, unknown>>();
  const record = (request: { params?: unknown }, ctx: ServerContext): void => {
    const extra = extraCallParams(request.params);
    if (extra !== undefined) params.set(ctx, extra);
  };
  interceptHandlerRegistration(inner, (next) => (method, ...rest) => {
    if (method === 'tools/list' && typeof rest[0] === 'function') {
      const handler = rest[0] as Handler;
      rest[0] = async (request: { params?: unknown }, ctx: ServerContext) =>
        withToolFields(composed, await handler(request, ctx));
    }
    next(method, ...rest);
    if (method === 'tools/call') observeInstalledRequests(inner, 'tools/call', record);
  });
  return params;
}
