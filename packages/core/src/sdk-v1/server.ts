/**
 * The v1 server adapter: `extendServer` attaches composed server extensions
 * to a `@modelcontextprotocol/sdk` McpServer (the 2025 era).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { attachExtensions } from '../pipeline/attach.js';
import { readServerIdentity } from '../pipeline/context.js';
import { ConfigurationError, toWireError } from '../contract/errors.js';
import type { ComposedServer, ToolHandler } from '../contract/extension.js';
import type { ExtendedServer, ServerAdapterOptions, ServerExtensionList } from '../contract/host.js';
import { MemoryStore } from '../store/memory-store.js';
import { perCapabilities } from '../negotiation/negotiation.js';
import { composedFor, rememberComposition } from '../pipeline/server-adapter.js';
import { assertNoToolsYet, guardRawRegistration } from './raw-registration.js';
import { requestContext, trackConnection, trackProtocolVersion } from './request-context.js';
import { serveExtensionResources } from './resources.js';
import { serverInfoOf } from './sdk-patches.js';
import { methodSchema } from './shared.js';
import type { ServerState } from './state.js';
import { registerTool } from './tools.js';

/**
 * Serves every composed `<id>/<verb>`; failures go out as JSON-RPC errors
 * carrying the structured error. Named methods (CORE-40) belong to the
 * 2026-07-28 era, which SDK v1 does not speak: they stay unknown, unless
 * their extension defines them on the 2025 era too (`legacy`).
 */
function registerMethods(state: ServerState): void {
  for (const { method, handler, named, legacy } of state.composed.methods) {
    if (named === true && legacy !== true) continue;
    state.server.server.setRequestHandler(methodSchema(method), async (request, extra) => {
      try {
        return await state.composed.runMethod(method, request.params ?? {}, requestContext(state, extra), handler);
      } catch (error) {
        const wire = toWireError(error);
        throw new McpError(wire.code, wire.message, wire.data);
      }
    });
  }
}

/**
 * Attaches extensions to a v1 `McpServer`: advertises them in
 * `capabilities.extensions`, serves their methods, and returns a server
 * whose `registerTool` runs calls through the extension pipeline. Call it
 * before `connect`.
 */
export function extendServer(
  server: McpServer,
  extensions: ServerExtensionList | ComposedServer,
  options: ServerAdapterOptions = {},
): ExtendedServer {
  if (server.isConnected()) {
    throw new ConfigurationError('ALREADY_CONNECTED', 'extendServer: call it before server.connect(transport)');
  }
  assertNoToolsYet(server);
  const composed = composedFor(extensions, options);
  const state: ServerState = {
    server,
    composed,
    store: options.store ?? new MemoryStore(),
    logger: options.logger ?? composed.logger,
    options,
    protocolVersion: undefined,
    // Negotiated against the client's `initialize` capabilities, once per capabilities object.
    negotiation: perCapabilities(
      () => server.server.getClientCapabilities(),
      (capabilities) => composed.negotiate(capabilities?.extensions),
    ),
    connection: undefined,
    // The SDK keeps the identity private; the manifest needs it.
    serving: { composed, identity: readServerIdentity(serverInfoOf(server.server)) },
    tools: new Map(),
    raw: guardRawRegistration(server),
  };
  server.server.registerCapabilities({ extensions: composed.capabilities() });
  rememberComposition(server, composed);
  attachExtensions(composed, state.store, state.logger);
  registerMethods(state);
  serveExtensionResources(state);
  trackProtocolVersion(state);
  trackConnection(state);
  return {
    sdk: 'v1',
    composed,
    store: state.store,
    registerTool: (name, config, handler) => registerTool(state, name, config, handler as ToolHandler),
  };
}
