import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type McpServer,
  type ServerCapabilities,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { attachExtensions } from '../attach.js';
import { composeServer, type ComposedServer } from '../compose.js';
import { createCallContext, createRequestContext, readServerIdentity, type RequestFacts } from '../context.js';
import { ConfigurationError, WireError, toWireError } from '../errors.js';
import { resolveCaller } from '../identity.js';
import { validateArguments } from '../validate.js';
import type { ExtendedServer, ServerAdapterOptions, ServerExtensionList, ToolConfig } from '../host.js';
import { MemoryStore } from '../memory-store.js';
import type { Store } from '../store.js';
import type {
  AuthInfo,
  ConnectionChannel,
  ElicitationRequest,
  ElicitationResponse,
  InferOutput,
  MethodHandler,
  ProtocolEra,
  RequestContext,
  ServingServer,
  StandardSchemaV1,
  ToolHandler,
  ToolInfo,
} from '../types.js';
import { asRecord } from './shared.js';

/** The low-level server under an McpServer (named by position: the class itself is marked for advanced use only). */
type Server = McpServer['server'];

/**
 * What is made once per composition and shared by every server built from
 * it: the 2026-07-28 era builds a server per request (createMcpHandler).
 */
function perComposition<T>(make: (composed: ComposedServer) => T): (composed: ComposedServer) => T {
  const made = new WeakMap<ComposedServer, T>();
  return (composed) => {
    if (made.has(composed)) return made.get(composed) as T;
    const value = make(composed);
    made.set(composed, value);
    return value;
  };
}

// Shared, or state would vanish between per-request servers.
const defaultStore = perComposition((): Store => new MemoryStore());

function toProtocolError(error: unknown): ProtocolError {
  const wire = toWireError(error);
  return new ProtocolError(wire.code, wire.message, wire.data);
}

interface PeerView {
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  /** `undefined` when the client's capabilities cannot be known (legacy stateless HTTP). */
  readonly capabilities: ClientCapabilities | undefined;
}

/**
 * What the client declared for this request: on 2026-07-28 the request's own
 * envelope; on the legacy era the `initialize` state of this instance, which
 * a stateless per-request instance never saw.
 */
function readPeer(inner: Server, ctx: ServerContext): PeerView {
  const envelope = asRecord(ctx.mcpReq.envelope);
  if (envelope !== undefined) {
    const version = envelope[PROTOCOL_VERSION_META_KEY];
    return {
      era: 'modern',
      protocolVersion: typeof version === 'string' ? version : undefined,
      capabilities: asRecord(envelope[CLIENT_CAPABILITIES_META_KEY]),
    };
  }
  // The accessors are deprecated in favour of the envelope, which the legacy era does not have.
  /* eslint-disable @typescript-eslint/no-deprecated */
  return {
    era: 'legacy',
    protocolVersion: inner.getNegotiatedProtocolVersion(),
    capabilities: inner.getClientCapabilities(),
  };
  /* eslint-enable @typescript-eslint/no-deprecated */
}

function toAuthInfo(ctx: ServerContext): AuthInfo | undefined {
  const info = ctx.http?.authInfo;
  return info && { clientId: info.clientId === '' ? undefined : info.clientId, scopes: info.scopes, extra: info.extra };
}

function elicitFor(ctx: ServerContext, peer: PeerView): RequestFacts['elicit'] {
  // 2026-07-28 has no server-to-client requests (input_required replaces them).
  if (peer.era !== 'legacy' || peer.capabilities?.elicitation === undefined) return undefined;
  return async (request: ElicitationRequest): Promise<ElicitationResponse> => {
    const requestedSchema = request.requestedSchema as unknown as ElicitRequestFormParams['requestedSchema'];
    // The SDK sends this request unrelated to the call unless told, so on the optional standalone GET stream,
    // and drops it when the client opened none; related, it travels on the call's own stream (CORE-35).
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the legacy era's way to ask; guarded above
    const answer = await ctx.mcpReq.elicitInput(
      { mode: 'form', message: request.message, requestedSchema },
      { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal },
    );
    return { action: answer.action, content: answer.content };
  };
}

function inputRoundFor(ctx: ServerContext, peer: PeerView): RequestFacts['inputRound'] {
  // The legacy era asks with a server-to-client request instead (elicitFor).
  if (peer.era !== 'modern' || peer.capabilities?.elicitation === undefined) return undefined;
  const responses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState();
  return {
    responses: typeof responses === 'object' ? responses : {},
    requestState: typeof state === 'string' ? state : undefined,
  };
}

function requestFacts(
  inner: Server,
  ctx: ServerContext,
  composed: ComposedServer,
  store: Store,
  options: ServerAdapterOptions,
  connection: ConnectionChannel | undefined,
  serving: ServingServer,
): RequestFacts {
  const peer = readPeer(inner, ctx);
  const peerExtensions = peer.capabilities === undefined ? undefined : (asRecord(peer.capabilities.extensions) ?? {});
  const token = ctx.mcpReq._meta?.progressToken;
  const authInfo = toAuthInfo(ctx);
  return {
    sdk: 'v2',
    era: peer.era,
    protocolVersion: peer.protocolVersion,
    requestId: ctx.mcpReq.id,
    sessionId: ctx.sessionId,
    authInfo,
    // The SDK sets `ctx.http` for every request that came over HTTP, and only for those.
    identity: resolveCaller({ rawAuthInfo: ctx.http?.authInfo, authInfo, overHttp: ctx.http !== undefined }),
    peerExtensions,
    negotiation: composed.negotiate(peerExtensions),
    signal: ctx.mcpReq.signal,
    logger: options.logger ?? composed.logger,
    store,
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
    notify: (method, params) => ctx.mcpReq.notify({ method, params }),
    elicit: elicitFor(ctx, peer),
    inputRound: inputRoundFor(ctx, peer),
    // Only a legacy-era client seen at `initialize` is on a connection that outlives the request.
    connection: peer.era === 'legacy' && peer.capabilities !== undefined ? connection : undefined,
    server: serving,
    sdkContext: ctx,
  };
}

/** What `trackConnection` learns about the instance's link. */
interface ConnectionView {
  /** The connection, once `connect` ran. */
  current(): ConnectionChannel | undefined;
  /** The method of the request being dispatched right now, synchronously (see `serveMethods`). */
  dispatching(): string | undefined;
}

/**
 * Gives each connection of this instance a channel for notifications tied to
 * no request and a signal aborted when it closes. The Protocol keeps a
 * transport `onclose` set before `connect` and calls it first, so chaining
 * it there sees every close, whoever closes. It also notes the method of
 * each inbound request while the SDK dispatches it: the SDK looks its
 * handler up synchronously inside the transport's `onmessage`.
 */
function trackConnection(inner: Server): ConnectionView {
  let current: ConnectionChannel | undefined;
  let dispatching: string | undefined;
  const connect = inner.connect.bind(inner);
  const tracked: typeof inner.connect = async (transport) => {
    // Made only when someone reads the signal: the 2026-07-28 era connects a
    // server per request and nothing there ever reads it.
    let closed: AbortController | undefined;
    let isClosed = false;
    const previous = transport.onclose;
    transport.onclose = () => {
      isClosed = true;
      closed?.abort();
      previous?.();
    };
    current = {
      get signal() {
        if (closed === undefined) {
          closed = new AbortController();
          if (isClosed) closed.abort();
        }
        return closed.signal;
      },
      notify: (method, params) => inner.notification({ method, params }),
    };
    await connect(transport);
    const onmessage = transport.onmessage;
    if (onmessage === undefined) return;
    transport.onmessage = (message, extra) => {
      dispatching = 'method' in message && typeof message.method === 'string' ? message.method : undefined;
      try {
        onmessage.call(transport, message, extra);
      } finally {
        dispatching = undefined;
      }
    };
  };
  Object.defineProperty(inner, 'connect', { value: tracked, configurable: true, writable: true });
  return { current: () => current, dispatching: () => dispatching };
}

type ToolsCallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>;

/**
 * McpServer turns everything a tool callback throws into an `isError`
 * result, but a `WireError` from the pipeline (e.g. -32021) must stay a
 * JSON-RPC error. The tool callback parks it by request context, and this
 * wrapper around McpServer's own `tools/call` handler rethrows it. The wrap
 * is installed where McpServer registers that handler (lazily, on its first
 * tool), so everything else McpServer does on `tools/call` is kept.
 */
function routeWireErrors(inner: Server, allowed: () => boolean): WeakMap<ServerContext, WireError> {
  const parked = new WeakMap<ServerContext, WireError>();
  try {
    inner.assertCanSetRequestHandler('tools/call');
  } catch (cause) {
    throw new ConfigurationError(
      'TOOLS_REGISTERED_TOO_EARLY',
      `extendServer must be called before any tool is registered on the McpServer (${String(cause)})`,
    );
  }
  const original = inner.setRequestHandler.bind(inner);
  const wrap =
    (handler: ToolsCallHandler): ToolsCallHandler =>
    async (request, ctx) => {
      const result = await handler(request, ctx);
      const wire = parked.get(ctx);
      if (wire !== undefined) throw toProtocolError(wire);
      return result;
    };
  const patched = (method: string, ...rest: unknown[]): void => {
    if (method === 'tools/call' && !allowed()) throw rawRegistration('server.server.setRequestHandler("tools/call")');
    if (method === 'tools/call' && typeof rest[0] === 'function') rest[0] = wrap(rest[0] as ToolsCallHandler);
    Reflect.apply(original, undefined, [method, ...rest]);
  };
  Object.defineProperty(inner, 'setRequestHandler', { value: patched, configurable: true, writable: true });
  return parked;
}

/** The error for a tool registered past the pipeline (core SPEC, CORE-27). */
function rawRegistration(what: string): ConfigurationError {
  return new ConfigurationError(
    'RAW_TOOL_REGISTRATION',
    `${what} on an extended McpServer would serve a tool past every extension (no confirmation, no permissions): register tools on the server extendServer returned (extended.registerTool)`,
  );
}

/**
 * Closes the raw McpServer's ways to register a tool once it is extended
 * (its `registerTool`, and `tools/call` on the low-level server): each
 * throws at once. Returns the original `registerTool` and a guard under
 * which the adapter itself registers.
 */
function guardRawRegistration(server: McpServer): {
  readonly register: McpServer['registerTool'];
  readonly allowed: () => boolean;
} {
  // Taken untyped: the typed method carries a deprecated overload the adapter never calls.
  const original = Reflect.get(server, 'registerTool') as (...args: unknown[]) => unknown;
  let depth = 0;
  const register = ((...args: unknown[]) => {
    depth++;
    try {
      return Reflect.apply(original, server, args);
    } finally {
      depth--;
    }
  }) as McpServer['registerTool'];
  const refuse = (): never => {
    throw rawRegistration('McpServer.registerTool');
  };
  Object.defineProperty(server, 'registerTool', { value: refuse, configurable: true, writable: true });
  return { register, allowed: () => depth > 0 };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

// What a composition advertises, frozen, as every server built from it holds the same object.
// A copy: the settings objects belong to the extensions, which are not ours to freeze.
const advertised = perComposition((composed) =>
  deepFreeze(structuredClone(composed.capabilities()) as NonNullable<ServerCapabilities['extensions']>),
);

// The extension methods of a composition, by method name.
const methodTable = perComposition(
  (composed): ReadonlyMap<string, MethodHandler> =>
    new Map(composed.methods.map((entry) => [entry.method, entry.handler])),
);

/**
 * Serves the composition's methods through one fallback handler that looks
 * the method up, instead of one `setRequestHandler` per method: the
 * 2026-07-28 era builds a server for every request, and registering each
 * extension method (16 with every package composed) on each of them cost
 * more than looking one up. A handler the author registers for a method
 * still wins (the SDK consults its own table first); a fallback installed
 * before or after this one still answers the methods the composition does
 * not serve.
 *
 * The fallback is offered only while a method the composition serves is
 * being dispatched: for any other method the SDK then finds no handler and
 * answers -32601 itself, before dispatch, which on 2026-07-28 HTTP is a
 * 404 (core SPEC, CORE-28), as from a server with nothing composed.
 */
function serveMethods(
  inner: Server,
  composed: ComposedServer,
  contextFor: (ctx: ServerContext) => RequestContext,
  dispatching: () => string | undefined,
): void {
  const table = methodTable(composed);
  if (table.size === 0) return;
  let other = inner.fallbackRequestHandler;
  const ours: NonNullable<Server['fallbackRequestHandler']> = async (request, ctx) => {
    const handler = table.get(request.method);
    if (handler === undefined) {
      if (other !== undefined) return other(request, ctx);
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    }
    try {
      // Extension payloads are validated by the extension itself (TypeBox, at its boundary).
      return await composed.runMethod(request.method, { ...asRecord(request.params) }, contextFor(ctx), handler);
    } catch (error) {
      throw toProtocolError(error);
    }
  };
  Object.defineProperty(inner, 'fallbackRequestHandler', {
    configurable: true,
    get: () => {
      const method = dispatching();
      // Outside a dispatch (someone reading the property) the whole fallback is the honest answer.
      if (method === undefined || table.has(method)) return ours;
      return other;
    },
    set: (handler: Server['fallbackRequestHandler']) => {
      other = handler;
    },
  });
}

interface JsonSchemaCarrier {
  readonly '~standard': {
    readonly jsonSchema?: { readonly input: (options: { target: string }) => Record<string, unknown> };
  };
}

// The 2026-07-28 era builds a server per request, so the same schema object is
// registered again and again: convert it once. Consumers only read the result.
const jsonSchemas = new WeakMap<object, Record<string, unknown> | undefined>();

function jsonSchemaOf(schema: StandardSchemaV1 | undefined): Record<string, unknown> | undefined {
  if (schema === undefined) return undefined;
  if (jsonSchemas.has(schema)) return jsonSchemas.get(schema);
  const converted = (schema as JsonSchemaCarrier)['~standard'].jsonSchema?.input({ target: 'draft-2020-12' });
  jsonSchemas.set(schema, converted);
  return converted;
}

function withJsonSchema(
  name: string,
  field: string,
  schema: StandardSchemaV1 | undefined,
): StandardSchemaWithJSON | undefined {
  if (schema === undefined) return undefined;
  if ((schema as JsonSchemaCarrier)['~standard'].jsonSchema === undefined) {
    throw new ConfigurationError(
      'SCHEMA_WITHOUT_JSON_SCHEMA',
      `tool "${name}": ${field} must implement Standard JSON Schema (zod v4 does); the v2 SDK lists tools with it`,
    );
  }
  return schema as unknown as StandardSchemaWithJSON;
}

/**
 * The schema as the SDK sees it: listed with its JSON Schema, but accepting
 * any arguments, because the pipeline validates them itself (under the
 * errors stage, so a bad argument becomes a structured error naming the
 * field rather than the SDK's plain "Input validation error").
 */
function listedOnly(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  return { '~standard': { ...standard, validate: (value: unknown) => ({ value }) } };
}

// The composition each extended McpServer serves, for the HTTP handler's startup check.
const compositions = new WeakMap<McpServer, ComposedServer>();

/** The composition `extendServer` attached to this McpServer, if any. */
export function compositionOf(server: McpServer): ComposedServer | undefined {
  return compositions.get(server);
}

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
  const composed =
    'runToolCall' in extensions
      ? extensions
      : composeServer(extensions, {
          logger: options.logger,
          allowReservedIds: options.allowReservedIds,
          telemetry: options.telemetry,
        });
  const store = options.store ?? defaultStore(composed);
  attachExtensions(composed, store, options.logger ?? composed.logger);
  const inner = server.server;
  inner.registerCapabilities({ extensions: advertised(composed) });
  const raw = guardRawRegistration(server);
  const parked = routeWireErrors(inner, raw.allowed);
  compositions.set(server, composed);
  const connection = trackConnection(inner);
  // The SDK keeps the identity private; the manifest needs it.
  const serving: ServingServer = { composed, identity: readServerIdentity(Reflect.get(inner, '_serverInfo')) };

  const contextFor = (ctx: ServerContext): RequestContext =>
    createRequestContext(requestFacts(inner, ctx, composed, store, options, connection.current(), serving));
  serveMethods(inner, composed, contextFor, () => connection.dispatching());

  const runTool = async (
    tool: ToolInfo,
    handler: ToolHandler,
    args: Record<string, unknown>,
    ctx: ServerContext,
    inputSchema: StandardSchemaV1 | undefined,
  ): Promise<CallToolResult> => {
    const request = contextFor(ctx);
    const call = { name: tool.name, arguments: args, meta: ctx.mcpReq._meta ?? {} };
    try {
      const validate = (input: Record<string, unknown>) => validateArguments(tool.name, inputSchema, input);
      return (await composed.runToolCall(call, createCallContext(request, tool), handler, validate)) as CallToolResult;
    } catch (error) {
      if (WireError.isInstance(error)) parked.set(ctx, error);
      throw error;
    }
  };

  return {
    sdk: 'v2',
    composed,
    store,
    registerTool<S extends StandardSchemaV1 | undefined>(
      name: string,
      config: ToolConfig<S>,
      handler: ToolHandler<[S] extends [StandardSchemaV1] ? InferOutput<S> : Record<string, unknown>>,
    ): ToolInfo {
      const tool = composed.internTool({
        name,
        title: config.title,
        description: config.description,
        annotations: config.annotations,
        _meta: config._meta,
        inputJsonSchema: jsonSchemaOf(config.inputSchema),
        outputJsonSchema: jsonSchemaOf(config.outputSchema),
      });
      const decorated = composed.decorateTool(tool);
      composed.recordTool(tool);
      const run = handler as unknown as ToolHandler;
      const sdkConfig = {
        title: config.title,
        description: config.description,
        outputSchema: withJsonSchema(name, 'outputSchema', config.outputSchema),
        annotations: decorated.annotations,
        _meta: decorated._meta,
      };
      const inputSchema = withJsonSchema(name, 'inputSchema', config.inputSchema);
      if (inputSchema === undefined) {
        raw.register(name, sdkConfig, (ctx) => runTool(tool, run, {}, ctx, undefined));
      } else {
        raw.register(name, { ...sdkConfig, inputSchema: listedOnly(inputSchema) }, (args, ctx) =>
          runTool(tool, run, asRecord(args) ?? {}, ctx, config.inputSchema),
        );
      }
      return tool;
    },
  };
}

export { createHttpHandler } from './http.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES } from './http.js';
export type { DualEraHttpHandler, HttpHandlerOptions, HttpRequestOptions } from './http.js';
