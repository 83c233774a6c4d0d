/**
 * The v2 server adapter (`@ext/core/sdk-v2/server`): `extendServer`
 * attaches composed server extensions to a `@modelcontextprotocol/server`
 * McpServer, on both eras, the dual-era HTTP handler serves it, and
 * `listen` or `nodeListener` put that handler on Node's `http`. Imports no
 * client package.
 */
import type { McpServer, ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { attachExtensions } from '../pipeline/attach.js';
import { runDetachedCall } from '../pipeline/detached-call.js';
import { createRequestContext, readServerIdentity } from '../pipeline/context.js';
import type { WireError } from '../contract/errors.js';
import type { ComposedServer, RequestContext, ServingServer, ToolHandler } from '../contract/extension.js';
import type { ExtendedServer, ServerAdapterOptions, ServerExtensionList, ToolConfig } from '../contract/host.js';
import { MemoryStore } from '../store/memory-store.js';
import { composedFor, perObject, rememberComposition } from '../pipeline/server-adapter.js';
import type { Store } from '../store/store.js';
import type { InferOutput, StandardSchemaV1, ToolInfo } from '../contract/types.js';
import { trackConnection } from './connection.js';
import { serveMethods, serveNamedMethods } from './methods.js';
import { guardRawRegistration, routeWireErrors } from './registration.js';
import { requestFacts } from './request-context.js';
import { serveExtensionResources } from './resources.js';
import { serverInfoOf } from './sdk-patches.js';
import { passToolExtras } from './tool-extras.js';
import { registerTool, type ToolHost } from './tools.js';

// Made once per composition and shared by every server built from it (the
// 2026-07-28 era builds a server per request, behind createMcpHandler):
// the default store, or state would vanish between per-request servers.
const defaultStore = perObject((_composed: ComposedServer): Store => new MemoryStore());

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

// What a composition advertises, frozen, as every server built from it holds the same object.
// A copy: the settings objects belong to the extensions, which are not ours to freeze.
const advertised = perObject((composed: ComposedServer) =>
  deepFreeze(structuredClone(composed.capabilities()) as NonNullable<ServerCapabilities['extensions']>),
);

/**
 * Attaches composed server extensions to a v2 `McpServer`: advertises them in
 * `capabilities.extensions` (both `initialize` and `server/discover`), serves
 * their methods, and returns a server whose `registerTool` runs calls through
 * the extension pipeline. Call it before `connect`; behind `createMcpHandler`
 * call it in the factory with a composition made once (`composeServer`).
 */
export function extendServer(
  server: McpServer,
  extensions: ServerExtensionList | ComposedServer,
  options: ServerAdapterOptions = {},
): ExtendedServer {
  const composed = composedFor(extensions, options);
  const store = options.store ?? defaultStore(composed);
  const logger = options.logger ?? composed.logger;
  attachExtensions(composed, store, logger, (call) => runDetachedCall(composed, store, logger, call));
  const inner = server.server;
  inner.registerCapabilities({ extensions: advertised(composed) });
  const raw = guardRawRegistration(server);
  const parked: WeakMap<ServerContext, WireError> = routeWireErrors(inner, raw.allowed);
  const callParams = passToolExtras(inner, composed);
  rememberComposition(server, composed);
  const connection = trackConnection(inner);
  // The SDK keeps the identity private; the manifest needs it.
  const serving: ServingServer = { composed, identity: readServerIdentity(serverInfoOf(inner)) };

  const contextFor = (ctx: ServerContext): RequestContext =>
    createRequestContext(requestFacts(inner, ctx, composed, store, options, connection.current(), serving));
  serveMethods(inner, composed, contextFor, () => connection.dispatching());
  serveNamedMethods(inner, composed, contextFor);
  serveExtensionResources(server, composed, contextFor);
  const host: ToolHost = { composed, register: raw.register, parked, callParams, contextFor };

  return {
    sdk: 'v2',
    composed,
    store,
    registerTool<S extends StandardSchemaV1 | undefined>(
      name: string,
      config: ToolConfig<S>,
      handler: ToolHandler<[S] extends [StandardSchemaV1] ? InferOutput<S> : Record<string, unknown>>,
    ): ToolInfo {
      return registerTool(host, name, config, handler as unknown as ToolHandler);
    },
  };
}

export { createHttpHandler } from './http.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES } from './http.js';
export type { DualEraHttpHandler, HttpHandlerOptions, HttpRequestOptions, NotifyingHttpHandler } from './http.js';
export { listen } from '../http/listen.js';
export type { ListenOptions, Listening, ServableHandler } from '../http/listen.js';
export { nodeListener, refuseForeignRequest } from '../http/node-listener.js';
export { isLoopbackAddress } from '../http/http-origin.js';
export { principalOf } from '../http/http-identity.js';
export type { RequestSourceOptions } from '../http/http-origin.js';
export type {
  FetchHandler,
  FetchHandlerOptions,
  NodeListenerOptions,
  NodeRequestListener,
} from '../http/node-listener.js';
export { toFetchRequest, writeFetchResponse } from '../http/node-http.js';
export type { FetchRequestOptions, NodeRequest } from '../http/node-http.js';
