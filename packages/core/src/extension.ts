import type { TSchema } from 'typebox';
import type { Logger } from './logger.js';
import type { Store } from './store.js';
import type {
  CallContext,
  MethodHandler,
  NegotiatedExtension,
  ToolCall,
  ToolInfo,
  ToolMiddleware,
  ToolResult,
} from './types.js';

/**
 * The fixed order of the tool-call pipeline, outermost first
 * (docs/ARCHITECTURE.md, 'The tool-call pipeline'). Checks that refuse a call come before anything with effects.
 * Users list extensions in any order; the core sorts them by this.
 */
export const PIPELINE_STAGES = [
  'errors',
  'session-state',
  'content-negotiation',
  'permissions',
  'cost',
  'intent',
  'multimodal',
  'confirmation',
  'idempotency',
  'transactions',
  // Innermost: helpers around the handler itself.
  'streaming',
  'data-references',
  'provenance',
] as const;

export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** The settings one side advertises for an extension: always carries the wire version. */
export type AdvertisedSettings = { readonly version: string } & Readonly<Record<string, unknown>>;

interface ExtensionHalf {
  /** npm package name, e.g. `@ext/errors`; used in messages and for dependencies. */
  readonly name: string;
  /**
   * Identifiers this half serves, e.g. `['io.github.mcp-ext/errors']`, or
   * both `errors` and `errors-v2` while a wire break is rolled out. The
   * newest one both sides advertise wins.
   */
  readonly ids: readonly string[];
  /**
   * Identifiers under a reserved prefix (CORE-3) that this half serves as
   * aliases of one of its own identifiers with the same extension name, e.g.
   * a draft official identifier (`io.modelcontextprotocol/content-negotiation`
   * beside `io.github.mcp-ext/content-negotiation`). Each must also be in
   * `ids`; composition accepts nothing else under a reserved prefix unless
   * the server author lists it in `allowReservedIds`.
   */
  readonly reservedAliases?: readonly string[] | undefined;
  /** What this side advertises in `capabilities.extensions[id]`. */
  readonly settings: AdvertisedSettings;
  /** Schema of the settings the peer advertises (validated on receipt). */
  readonly peerSettings?: TSchema | undefined;
  /** Wire majors of the peer settings this half understands. Default: the major of `settings.version`. */
  readonly majors?: readonly number[] | undefined;
  /** Package names that must be composed too (e.g. transactions requires `@ext/idempotency`). */
  readonly requires?: readonly string[] | undefined;
}

/** What `ServerExtension.attach` is given: the server's store and logger. */
export interface ServerAttachment {
  readonly store: Store;
  readonly logger: Logger;
}

/** The server half of an extension: a plain descriptor a factory returns. */
export interface ServerExtension extends ExtensionHalf {
  readonly side: 'server';
  /**
   * Keys records by the caller (tokens, grants, quotas, checkpoints,
   * subscriptions, uploads). The core refuses requests whose caller it cannot
   * tell apart from others while such an extension is composed, and an HTTP
   * handler refuses to start without a stated way to identify callers.
   */
  readonly keepsCallerState?: boolean | undefined;
  /** Refuse tool calls from clients that lack it (-32021). Set with {@link mandatory}. */
  readonly mandatory?: boolean | undefined;
  /** Where its middleware runs; required when `middleware` is given. */
  readonly stage?: PipelineStage | undefined;
  readonly middleware?: ToolMiddleware | undefined;
  /**
   * Its contribution to `Tool._meta[id]` for a tool (or `undefined` for
   * none). Also the place to validate what the author wrote there: throw a
   * `ConfigurationError` naming the tool and the field.
   */
  readonly toolMeta?: ((tool: ToolInfo) => Record<string, unknown> | undefined) | undefined;
  /** Annotations to set on a tool, e.g. `destructiveHint` from a risk level. */
  readonly toolAnnotations?: ((tool: ToolInfo) => Record<string, unknown> | undefined) | undefined;
  /** New methods, by verb: served as `<id>/<verb>` for every identifier in `ids`. */
  readonly methods?: Readonly<Record<string, MethodHandler>> | undefined;
  /**
   * Runs for every tool call before the pipeline, before even the errors
   * stage and argument validation, so that what it records in `ctx.locals`
   * is known to every stage, including one that builds a result for a call
   * refused early (content-negotiation's presentation, read by errors).
   * Synchronous, cheap and free of effects; it must not refuse a call (a
   * throw is logged and ignored).
   */
  readonly beginCall?: ((call: ToolCall, ctx: CallContext) => void) | undefined;
  /**
   * Runs once when the composition is first attached to a server with a
   * given store (`extendServer`), before any request: the place for work that
   * must not wait for a client, such as finishing what a previous run of the
   * server left undone on that store. It runs once per composition and store,
   * however many servers are built from them (one per request on 2026-07-28).
   * It must not block: a throw or a rejection is logged and the server
   * serves anyway.
   */
  readonly attach?: ((host: ServerAttachment) => void | Promise<void>) | undefined;
}

/** A tool call as a client half sees it before it is sent. */
export interface OutgoingCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `params._meta` to send; client halves add their own key. */
  readonly meta: Record<string, unknown>;
}

/** The client half of an extension. */
export interface ClientExtension extends ExtensionHalf {
  readonly side: 'client';
  /** Adds this extension's per-call data (`params._meta[id]`) when negotiated. */
  readonly prepareCall?:
    ((call: OutgoingCall, negotiated: NegotiatedExtension | undefined) => void | Promise<void>) | undefined;
  /** Reads the result's `_meta[id]` (e.g. to remember a session token). */
  readonly onResult?:
    ((result: ToolResult, call: OutgoingCall, negotiated: NegotiatedExtension | undefined) => void) | undefined;
}

/** Marks a server extension mandatory: clients that lack it get -32021 on tool calls. */
export function mandatory<E extends ServerExtension>(extension: E): E {
  return { ...extension, mandatory: true };
}
