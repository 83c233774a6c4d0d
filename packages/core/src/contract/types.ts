/**
 * The data the core, the adapters and the extensions hand each other: tools,
 * calls and results (MCP-shaped, SDK-neutral), auth info, elicitation, and
 * who is calling. Plain types, importing nothing.
 */

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
  /**
   * The request's other `params` members (beyond `name`, `arguments`,
   * `_meta` and `task`) as the client sent them, such as a field a protocol
   * draft adds to `tools/call`; absent when there are none.
   */
  readonly params?: Readonly<Record<string, unknown>> | undefined;
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

/** Where a principal came from. */
export type PrincipalSource = 'oauth' | 'custom' | 'local' | 'anonymous';

/** The caller of one request, as every extension sees it (`ctx.identity`). */
export interface CallerIdentity {
  /** The key of every per-caller record (tokens, grants, quotas, checkpoints, ...). */
  readonly principal: string;
  readonly source: PrincipalSource;
}
