import type { ComposedServer } from './compose.js';
import type { Logger } from './logger.js';
import type { CallerIdentity } from './identity.js';
import type { Store } from './store.js';

/** The Standard Schema interface (zod v4 implements it), enough to infer a tool's argument type. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type InferOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : Record<string, unknown>;

/** One content block of a tool result, MCP-shaped (text, image, audio, resource_link, resource). */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** A `CallToolResult`, MCP-shaped. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** MCP tool annotations (hints). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** What the core knows of a registered tool. */
export interface ToolInfo {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly annotations?: ToolAnnotations | undefined;
  /** `Tool._meta` as the author wrote it, before extensions contribute. */
  readonly _meta?: Readonly<Record<string, unknown>> | undefined;
  /** JSON Schema of the input, when the adapter could produce one. */
  readonly inputJsonSchema?: Record<string, unknown> | undefined;
  readonly outputJsonSchema?: Record<string, unknown> | undefined;
}

/** A tool call as it enters the pipeline. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `params._meta` of the request (minus the protocol's reserved envelope keys). */
  readonly meta: Readonly<Record<string, unknown>>;
}

export type ProtocolEra = 'legacy' | 'modern';
export type SdkLine = 'v1' | 'v2';

/** What an extension has agreed with the peer for one request. */
export interface NegotiatedExtension<S = Record<string, unknown>> {
  /** The identifier both sides speak (the newest common one). */
  readonly id: string;
  /** The peer's settings for it, validated. */
  readonly settings: S;
}

/** Identity of the caller, when the transport authenticated one. */
export interface AuthInfo {
  readonly clientId?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly extra?: Readonly<Record<string, unknown>> | undefined;
}

/** A request form elicitation, the SDK-neutral subset. */
export interface ElicitationRequest {
  message: string;
  requestedSchema: Record<string, unknown>;
}

export interface ElicitationResponse {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
}

/** Multi-round-trip input on the 2026-07-28 era (see `RequestContext.inputRound`). */
export interface InputRound {
  /** The client's answers carried by this (retried) request, by the key each was asked under; `{}` on a first attempt. */
  readonly responses: Readonly<Record<string, unknown>>;
  /**
   * The `requestState` this (retried) request echoes, exactly as the client
   * sent it back; `undefined` on a first attempt or when it is not a string.
   * Attacker-controlled: check it against what the server minted.
   */
  readonly requestState?: string | undefined;
}

/**
 * The connection a request arrived on, when it outlives the request (the
 * legacy era on a stateful transport: stdio, in-memory, sessionful HTTP).
 */
export interface ConnectionChannel {
  /** Sends a notification tied to no request (on HTTP: the session's standalone stream). */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Aborted when the connection closes. */
  readonly signal: AbortSignal;
}

/** The identity a server gave its SDK (`new McpServer({ name, version, ... })`). */
export interface ServerIdentity {
  readonly name: string;
  readonly version: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly websiteUrl?: string | undefined;
}

/**
 * The server a request arrived at, for methods that describe the server
 * itself (a service manifest): its composition (registered tools, every
 * extension's tool metadata, the advertised capabilities) and its identity,
 * which only the adapter knows.
 */
export interface ServingServer {
  readonly composed: ComposedServer;
  readonly identity: ServerIdentity;
}

/** Per-request context every middleware, method and handler receives. */
export interface RequestContext {
  readonly sdk: SdkLine;
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  /** The JSON-RPC `id` of the request; both adapters set it. `undefined` only in contexts built by hand. */
  readonly requestId?: string | number | undefined;
  /** The transport's session id (a legacy-era Streamable HTTP session), when there is one. */
  readonly sessionId?: string | undefined;
  /**
   * The caller's principal: the key of every per-caller record. Resolved by
   * the core (see `identity`); never read from `_meta` or tool arguments.
   */
  readonly principal: string;
  /**
   * Who is calling and how that is known (OAuth token, the server author's
   * `identify` hook, a local link, or the shared anonymous caller).
   * `undefined` for an HTTP request nothing identifies: the core then
   * refuses it wherever an extension keeps per-caller state.
   */
  readonly identity: CallerIdentity | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** The peer's `capabilities.extensions`, or `undefined` when it cannot be known (legacy stateless HTTP). */
  readonly peerExtensions: Readonly<Record<string, unknown>> | undefined;
  /** The negotiation outcome for one of the composed extensions, by package name. */
  negotiated<S = Record<string, unknown>>(extensionName: string): NegotiatedExtension<S> | undefined;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The store given to the adapter (memory by default). */
  readonly store: Store;
  /** Sends a notification related to this request (progress, extension events). */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /**
   * The connection itself, for notifications after this request has been
   * answered (event subscriptions); `undefined` where no connection outlives
   * the request (2026-07-28, legacy stateless HTTP).
   */
  readonly connection?: ConnectionChannel | undefined;
  /**
   * The server this request arrived at; both adapters set it. `undefined`
   * only in contexts built by hand (tests).
   */
  readonly server?: ServingServer | undefined;
  /** MCP progress token of the request, if the client sent one. */
  readonly progressToken: string | number | undefined;
  /**
   * Asks the human through the client, when the client can be asked in-band
   * (legacy-era elicitation). `undefined` when it cannot.
   */
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationResponse>) | undefined;
  /**
   * The 2026-07-28 era's way to ask in-band (multi-round-trip input): defined
   * when the client advertised form elicitation on that era. A middleware or
   * handler asks by returning `inputRequiredResult(...)`; the client asks its
   * user and retries the same call carrying the answers, read here.
   */
  readonly inputRound: InputRound | undefined;
  /**
   * The SDK's own context of this request, for what the core does not model
   * (a legacy-era sampling request, say): v2's `ServerContext`, v1's
   * `RequestHandlerExtra`. Tied to one SDK line; extensions never read it.
   */
  readonly sdkContext: unknown;
  /** Scratch space for extensions to share per-request data, keyed by symbol. */
  readonly locals: Map<symbol, unknown>;
}

/** The context of a tool call: the request context plus the tool being called. */
export interface CallContext extends RequestContext {
  readonly tool: ToolInfo;
}

export type ToolHandler<Args = Record<string, unknown>> = (
  args: Args,
  ctx: CallContext,
) => ToolResult | Promise<ToolResult>;

/** `(call, ctx, next) => result`; `next` may be given a replacement call. */
export type ToolMiddleware = (
  call: ToolCall,
  ctx: CallContext,
  next: (call?: ToolCall) => Promise<ToolResult>,
) => Promise<ToolResult>;

/** Handler of a new method `<id>/<verb>`; throw `ExtensionError` or `WireError` to fail. */
export type MethodHandler = (
  params: Record<string, unknown>,
  ctx: RequestContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;
