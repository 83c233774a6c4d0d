/**
 * What a protocol draft adds to tools on an extended v2 McpServer: the
 * top-level `Tool` members extensions contribute (`toolFields`), listed in
 * `tools/list`, and the `tools/call` params the core does not model, kept
 * per request for `ToolCall.params`.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ComposedServer } from '../contract/extension.js';
import { extraCallParams, withToolFields } from '../pipeline/server-adapter.js';

type Server = McpServer['server'];
type Handler = (request: { params?: unknown }, ctx: ServerContext) => unknown;

/**
 * Wraps the `tools/list` and `tools/call` handlers McpServer installs
 * (lazily, with its first tool). Returns the extra params of each call, by
 * request context: McpServer hands the same context to the tool callback.
 */
export function passToolExtras(
  inner: Server,
  composed: ComposedServer,
): WeakMap<ServerContext, Record<string, unknown>> {
  const params = new WeakMap<ServerContext, Record<string, unknown>>();
  const previous = inner.setRequestHandler.bind(inner) as (method: string, ...rest: unknown[]) => void;
  const patched = (method: string, ...rest: unknown[]): void => {
    if (method === 'tools/list' && typeof rest[0] === 'function') {
      const handler = rest[0] as Handler;
      rest[0] = async (request: { params?: unknown }, ctx: ServerContext) =>
        withToolFields(composed, await handler(request, ctx));
    }
    Reflect.apply(previous, undefined, [method, ...rest]);
    if (method === 'tools/call') recordCallParams(inner, params);
  };
  Object.defineProperty(inner, 'setRequestHandler', { value: patched, configurable: true, writable: true });
  return params;
}

/**
 * The SDK validates `tools/call` against its era's schema, which drops
 * params it does not know, before the registered handler sees it: the
 * params are read where the SDK keeps the handler, from the request as it
 * arrived. The SDK offers no accessor for that map.
 */
function recordCallParams(inner: Server, params: WeakMap<ServerContext, Record<string, unknown>>): void {
  const handlers: unknown = Reflect.get(inner, '_requestHandlers');
  const installed: unknown = handlers instanceof Map ? handlers.get('tools/call') : undefined;
  if (typeof installed !== 'function') return;
  const dispatch = installed as Handler;
  (handlers as Map<string, Handler>).set('tools/call', (request, ctx) => {
    const extra = extraCallParams(request.params);
    if (extra !== undefined) params.set(ctx, extra);
    return dispatch(request, ctx);
  });
}
