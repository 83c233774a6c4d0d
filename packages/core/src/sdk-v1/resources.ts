/**
 * Extension resources on a v1 McpServer (core SPEC, CORE-38): `resources/read`
 * of a URI a composed half owns is answered by that half, any other URI by
 * the handler the application installed (McpServer's own, for
 * `registerResource`), whichever was installed first.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { toWireError } from '../contract/errors.js';
import { resourceRouter, type ResourceRouter } from '../pipeline/extension-resources.js';
import { requestContext } from './request-context.js';
import { installedRequestHandler, interceptHandlerRegistration } from './sdk-patches.js';
import { methodOf } from './shared.js';
import type { Extra, ServerState } from './state.js';

type ReadHandler = (request: { params?: unknown }, extra: Extra) => unknown;

const READ = 'resources/read';

// Never listed: it is removed as soon as it is registered.
const PLACEHOLDER_URI = 'urn:x-ext-core:resource-handlers';

/** `app` behind the composed halves' resources: their URIs never reach it. */
function routed(state: ServerState, router: ResourceRouter, app: ReadHandler): ReadHandler {
  return async (request, extra) => {
    const owner = router.ownerOf(request.params);
    if (owner === undefined) return app(request, extra);
    try {
      return await router.read(owner, request.params, requestContext(state, extra));
    } catch (error) {
      const wire = toWireError(error);
      throw new McpError(wire.code, wire.message, wire.data);
    }
  };
}

/** Whether a handler for `method` is installed (the SDK's public check throws when one is). */
function hasRequestHandler(server: McpServer, method: string): boolean {
  try {
    server.server.assertCanSetRequestHandler(method);
    return false;
  } catch {
    return true;
  }
}

/**
 * McpServer installs its resource handlers (and the `resources` capability)
 * with its first `registerResource`, and has no other public way to: one
 * registered and removed at once leaves them in place with nothing listed,
 * so `resources/list` and a `resources/read` for the application's
 * resources exist even when it has none, and a later `registerResource`
 * finds them. Before `connect` the removal notifies no one. The checks come
 * first so that a handler the application installed itself fails the call
 * before anything is registered.
 */
function installMcpServerResources(server: McpServer): void {
  server.server.assertCanSetRequestHandler('resources/list');
  server.server.assertCanSetRequestHandler('resources/templates/list');
  server.registerResource('resource handlers', PLACEHOLDER_URI, {}, () => ({ contents: [] })).remove();
}

/**
 * Serves the composed halves' resources beside the application's: every
 * `resources/read` handler, installed before or after, sits behind the
 * router. Nothing changes when no half serves resources.
 */
export function serveExtensionResources(state: ServerState): void {
  const router = resourceRouter(state.composed);
  if (router === undefined) return;
  const inner = state.server.server;
  interceptHandlerRegistration(inner, (next) => (schema, handler) => {
    next(schema, methodOf(schema) === READ ? routed(state, router, handler as ReadHandler) : handler);
  });
  if (hasRequestHandler(state.server, READ)) {
    // The application installed one before extendServer: it goes behind the router too.
    const installed = installedRequestHandler(inner, READ);
    inner.setRequestHandler(
      ReadResourceRequestSchema,
      async (request, extra) => (await installed(request, extra)) as ReadResourceResult,
    );
    return;
  }
  installMcpServerResources(state.server);
}
