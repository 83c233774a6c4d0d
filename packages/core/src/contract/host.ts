/** The extended server and client every extension helper takes, whatever the SDK line, and the adapters' options. */
import type { ClientExtension, ComposedClient } from './client-extension.js';
import type { ServerExtension, ComposedServer, ToolHandler } from './extension.js';
import type { Logger } from '../telemetry/logger.js';
import type { Store } from '../store/store.js';
import type {
  InferOutput,
  NegotiatedExtension,
  ProtocolEra,
  SdkLine,
  StandardSchemaV1,
  ToolAnnotations,
  ToolInfo,
  ToolResult,
} from './types.js';

/** How a tool is declared through an extended server (both SDK lines). */
export interface ToolConfig<S extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined> {
  title?: string;
  description?: string;
  /** A zod v4 object schema (both SDK lines accept it). */
  inputSchema?: S;
  outputSchema?: StandardSchemaV1;
  annotations?: ToolAnnotations;
  /** `Tool._meta`; an extension's own key (`_meta[<id>]`) is read and normalized by that extension. */
  _meta?: Record<string, unknown>;
}

export interface ServerAdapterOptions {
  /** Where extensions keep state. Default: a new `MemoryStore`. */
  readonly store?: Store | undefined;
  readonly logger?: Logger | undefined;
  /** Also accepted for composition: reserved identifiers an extension may serve (content-negotiation's alias). */
  readonly allowReservedIds?: readonly string[] | undefined;
  /** Also accepted for composition: `false` turns OpenTelemetry spans and metrics off (`ComposeOptions.telemetry`). */
  readonly telemetry?: boolean | undefined;
  /**
   * Scopes the caller of a request that did not arrive over HTTP (stdio, an
   * in-process link: the principal `local`) holds, counted as an OAuth
   * token's scopes are (IDENT-2). Default: none. Requests over HTTP never get them.
   */
  readonly localScopes?: readonly string[] | undefined;
}

/** A server with extensions attached, whatever the SDK line. */
export interface ExtendedServer {
  readonly sdk: SdkLine;
  readonly composed: ComposedServer;
  readonly store: Store;
  /** Registers a tool whose calls run through the extension pipeline. */
  registerTool<S extends StandardSchemaV1 | undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<[S] extends [StandardSchemaV1] ? InferOutput<S> : Record<string, unknown>>,
  ): ToolInfo;
}

export interface ClientAdapterOptions {
  readonly logger?: Logger | undefined;
  /** Also accepted for composition: reserved identifiers a client half may advertise (e.g. to act as a draft-only client in tests). */
  readonly allowReservedIds?: readonly string[] | undefined;
  /** `false`: no CLIENT spans, and no trace context written into `params._meta` (`ComposeOptions.telemetry`). */
  readonly telemetry?: boolean | undefined;
}

export interface CallToolOptions {
  /** Extra `params._meta` entries (client halves add their own on top). */
  readonly meta?: Record<string, unknown> | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Called with each `notifications/progress` of this call. */
  readonly onProgress?:
    ((progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void) | undefined;
  readonly timeoutMs?: number | undefined;
}

/** A client with extensions attached, whatever the SDK line; extension client helpers take this. */
export interface ExtendedClient {
  readonly sdk: SdkLine;
  readonly era: ProtocolEra;
  readonly composed: ComposedClient;
  /** The server's `capabilities.extensions` (`{}` when it advertised none). */
  serverExtensions(): Readonly<Record<string, unknown>>;
  /**
   * The negotiated identifier and server settings for one of the composed
   * client halves: by its identifier (`ERRORS_ID`, CORE-36) or the half
   * itself. The npm name still works, with a one-time warning: it is deprecated.
   */
  negotiated<S = Record<string, unknown>>(extension: string | ClientExtension): NegotiatedExtension<S> | undefined;
  /** `tools/call` through the composed client halves. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<ToolResult>;
  /**
   * Sends an extension method request (`<id>/<verb>`). A JSON-RPC error
   * arrives as a thrown `WireError` with the error's `code` and `data`.
   */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
  listTools(): Promise<
    {
      name: string;
      description?: string | undefined;
      annotations?: ToolAnnotations | undefined;
      _meta?: Record<string, unknown> | undefined;
      inputSchema: Record<string, unknown>;
    }[]
  >;
  /** Listens for a notification method (e.g. an extension's events). */
  onNotification(method: string, handler: (params: Record<string, unknown>) => void): void;
  close(): Promise<void>;
}

/** Keeps the type of the server half list in signatures readable. */
export type ServerExtensionList = readonly (ServerExtension | false | null | undefined)[];
export type ClientExtensionList = readonly (ClientExtension | false | null | undefined)[];
