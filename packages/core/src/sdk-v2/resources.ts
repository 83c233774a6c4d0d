/**
 * Extension resources on a v2 McpServer, both eras (core SPEC, CORE-38):
 * `resources/read` of a URI a composed half owns is answered by that half,
 * any other URI by the handler the application installed (McpServer's own,
 * for `registerResource`), whichever was installed first.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ComposedServer, RequestContext } from '../contract/extension.js';
import { resourceRouter, type ResourceRouter } from '../pipeline/extension-resources.js';
import { toProtocolError } from './registration.js';
import { installedRequestHandler, interceptHandlerRegistration, type RegisterHandler } from './sdk-patches.js';

type ReadHandler = (request: { params?: unknown }, ctx: ServerContext) => unknown;

const READ = 'resources/read';

// Never listed: it is removed as soon as it is registered.
const PLACEHOLDER_URI = 'urn:x-ext-core:resource-handlers';

/** `app` behind the composed halves' resources: their URIs never reach it. */
function routed(
  router: ResourceRouter,
  contextFor: (ctx: ServerContext) => RequestContext,
  app: ReadHandler,
): ReadHandler {
  return async (request, ctx) => {
    const owner = router.ownerOf(request.params);
    if (owner === undefined) return app(request, ctx);
    try {
      return await router.read(owner, request.params, contextFor(ctx));
    } catch (error) {
      throw toProtocolError(error);
    }
  };
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
export function serveExtensionResources(
  server: McpServer,
  composed: ComposedServer,
  contextFor: (ctx: ServerContext) => RequestContext,
): void {
  const router = resourceRouter(composed);
  if (router === undefined) return;
  const inner = server.server;
  interceptHandlerRegistration(inner, (next) => (method, ...rest) => {
    // Only the two-argument form (a spec method and its handler) is rerouted; a schema-first one is left as given.
    if (method === READ && rest.length === 1 && typeof rest[0] === 'function')
      next(method, routed(router, contextFor, rest[0] as ReadHandler));
    else next(method, ...rest);
  });
  const existing = installedRequestHandler(inner, READ);
  // An application handler installed before extendServer goes behind the router too.
  if (existing !== undefined) (inner.setRequestHandler.bind(inner) as RegisterHandler)(READ, existing);
  else installMcpServerResources(server);
}
