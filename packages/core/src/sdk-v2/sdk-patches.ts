/**
 * Every place the v2 adapter reaches past the public surface of
 * `@modelcontextprotocol/server` 2.x (checked against 2.4). Each function
 * patches one thing on one instance, never a class, and says why the SDK has
 * no public seam for it and which upstream change would retire it. The rest
 * of the adapter calls these and touches no private field and redefines no
 * member itself; what it can do through the SDK's public API it does there.
 */
import type { McpServer, ServerContext, Transport } from '@modelcontextprotocol/server';
import { ConfigurationError } from '../contract/errors.js';

/** The low-level server under an McpServer (named by position: the class itself is marked for advanced use only). */
export type Server = McpServer['server'];

/** `Server.setRequestHandler` as the patches pass it on: a method, then what the SDK takes after it. */
export type RegisterHandler = (method: string, ...rest: unknown[]) => void;

/** A request handler as the SDK stores it: it gets the request as it arrived, before the SDK's validation. */
export type InstalledHandler = (request: { method: string; params?: unknown }, ctx: ServerContext) => Promise<unknown>;

/** The fallback request handler, as the SDK calls it. */
export type Fallback = NonNullable<Server['fallbackRequestHandler']>;

function unsupported(what: string): ConfigurationError {
  return new ConfigurationError(
    'UNSUPPORTED_SDK',
    `@ext/core/sdk-v2: cannot find ${what} of this @modelcontextprotocol/server version (supported: ^2.0.0)`,
  );
}

/** Puts `value` in place of `key` on this one object (its class is untouched), writable as it was. */
function replaceMember(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, writable: true });
}

/**
 * Patches `setRequestHandler` on this Server: `intercept` gets the current
 * one (`next`) and returns what runs in its place, so each call layers.
 *
 * No seam: McpServer installs its `tools/*` and `resources/*` handlers itself,
 * lazily, through this method; the hook that wraps every handler as it is
 * installed (`Protocol._wrapHandler`) is protected, and the Server is built
 * inside McpServer, so it cannot be subclassed.
 * Retired by: a public `getRequestHandler` (typescript-sdk issue #1757; PR
 * #1759 was closed unmerged), which would let the adapter wrap the handlers
 * once McpServer has installed them, or a public handler-wrapping option.
 */
export function interceptHandlerRegistration(
  inner: Server,
  intercept: (next: RegisterHandler) => RegisterHandler,
): void {
  const next = inner.setRequestHandler.bind(inner) as RegisterHandler;
  replaceMember(inner, 'setRequestHandler', intercept(next));
}

/** The Server's handler table (`Protocol._requestHandlers`), for the two functions below. */
function handlerTable(inner: Server): Map<string, InstalledHandler> {
  const table: unknown = Reflect.get(inner, '_requestHandlers');
  if (!(table instanceof Map)) throw unsupported('the request handlers');
  return table as Map<string, InstalledHandler>;
}

/**
 * The handler installed for `method`, or `undefined`: reads the private
 * `Protocol._requestHandlers`.
 *
 * No seam: `Protocol._getRequestHandler` is protected, and the public
 * `assertCanSetRequestHandler` only tells whether one exists.
 * Retired by: a public `getRequestHandler` (typescript-sdk issue #1757).
 */
export function installedRequestHandler(inner: Server, method: string): InstalledHandler | undefined {
  return handlerTable(inner).get(method);
}

/**
 * Has `observe` see each `method` request as it arrived, then lets the
 * installed handler run: replaces the entry in the private
 * `Protocol._requestHandlers` (a no-op when none is installed).
 *
 * No seam: the SDK validates a spec request against its era's schema, which
 * drops params it does not know, before any registered handler runs; only
 * the stored entry sees the request first, and registering again through
 * `setRequestHandler` would put the validation back in front of it.
 * Retired by: the request's params as received on `ServerContext.mcpReq`, or
 * spec schemas that keep unknown `params` members (v1's `.loose()` route).
 */
export function observeInstalledRequests(
  inner: Server,
  method: string,
  observe: (request: { params?: unknown }, ctx: ServerContext) => void,
): void {
  const table = handlerTable(inner);
  const installed = table.get(method);
  if (installed === undefined) return;
  table.set(method, (request, ctx) => {
    observe(request, ctx);
    return installed(request, ctx);
  });
}

/**
 * The identity the Server was constructed with: reads the private
 * `Server._serverInfo`.
 *
 * No seam: the Server answers it in `initialize` and stamps it on 2026-era
 * results (`_outboundServerInfo`, protected) but offers no accessor.
 * Retired by: a public read-only accessor for the server's `Implementation`.
 */
export function serverInfoOf(inner: Server): unknown {
  return Reflect.get(inner, '_serverInfo');
}

/**
 * Puts `replacement` in place of `registerTool` on this McpServer; returns
 * the original, bound.
 *
 * No seam: McpServer has no way to refuse a registration, and a tool
 * registered past the adapter would be served past every extension (core
 * SPEC, CORE-27).
 * Retired by: a registration hook (or a way to seal an McpServer's tools).
 */
export function replaceRegisterTool(server: McpServer, replacement: () => never): (...args: unknown[]) => unknown {
  // Taken untyped: the typed method carries a deprecated overload the adapter never calls.
  const original = (Reflect.get(server, 'registerTool') as (...args: unknown[]) => unknown).bind(server);
  replaceMember(server, 'registerTool', replacement);
  return original;
}

/**
 * Runs `connecting` with each transport before this Server connects to it,
 * and `connected` once it has: patches `connect` on the instance.
 * `connecting` may set the transport's `onclose`, which `Protocol.connect`
 * chains (the SDK's own pre-set handler contract).
 *
 * No seam: nothing tells a Server it was given a transport; `oninitialized`
 * comes only after a 2025-era `initialize`, never on the 2026-07-28 era's
 * per-request servers.
 * Retired by: a connection event on `Protocol` (given the transport).
 */
export function hookConnect(
  inner: Server,
  hooks: { readonly connecting: (transport: Transport) => void; readonly connected: (transport: Transport) => void },
): void {
  const connect = inner.connect.bind(inner);
  const hooked: typeof inner.connect = async (transport) => {
    hooks.connecting(transport);
    await connect(transport);
    hooks.connected(transport);
  };
  replaceMember(inner, 'connect', hooked);
}

/**
 * Tells `note` the method of each inbound request while the SDK dispatches
 * it, and `undefined` after: wraps the `onmessage` the Server set on its
 * transport (call it once connected).
 *
 * No seam: the SDK looks a request's handler (or the fallback) up
 * synchronously inside `onmessage`, and announces no dispatch. A handler set
 * before `connect` is chained, but it runs only before dispatch, not after.
 * Retired by: a fallback that can decline a method (see
 * {@link gateFallbackRequestHandler}), which is all this serves.
 */
export function observeDispatch(transport: Transport, note: (method: string | undefined) => void): void {
  const onmessage = transport.onmessage;
  if (onmessage === undefined) return;
  transport.onmessage = (message, extra) => {
    note('method' in message && typeof message.method === 'string' ? message.method : undefined);
    try {
      onmessage.call(transport, message, extra);
    } finally {
      note(undefined);
    }
  };
}

/**
 * Offers our fallback request handler only while `offered()` holds, and the
 * application's own otherwise: turns the public `fallbackRequestHandler`
 * into an accessor on the instance. A fallback the application sets, before
 * or after, is kept, and `ours` gets a reader of it to defer to.
 *
 * No seam: the property is public, but the SDK answers a method with no
 * handler -32601 before dispatch only when no fallback is set; a set fallback
 * cannot decline a method, so its -32601 would come in-band (HTTP 200 on the
 * 2026-07-28 era, where core SPEC CORE-28 asks for 404).
 * Retired by: a fallback that can decline a method (a "not handled" answer
 * the SDK turns into its own pre-dispatch -32601).
 */
export function gateFallbackRequestHandler(
  inner: Server,
  ours: (other: () => Fallback | undefined) => Fallback,
  offered: () => boolean,
): void {
  let other = inner.fallbackRequestHandler;
  const handler = ours(() => other);
  Object.defineProperty(inner, 'fallbackRequestHandler', {
    configurable: true,
    get: () => (offered() ? handler : other),
    set: (next: Fallback | undefined) => {
      other = next;
    },
  });
}
