/**
 * The contract between the core and its extensions: the pipeline's stages,
 * the descriptors an extension's factories return, the contexts and handler
 * types the core hands them, and the composed server they can read back.
 * These types refer to each other, so they live together.
 */
import type { Logger } from '../telemetry/logger.js';
import type { Store } from '../store/store.js';
import type { ExtensionHalf } from './extension-half.js';
import type { NegotiationTable } from './client-extension.js';
import type { RequestScope } from './request.js';
import type { ResourceReadResult } from './resources.js';
import type { StagePlacement } from './stages.js';
import type { CallerIdentity, ServerIdentity, ToolCall, ToolInfo, ToolResult } from './types.js';

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
export interface RequestContext extends RequestScope {
  /**
   * The server this request arrived at; both adapters set it. `undefined`
   * only in contexts built by hand (tests).
   */
  readonly server?: ServingServer | undefined;
}

/** The context of a tool call: the request context plus the tool being called. */
export interface CallContext extends RequestContext {
  readonly tool: ToolInfo;
}

export type ToolHandler<Args = Record<string, unknown>> = (
  args: Args,
  ctx: CallContext,
) => ToolResult | Promise<ToolResult>;

/**
 * Runs the rest of the pipeline, optionally on a replacement call. Callable
 * once; again only after the inner stages answered `input_required` (CORE-41).
 */
export type ToolNext = (call?: ToolCall) => Promise<ToolResult>;

/** `(call, ctx, next) => result`; `next` may be given a replacement call. */
export type ToolMiddleware = (call: ToolCall, ctx: CallContext, next: ToolNext) => Promise<ToolResult>;

/** Handler of a new method `<id>/<verb>`; throw `ExtensionError` or `WireError` to fail. */
export type MethodHandler = (
  params: Record<string, unknown>,
  ctx: RequestContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** What `ServerExtension.attach` is given: the server's store and logger. */
export interface ServerAttachment {
  readonly store: Store;
  readonly logger: Logger;
  /**
   * Runs a call of a tool registered on a server extended with this
   * composition, through the whole pipeline, with no request behind it
   * (core SPEC, CORE-42): for work the server takes up again of its own
   * accord, such as a task whose previous runner died. Call it once tools
   * are registered (after `attach` returned, not during it). SDK v2 only;
   * `undefined` on SDK v1.
   */
  readonly runTool?: ((call: DetachedCall) => Promise<ToolResult>) | undefined;
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
  readonly stage?: StagePlacement | undefined;
  readonly middleware?: ToolMiddleware | undefined;
  /**
   * Its contribution to `Tool._meta[id]` for a tool (or `undefined` for
   * none). Also the place to validate what the author wrote there: throw a
   * `ConfigurationError` naming the tool and the field.
   */
  readonly toolMeta?: ((tool: ToolInfo) => Record<string, unknown> | undefined) | undefined;
  /** Annotations to set on a tool, e.g. `destructiveHint` from a risk level. */
  readonly toolAnnotations?: ((tool: ToolInfo) => Record<string, unknown> | undefined) | undefined;
  /**
   * Top-level members it adds to a tool's `tools/list` entry (a protocol
   * draft's new `Tool` field, such as `outputVariants`), or `undefined` for
   * none. Members the SDK already lists (`name`, `inputSchema`, `_meta`...)
   * are never replaced.
   */
  readonly toolFields?: ((tool: ToolInfo) => Record<string, unknown> | undefined) | undefined;
  /**
   * New methods, by verb: served as `<id>/<verb>` for every identifier in
   * `ids` except its `reservedAliases`, whose specification names its own
   * methods (`namedMethods`).
   */
  readonly methods?: Readonly<Record<string, MethodHandler>> | undefined;
  /**
   * Methods served under exactly the name given (`tasks/get`), for an
   * official extension whose specification names its methods outside the
   * `<id>/<verb>` scheme (core SPEC, CORE-40). Served on SDK v2; SDK v1,
   * which speaks only the 2025 era, leaves them unknown.
   */
  readonly namedMethods?: Readonly<Record<string, MethodHandler>> | undefined;
  /**
   * Serves `namedMethods` on SDK v1 (the 2025 era) too, for a specification
   * that defines them on both eras, such as a draft of the official Events
   * extension (core SPEC, CORE-40). Default: only on SDK v2.
   */
  readonly namedMethodsOnLegacy?: boolean | undefined;
  /**
   * Resources it answers through `resources/read`, beside the application's
   * own (core SPEC, CORE-38); the server then advertises `resources`.
   */
  readonly resources?: ExtensionResources | undefined;
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

/** Marks a server extension mandatory: clients that lack it get -32021 on tool calls. */
export function mandatory<E extends ServerExtension>(extension: E): E {
  return { ...extension, mandatory: true };
}

/** One served method: `<id>/<verb>`, or a name of its own (`named`, from `namedMethods`). */
export interface ComposedMethod {
  readonly method: string;
  readonly extension: string;
  readonly id: string;
  readonly handler: MethodHandler;
  readonly named?: boolean | undefined;
  /** A named method SDK v1 serves too (`namedMethodsOnLegacy`). */
  readonly legacy?: boolean | undefined;
}

/** The server side after composition: everything an adapter needs, as data. */
export interface ComposedServer {
  /** The extensions, in pipeline order (non-pipeline ones after, in the order given). */
  readonly extensions: readonly ServerExtension[];
  /**
   * The middleware order actually in effect, outermost first; `stage` is the
   * placement's label (`intent`, `after intent`, `before confirmation`).
   */
  readonly pipeline: readonly { readonly stage: string; readonly extension: string }[];
  readonly logger: Logger;
  /** Whether requests are traced and timed through OpenTelemetry (`ComposeOptions.telemetry`). */
  readonly telemetry: boolean;
  /** `capabilities.extensions` to advertise. */
  capabilities(): Record<string, Record<string, unknown>>;
  /** `Tool._meta` and annotations for a tool, with every extension's contribution merged in. */
  decorateTool(tool: ToolInfo): {
    _meta: Record<string, unknown>;
    annotations: Record<string, unknown> | undefined;
    /** Top-level `tools/list` members the extensions add (`toolFields`), in pipeline order. */
    fields?: Record<string, unknown> | undefined;
  };
  readonly methods: readonly ComposedMethod[];
  /** Package names of the composed extensions that key records by the caller (`keepsCallerState`). */
  readonly callerState: readonly string[];
  /**
   * Throws the `CALLER_UNIDENTIFIED` error when the request's caller is
   * unknown (an HTTP request nothing identifies) and an extension keeps
   * per-caller state; runs before every method and tool call.
   */
  assertCallerKnown(ctx: RequestContext): void;
  /** Negotiates every extension against the peer's `capabilities.extensions`. */
  negotiate(peerExtensions: unknown): NegotiationTable;
  /** Identifiers marked mandatory that the peer lacks (empty when the peer is unknown). */
  missingMandatory(isNegotiated: (extensionName: string) => boolean, peerKnown: boolean): string[];
  /**
   * Runs a tool call through the pipeline and then the handler. `validate`
   * (the tool's argument check) runs just under the errors stage, before any
   * stage that could refuse or have effects, and its output replaces the
   * call's arguments.
   */
  runToolCall(
    call: ToolCall,
    ctx: CallContext,
    handler: ToolHandler,
    validate?: (args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ): Promise<ToolResult>;
  /**
   * Runs an extension method's handler as adapters serve it: the caller
   * check first (IDENT-5), traced like a tool call, and an internal error
   * logged and answered with its correlation id (OBS-3). Adapters turn what
   * it throws into the JSON-RPC error with `toWireError`.
   */
  runMethod(
    method: string,
    params: Record<string, unknown>,
    ctx: RequestContext,
    handler: MethodHandler,
  ): Promise<Record<string, unknown>>;
  /** The pipeline as text, one stage a line. */
  describe(): string;
  /** Registered tools (adapters record them; the manifest reads them). */
  readonly tools: ReadonlyMap<string, ToolInfo>;
  /**
   * The recorded tool of that name when it is the same registration (same
   * title, description, annotations, `_meta` and schema objects), else
   * `tool`. Adapters call it first, so a server built per request hands
   * extensions the same `ToolInfo` each time and what they derive from it
   * (parsed metadata, gates) is worked out once.
   */
  internTool(tool: ToolInfo): ToolInfo;
  /** Records a registered tool; recording the instance already recorded changes nothing and tells no listener. */
  recordTool(tool: ToolInfo): void;
  /**
   * Calls `listener` after every `recordTool` of a new instance: adapters
   * record each tool as it is registered, including after the server
   * started; a per-request server records the interned instance again,
   * which tells no one.
   * Returns a function that removes the listener. A listener that throws is
   * logged and skipped.
   */
  onToolRecorded(listener: (tool: ToolInfo) => void): () => void;
}

/** A call the server makes itself (see {@link ServerAttachment.runTool}). */
export interface DetachedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `params._meta` as the original call carried it. */
  readonly meta?: Record<string, unknown> | undefined;
  /** Who the call runs for: the original caller. */
  readonly identity: CallerIdentity;
  /**
   * The call takes up again a run an earlier execution started (a task whose
   * runner died): it was admitted and charged when first made, so stages
   * that charge per call let it through uncharged (`resumesDetachedRun`, CORE-47).
   */
  readonly resumes?: boolean | undefined;
  /** Runs on the call's context before the pipeline (to mark it, e.g. as a resumed task). */
  readonly prepare?: ((ctx: CallContext) => void) | undefined;
}

/**
 * The resources a server half answers `resources/read` for. Composing a half
 * that has them makes the server advertise the `resources` capability. They
 * are not listed by `resources/list`, which stays the application's.
 */
export interface ExtensionResources {
  /**
   * Whether `uri` is one of this half's: it is then read by {@link read} and
   * never reaches the application's handlers. Synchronous and cheap; it runs
   * for every `resources/read`.
   */
  owns(uri: string): boolean;
  /**
   * Reads one of its URIs for the caller of `ctx`. Throw a `WireError` or an
   * `ExtensionError` to refuse (it travels as the JSON-RPC error).
   */
  read(uri: string, ctx: RequestContext): Promise<ResourceReadResult>;
}
