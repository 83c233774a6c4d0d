import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InitializeResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { attachExtensions } from '../attach.js';
import { composeServer, type ComposedServer, type NegotiationTable } from '../compose.js';
import { createCallContext, createRequestContext, readServerIdentity } from '../context.js';
import { ConfigurationError, toWireError, WireError } from '../errors.js';
import { resolveCaller } from '../identity.js';
import { validateArguments } from '../validate.js';
import type { ExtendedServer, ServerAdapterOptions, ServerExtensionList, ToolConfig } from '../host.js';
import type { Logger } from '../logger.js';
import { MemoryStore } from '../memory-store.js';
import type { Store } from '../store.js';
import type {
  AuthInfo,
  ConnectionChannel,
  ElicitationRequest,
  ElicitationResponse,
  RequestContext,
  ServingServer,
  StandardSchemaV1,
  ToolCall,
  ToolHandler,
  ToolInfo,
  ToolResult,
} from '../types.js';
import { asRecord, methodSchema } from './shared.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type RawHandler = (request: unknown, extra: Extra) => Promise<unknown>;

// Keys the protocol itself puts in `params._meta`; they are not extension data.
const ENVELOPE_KEYS = new Set(['progressToken', 'io.modelcontextprotocol/related-task']);

/** `params._meta` of a request minus the protocol's own envelope keys. */
export function callMeta(meta: unknown): Record<string, unknown> {
  const record = asRecord(meta) ?? {};
  return Object.fromEntries(Object.entries(record).filter(([key]) => !ENVELOPE_KEYS.has(key)));
}

/** The core's `AuthInfo` from the SDK's (an empty client id means none). */
function toAuthInfo(info: Extra['authInfo']): AuthInfo | undefined {
  if (!info) return undefined;
  return { clientId: info.clientId === '' ? undefined : info.clientId, scopes: info.scopes, extra: info.extra };
}

function supportsFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = asRecord(capabilities?.elicitation);
  return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
}

// A server built per request or per session registers the same schema object
// again and again: render it once. Consumers only read the result.
const jsonSchemas = new WeakMap<object, Record<string, unknown> | undefined>();

function toJsonSchema(schema: StandardSchemaV1 | undefined, logger: Logger): Record<string, unknown> | undefined {
  // Only zod v4 schemas can be rendered here; v1 also accepts zod v3 ones, which simply get no JSON Schema.
  if (schema === undefined || !('_zod' in schema)) return undefined;
  if (jsonSchemas.has(schema)) return jsonSchemas.get(schema);
  let rendered: Record<string, unknown> | undefined;
  try {
    rendered = z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' });
  } catch (error) {
    logger.warn('could not render a tool schema as JSON Schema', { error: String(error) });
  }
  jsonSchemas.set(schema, rendered);
  return rendered;
}

/**
 * The handler v1 has installed for `method`. The SDK offers no accessor, and
 * McpServer turns every error thrown by a tool callback into an `isError`
 * result, so the adapter wraps the installed handler to let protocol errors
 * (e.g. -32021) through as JSON-RPC errors.
 */
function installedHandler(server: McpServer['server'], method: string): RawHandler {
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

/** The error for a tool registered past the pipeline (core SPEC, CORE-27). */
function rawRegistration(what: string): ConfigurationError {
  return new ConfigurationError(
    'RAW_TOOL_REGISTRATION',
    `${what} on an extended McpServer would serve a tool past every extension (no confirmation, no permissions): register tools on the server extendServer returned (extended.registerTool)`,
  );
}

/** The method a v1 request schema is for (`shape.method.value`, zod v3 and v4 alike). */
function methodOf(schema: unknown): unknown {
  const shape = asRecord(asRecord(schema)?.shape);
  return asRecord(shape?.method)?.value;
}

/**
 * Tools already registered on the McpServer would be served past the
 * pipeline: refuse to extend it (core SPEC, CORE-27).
 */
function assertNoToolsYet(server: McpServer): void {
  const registered = asRecord(Reflect.get(server, '_registeredTools')) ?? {};
  if (Object.keys(registered).length > 0 || Reflect.get(server, '_toolHandlersInitialized') === true) {
    throw new ConfigurationError(
      'TOOLS_REGISTERED_TOO_EARLY',
      `extendServer must be called before any tool is registered on the McpServer (already registered: ${Object.keys(registered).join(', ') || 'the tools/call handler'})`,
    );
  }
}

/**
 * Closes the raw McpServer's ways to serve a tool once it is extended
 * (`registerTool`, `tool`, and `tools/call` on the low-level server): each
 * throws at once. Returns the original `registerTool` and a guard under
 * which the adapter itself installs handlers.
 */
function guardRawRegistration(server: McpServer): {
  readonly register: McpServer['registerTool'];
  readonly allowing: <T>(run: () => T) => T;
} {
  const original = server.registerTool.bind(server);
  const setRequestHandler = server.server.setRequestHandler.bind(server.server);
  let depth = 0;
  const allowing = <T>(run: () => T): T => {
    depth++;
    try {
      return run();
    } finally {
      depth--;
    }
  };
  const register = ((...args: unknown[]) =>
    allowing(() => Reflect.apply(original, undefined, args) as unknown)) as McpServer['registerTool'];
  const refuse = (what: string) => (): never => {
    throw rawRegistration(what);
  };
  Object.defineProperty(server, 'registerTool', {
    value: refuse('McpServer.registerTool'),
    configurable: true,
    writable: true,
  });
  Object.defineProperty(server, 'tool', { value: refuse('McpServer.tool'), configurable: true, writable: true });
  const guarded = (schema: unknown, handler: unknown): void => {
    if (methodOf(schema) === 'tools/call' && depth === 0)
      throw rawRegistration('server.server.setRequestHandler(CallToolRequestSchema)');
    Reflect.apply(setRequestHandler, undefined, [schema, handler]);
  };
  Object.defineProperty(server.server, 'setRequestHandler', { value: guarded, configurable: true, writable: true });
  return { register, allowing };
}

interface ServerState {
  readonly server: McpServer;
  readonly composed: ComposedServer;
  readonly store: Store;
  readonly logger: Logger;
  readonly options: ServerAdapterOptions;
  protocolVersion: string | undefined;
  negotiation: { readonly capabilities: ClientCapabilities | undefined; readonly table: NegotiationTable } | undefined;
  /** The current connection, set on each `connect`. */
  connection: ConnectionChannel | undefined;
  /** What `RequestContext.server` carries for this server. */
  readonly serving: ServingServer;
  /** Tools registered through the extended server: their calls bypass McpServer's own argument check. */
  readonly tools: Map<string, (args: Record<string, unknown>, extra: Extra) => Promise<CallToolResult>>;
  /** The raw McpServer's registration, which only the adapter may use. */
  readonly raw: ReturnType<typeof guardRawRegistration>;
}

/** Negotiates against the client's `initialize` capabilities, once per capabilities object. */
function negotiation(state: ServerState): { peer: Record<string, unknown> | undefined; table: NegotiationTable } {
  const capabilities = state.server.server.getClientCapabilities();
  let current = state.negotiation;
  if (current === undefined || current.capabilities !== capabilities) {
    current = { capabilities, table: state.composed.negotiate(capabilities?.extensions) };
    state.negotiation = current;
  }
  const peer = capabilities === undefined ? undefined : (asRecord(capabilities.extensions) ?? {});
  return { peer, table: current.table };
}

function elicitFor(state: ServerState, extra: Extra): RequestContext['elicit'] {
  const sdk = state.server.server;
  if (!supportsFormElicitation(sdk.getClientCapabilities())) return undefined;
  return async (request: ElicitationRequest): Promise<ElicitationResponse> => {
    const params = { mode: 'form', message: request.message, requestedSchema: request.requestedSchema };
    const result = await sdk.elicitInput(params as ElicitRequestFormParams, {
      relatedRequestId: extra.requestId,
      signal: extra.signal,
    });
    return { action: result.action, content: result.content };
  };
}

function requestContext(state: ServerState, extra: Extra): RequestContext {
  const { peer, table } = negotiation(state);
  const progressToken = asRecord(extra._meta)?.progressToken;
  const authInfo = toAuthInfo(extra.authInfo);
  return createRequestContext({
    sdk: 'v1',
    era: 'legacy',
    protocolVersion: state.protocolVersion,
    requestId: extra.requestId,
    sessionId: extra.sessionId,
    authInfo,
    // The SDK's HTTP transports attach `requestInfo` (the request's headers) to every message; stdio and in-memory links do not.
    identity: resolveCaller({ rawAuthInfo: extra.authInfo, authInfo, overHttp: extra.requestInfo !== undefined }),
    peerExtensions: peer,
    negotiation: table,
    signal: extra.signal,
    logger: state.logger,
    store: state.store,
    progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
    notify: (method, params) => extra.sendNotification({ method, params } as ServerNotification),
    elicit: elicitFor(state, extra),
    // Only a client seen at `initialize` is on a connection that outlives the request (not stateless HTTP).
    connection: peer === undefined ? undefined : state.connection,
    server: state.serving,
    sdkContext: extra,
  });
}

/**
 * Gives each connection a channel for notifications tied to no request and
 * a signal aborted when it closes. The Protocol keeps a transport `onclose`
 * set before `connect` and calls it first, so chaining it there sees every
 * close, whoever closes.
 */
function trackConnection(state: ServerState): void {
  const inner = state.server.server;
  const connect = inner.connect.bind(inner);
  const tracked: typeof inner.connect = async (transport) => {
    const closed = new AbortController();
    const previous = transport.onclose;
    transport.onclose = () => {
      closed.abort();
      previous?.();
    };
    state.connection = {
      signal: closed.signal,
      notify: (method, params) => inner.notification({ method, params }),
    };
    await connect(transport);
  };
  Object.defineProperty(inner, 'connect', { value: tracked, configurable: true, writable: true });
}

/** Serves every composed `<id>/<verb>`; failures go out as JSON-RPC errors carrying the structured error. */
function registerMethods(state: ServerState): void {
  for (const { method, handler } of state.composed.methods) {
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

/** Records the negotiated protocol version, which v1 does not keep anywhere public. */
function trackProtocolVersion(state: ServerState): void {
  const original = installedHandler(state.server.server, 'initialize');
  state.server.server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    const result = (await original(request, extra)) as InitializeResult;
    state.protocolVersion = result.protocolVersion;
    return result;
  });
}

// A WireError raised by the pipeline, parked under the request's signal until McpServer hands back control.
const parked = new WeakMap<AbortSignal, WireError>();
const PARKED_RESULT: CallToolResult = { content: [], isError: true };
const toolsWrapped = new WeakSet<McpServer>();

/**
 * Wraps McpServer's `tools/call`: calls of our tools go straight to the
 * pipeline, which validates arguments itself under the errors stage (so a
 * bad argument becomes a structured error naming the field, not the SDK's
 * plain "Input validation error"); a parked `WireError` leaves as a JSON-RPC
 * error. Other tools keep McpServer's handling.
 */
function wrapToolsCall(state: ServerState): void {
  const original = installedHandler(state.server.server, 'tools/call');
  state.server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const ours = state.tools.get(request.params.name);
    const result = ours ? await ours(asRecord(request.params.arguments) ?? {}, extra) : await original(request, extra);
    const wire = parked.get(extra.signal);
    if (wire) {
      parked.delete(extra.signal);
      throw new McpError(wire.code, wire.message, wire.data);
    }
    return result as CallToolResult;
  });
}

function toolRunner(
  state: ServerState,
  info: ToolInfo,
  handler: ToolHandler,
  inputSchema: StandardSchemaV1 | undefined,
) {
  return async (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
    const ctx = createCallContext(requestContext(state, extra), info);
    const call: ToolCall = { name: info.name, arguments: args, meta: callMeta(extra._meta) };
    const validate = (input: Record<string, unknown>) => validateArguments(info.name, inputSchema, input);
    try {
      const result: ToolResult = await state.composed.runToolCall(call, ctx, handler, validate);
      return result as CallToolResult;
    } catch (error) {
      // What McpServer itself answers when a tool throws (degradation without @ext/errors).
      if (!WireError.isInstance(error)) {
        return {
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        };
      }
      parked.set(extra.signal, error);
      return PARKED_RESULT;
    }
  };
}

function registerTool(state: ServerState, name: string, config: ToolConfig, handler: ToolHandler): ToolInfo {
  const info = state.composed.internTool({
    name,
    title: config.title,
    description: config.description,
    annotations: config.annotations,
    _meta: config._meta,
    inputJsonSchema: toJsonSchema(config.inputSchema, state.logger),
    outputJsonSchema: toJsonSchema(config.outputSchema, state.logger),
  });
  const decorated = state.composed.decorateTool(info);
  const run = toolRunner(state, info, handler, config.inputSchema);
  state.tools.set(name, run);
  // McpServer calls `(args, extra)` when the tool has an input schema and `(extra)` alone otherwise.
  const callback = (args: unknown, extra?: Extra) =>
    extra === undefined ? run({}, args as Extra) : run(asRecord(args) ?? {}, extra);
  state.raw.register(
    name,
    {
      title: config.title,
      description: config.description,
      inputSchema: config.inputSchema as z.ZodType | undefined,
      outputSchema: config.outputSchema as z.ZodObject | undefined,
      annotations: decorated.annotations,
      _meta: Object.keys(decorated._meta).length > 0 ? decorated._meta : undefined,
    },
    callback,
  );
  state.composed.recordTool(info);
  // McpServer installs its tools/call handler with the first tool; wrap it once, right after.
  if (!toolsWrapped.has(state.server)) {
    state.raw.allowing(() => {
      wrapToolsCall(state);
    });
    toolsWrapped.add(state.server);
  }
  return info;
}

// The composition each extended McpServer serves, for the HTTP handler's startup check.
const compositions = new WeakMap<McpServer, ComposedServer>();

/** The composition `extendServer` attached to this McpServer, if any. */
export function compositionOf(server: McpServer): ComposedServer | undefined {
  return compositions.get(server);
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
  const composed =
    'runToolCall' in extensions
      ? extensions
      : composeServer(extensions, {
          logger: options.logger,
          allowReservedIds: options.allowReservedIds,
          telemetry: options.telemetry,
        });
  const state: ServerState = {
    server,
    composed,
    store: options.store ?? new MemoryStore(),
    logger: options.logger ?? composed.logger,
    options,
    protocolVersion: undefined,
    negotiation: undefined,
    connection: undefined,
    // The SDK keeps the identity private; the manifest needs it.
    serving: { composed, identity: readServerIdentity(Reflect.get(server.server, '_serverInfo')) },
    tools: new Map(),
    raw: guardRawRegistration(server),
  };
  server.server.registerCapabilities({ extensions: composed.capabilities() });
  compositions.set(server, composed);
  attachExtensions(composed, state.store, state.logger);
  registerMethods(state);
  trackProtocolVersion(state);
  trackConnection(state);
  return {
    sdk: 'v1',
    composed,
    store: state.store,
    registerTool: (name, config, handler) => registerTool(state, name, config, handler as ToolHandler),
  };
}
