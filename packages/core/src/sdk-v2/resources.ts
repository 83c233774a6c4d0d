/**
 * Extension resources on a v2 McpServer, both eras (core SPEC, CORE-38):
 * `resources/read` of a URI a composed half owns is answered by that half,
 * any other URI by the handler the application installed (McpServer's own,
 * for `registerResource`), whichever was installed first.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { ConfigurationError } from '../contract/errors.js';
import type { ComposedServer, RequestContext } from '../contract/extension.js';
import { resourceRouter, type ResourceRouter } from '../pipeline/extension-resources.js';
import { toProtocolError } from './registration.js';

/** The low-level server under an McpServer (named by position: the class itself is marked for advanced use only). */
type Server = McpServer['server'];

type ReadHandler = (request: { params?: unknown }, ctx: ServerContext) => unknown;

const READ = 'resources/read';

const unsupported = (what: string): ConfigurationError =>
  new ConfigurationError(
    'UNSUPPORTED_SDK',
    `@ext/core/sdk-v2: cannot find ${what} of this @modelcontextprotocol/server version (supported: ^2.0.0)`,
  );

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

/** The `resources/read` handler already installed (the SDK keeps its table private), or `undefined`. */
function installedRead(inner: Server): ReadHandler | undefined {
  const handlers: unknown = Reflect.get(inner, '_requestHandlers');
  if (!(handlers instanceof Map)) throw unsupported('the request handlers');
  const handler: unknown = handlers.get(READ);
  return typeof handler === 'function' ? (handler as ReadHandler) : undefined;
}

/**
 * McpServer installs its resource handlers (and the `resources` capability)
 * on the first `registerResource`; installing them now gives `resources/list`
 * and a `resources/read` for the application's resources even when it has
 * none, and a later `registerResource` finds them in place.
 */
function installMcpServerResources(server: McpServer): void {
  const install: unknown = Reflect.get(server, 'setResourceRequestHandlers');
  if (typeof install !== 'function') throw unsupported('the resource handlers');
  Reflect.apply(install, server, []);
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
  const set = inner.setRequestHandler.bind(inner) as (method: string, ...rest: unknown[]) => void;
  const wrapped = (method: string, ...rest: unknown[]): void => {
    // Only the two-argument form (a spec method and its handler) is rerouted; a schema-first one is left as given.
    if (method === READ && rest.length === 1 && typeof rest[0] === 'function')
      set(method, routed(router, contextFor, rest[0] as ReadHandler));
    else set(method, ...rest);
  };
  Object.defineProperty(inner, 'setRequestHandler', { value: wrapped, configurable: true, writable: true });
  const existing = installedRead(inner);
  // An application handler installed before extendServer goes behind the router too.
  if (existing !== undefined) wrapped(READ, existing);
  else installMcpServerResources(server);
}
