/**
 * Extension resources on a v1 McpServer (core SPEC, CORE-38): `resources/read`
 * of a URI a composed half owns is answered by that half, any other URI by
 * the handler the application installed (McpServer's own, for
 * `registerResource`), whichever was installed first.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError, toWireError } from '../contract/errors.js';
import { resourceRouter, type ResourceRouter } from '../pipeline/extension-resources.js';
import { asRecord } from '../kit/records.js';
import { installedHandler } from './raw-registration.js';
import { requestContext } from './request-context.js';
import type { Extra, ServerState } from './state.js';

type ReadHandler = (request: { params?: unknown }, extra: Extra) => unknown;

const READ = 'resources/read';

/** The method a v1 request schema is for (`shape.method.value`). */
function methodOf(schema: unknown): unknown {
  return asRecord(asRecord(asRecord(schema)?.shape)?.method)?.value;
}

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

/**
 * McpServer installs its resource handlers (and the `resources` capability)
 * on the first `registerResource`; installing them now gives `resources/list`
 * and a `resources/read` for the application's resources even when it has
 * none, and a later `registerResource` finds them in place.
 */
function installMcpServerResources(server: McpServer): void {
  const install: unknown = Reflect.get(server, 'setResourceRequestHandlers');
  if (typeof install !== 'function') {
    throw new ConfigurationError(
      'UNSUPPORTED_SDK',
      '@ext/core/sdk-v1: cannot install the resource handlers of this @modelcontextprotocol/sdk version (supported: >=1.29.0 <2)',
    );
  }
  Reflect.apply(install, server, []);
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
  const set = inner.setRequestHandler.bind(inner) as (schema: unknown, handler: ReadHandler) => void;
  const wrapped = (schema: unknown, handler: ReadHandler): void => {
    set(schema, methodOf(schema) === READ ? routed(state, router, handler) : handler);
  };
  Object.defineProperty(inner, 'setRequestHandler', { value: wrapped, configurable: true, writable: true });
  const handlers: unknown = Reflect.get(inner, '_requestHandlers');
  if (handlers instanceof Map && handlers.has(READ)) {
    // The application installed one before extendServer: it goes behind the router too.
    wrapped(ReadResourceRequestSchema, installedHandler(inner, READ));
    return;
  }
  installMcpServerResources(state.server);
}
