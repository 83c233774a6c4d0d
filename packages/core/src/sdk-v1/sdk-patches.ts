/**
 * Every place the v1 adapter reaches past the public surface of
 * `@modelcontextprotocol/sdk` 1.x (checked against 1.32). Each function
 * patches one thing on one instance, never a class, and says why the SDK has
 * no public seam for it and which upstream change would retire it. The rest
 * of the adapter calls these and touches no private field and redefines no
 * member itself; what it can do through the SDK's public API it does there.
 *
 * The 1.x line takes fixes only; where the retiring change is named for the
 * 2.x line, it would have to be backported.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ConfigurationError } from '../contract/errors.js';
import type { Extra } from './state.js';

/** The low-level server under an McpServer. */
type Server = McpServer['server'];

/** `Server.setRequestHandler` as the patches pass it on: v1 routes by a request schema. */
export type RegisterHandler = (schema: unknown, handler: unknown) => void;

/** A request handler as the SDK keeps it. */
export type RawHandler = (request: unknown, extra: Extra) => Promise<unknown>;

/** Puts `value` in place of `key` on this one object (its class is untouched), writable as it was. */
function replaceMember(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, writable: true });
}

/**
 * The handler installed for `method`: reads the private
 * `Protocol._requestHandlers`. McpServer installs `tools/call`, `tools/list`
 * and `resources/read` itself, and `initialize` is the Server's own; the
 * adapter wraps them (McpServer, for one, turns every error a tool callback
 * throws into an `isError` result, where the pipeline's protocol errors must
 * stay JSON-RPC errors).
 *
 * No seam: v1's `Protocol` offers no accessor for its handlers, only
 * `assertCanSetRequestHandler`, which tells whether one exists.
 * Retired by: a public `getRequestHandler` (asked for the 2.x line in
 * typescript-sdk issue #1757; PR #1759 was closed unmerged).
 */
export function installedRequestHandler(server: Server, method: string): RawHandler {
  const handlers: unknown = Reflect.get(server, '_requestHandlers');
  const handler: unknown = handlers instanceof Map ? handlers.get(method) : undefined;
  if (typeof handler !== 'function') {
    throw new ConfigurationError(
      'UNSUPPORTED_SDK',
      `@ext/core/sdk-v1: cannot find the ${method} handler of this @modelcontextprotocol/sdk version (supported: >=1.29.0 <2)`,
    );
  }
  return handler as RawHandler;
}

/**
 * Patches `setRequestHandler` on this Server: `intercept` gets the current
 * one (`next`) and returns what runs in its place, so each call layers.
 *
 * No seam: McpServer installs its `tools/*` and `resources/*` handlers
 * itself, lazily, through this method, and v1 has no hook that sees a
 * handler as it is installed.
 * Retired by: a public handler accessor (above), which would let the adapter
 * wrap what McpServer installed instead of catching it on the way in.
 */
export function interceptHandlerRegistration(
  inner: Server,
  intercept: (next: RegisterHandler) => RegisterHandler,
): void {
  const next = inner.setRequestHandler.bind(inner) as RegisterHandler;
  replaceMember(inner, 'setRequestHandler', intercept(next));
}

/**
 * Puts `refuse` in place of McpServer's `registerTool` and `tool` on this
 * instance; returns the original `registerTool`, bound.
 *
 * No seam: McpServer has no way to refuse a registration, and a tool
 * registered past the adapter would be served past every extension (core
 * SPEC, CORE-27).
 * Retired by: a registration hook (or a way to seal an McpServer's tools).
 */
export function replaceToolRegistration(
  server: McpServer,
  refuse: (what: string) => () => never,
): McpServer['registerTool'] {
  const original = server.registerTool.bind(server);
  replaceMember(server, 'registerTool', refuse('McpServer.registerTool'));
  replaceMember(server, 'tool', refuse('McpServer.tool'));
  return original;
}

/**
 * The identity the Server was constructed with: reads the private
 * `Server._serverInfo`.
 *
 * No seam: the Server answers it in `initialize` but offers no accessor.
 * Retired by: a public read-only accessor for the server's `Implementation`.
 */
export function serverInfoOf(inner: Server): unknown {
  return Reflect.get(inner, '_serverInfo');
}

/**
 * Runs `connecting` with each transport before this Server connects to it:
 * patches `connect` on the instance. `connecting` may set the transport's
 * `onclose`, which `Protocol.connect` chains.
 *
 * No seam: nothing tells a Server it was given a transport (`oninitialized`
 * comes only after the client's `initialized`, and without it).
 * Retired by: a connection event on `Protocol` (given the transport).
 */
export function hookConnect(inner: Server, connecting: (transport: Transport) => void): void {
  const connect = inner.connect.bind(inner);
  const hooked: typeof inner.connect = async (transport) => {
    connecting(transport);
    await connect(transport);
  };
  replaceMember(inner, 'connect', hooked);
}
