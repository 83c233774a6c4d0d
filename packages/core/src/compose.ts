import { ConfigurationError, ErrorCodes, ExtensionError, WireError } from './errors.js';
import type { ClientExtension, PipelineStage, ServerExtension } from './extension.js';
import { PIPELINE_STAGES } from './extension.js';
import { jsonEqual } from './canonical.js';
import { assertApproved } from './approval.js';
import { markHandlerStarted } from './execution.js';
import { checkOwnIdentifier, parseExtensionId, pickCommonIdentifier } from './identifiers.js';
import { answerMethodFailure, logInternalError, newCorrelationId } from './internal-errors.js';
import { consoleLogger, type Logger } from './logger.js';
import { methodOutcome, toolCallOutcome } from './semconv.js';
import { parseSettingsVersion, readSettings, type SettingsSpec } from './settings.js';
import { observeOperation, type ServerOperation } from './telemetry.js';
import type {
  CallContext,
  MethodHandler,
  RequestContext,
  NegotiatedExtension,
  ToolCall,
  ToolHandler,
  ToolInfo,
  ToolMiddleware,
  ToolResult,
} from './types.js';

type Maybe<T> = T | false | null | undefined;

export interface ComposeOptions {
  /** Where ignored settings and similar are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Reserved-prefix identifiers an extension may serve anyway (content-negotiation's draft alias). */
  readonly allowReservedIds?: readonly string[] | undefined;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api`, when the
   * application installed it and registered an SDK. Default `true`; `false`
   * turns them off for this composition.
   */
  readonly telemetry?: boolean | undefined;
}

function settingsSpec(half: ServerExtension | ClientExtension): SettingsSpec {
  const own = parseSettingsVersion(half.settings.version);
  if (!own) {
    throw new ConfigurationError(
      'INVALID_SETTINGS_VERSION',
      `${half.name}: settings.version must be "<major>.<minor>", got ${JSON.stringify(half.settings.version)}`,
    );
  }
  return { schema: half.peerSettings, majors: half.majors ?? [own.major] };
}

/** The reserved aliases a half declares, checked: each is in `ids` and names the same extension as one of its own identifiers. */
function declaredAliases(half: ServerExtension | ClientExtension): readonly string[] {
  const aliases = half.reservedAliases ?? [];
  const ownNames = new Set(
    half.ids.flatMap((id) => {
      const parsed = parseExtensionId(id);
      return parsed.ok && !parsed.value.reserved ? [parsed.value.name] : [];
    }),
  );
  for (const alias of aliases) {
    const parsed = parseExtensionId(alias);
    if (!half.ids.includes(alias) || !parsed.ok || !ownNames.has(parsed.value.name)) {
      throw new ConfigurationError(
        'INVALID_IDENTIFIER',
        `${half.name}: reserved alias "${alias}" must be listed in ids and name the same extension as one of its own identifiers`,
      );
    }
  }
  return aliases;
}

function validateHalves<H extends ServerExtension | ClientExtension>(
  input: readonly Maybe<H>[],
  side: H['side'],
  options: ComposeOptions,
): H[] {
  const halves = input.filter((half): half is H => Boolean(half));
  const names = new Set<string>();
  const ids = new Map<string, string>();
  for (const half of halves) {
    if (half.side !== side) {
      throw new ConfigurationError(
        'WRONG_SIDE',
        `${half.name}: a ${half.side} half was passed where ${side} halves are composed`,
      );
    }
    if (names.has(half.name)) {
      throw new ConfigurationError('DUPLICATE_EXTENSION', `${half.name} is listed twice; compose each extension once`);
    }
    names.add(half.name);
    if (half.ids.length === 0) throw new ConfigurationError('NO_IDENTIFIER', `${half.name}: serves no identifier`);
    const allowedReserved = [...(options.allowReservedIds ?? []), ...declaredAliases(half)];
    for (const id of half.ids) {
      const check = checkOwnIdentifier(id, allowedReserved);
      if (!check.ok) throw new ConfigurationError('INVALID_IDENTIFIER', `${half.name}: ${check.reason}`);
      const owner = ids.get(id);
      if (owner !== undefined) {
        throw new ConfigurationError('DUPLICATE_IDENTIFIER', `${id} is served by both ${owner} and ${half.name}`);
      }
      ids.set(id, half.name);
    }
    settingsSpec(half);
  }
  for (const half of halves) {
    for (const dependency of half.requires ?? []) {
      if (!names.has(dependency)) {
        throw new ConfigurationError(
          'MISSING_DEPENDENCY',
          `${half.name} requires ${dependency}: install it and add its ${side} half to the composed extensions`,
        );
      }
    }
  }
  return halves;
}

/** Negotiates one half against the peer's advertised extensions. Never throws. */
function negotiateHalf(
  half: ServerExtension | ClientExtension,
  peer: Readonly<Record<string, unknown>> | undefined,
  logger: Logger,
): NegotiatedExtension | undefined {
  if (peer === undefined) return undefined;
  const id = pickCommonIdentifier(half.ids, Object.keys(peer));
  if (id === undefined) return undefined;
  const settings = readSettings(id, peer[id], settingsSpec(half), logger);
  return settings === undefined ? undefined : { id, settings };
}

interface ToolDecoration {
  readonly _meta: Record<string, unknown>;
  readonly annotations: Record<string, unknown> | undefined;
}

/**
 * Same registration as far as any extension can tell: every field it may
 * read holds the same JSON data (a server built per request often writes its
 * tool's `_meta` as a literal, a new object each time with the same content).
 */
function sameTool(a: ToolInfo, b: ToolInfo): boolean {
  return (
    a.title === b.title &&
    a.description === b.description &&
    jsonEqual(a.annotations, b.annotations) &&
    jsonEqual(a._meta, b._meta) &&
    jsonEqual(a.inputJsonSchema, b.inputJsonSchema) &&
    jsonEqual(a.outputJsonSchema, b.outputJsonSchema)
  );
}

/** How many distinct peer declarations a composition remembers the outcome of. */
const NEGOTIATION_CACHE_SIZE = 16;

/**
 * Negotiation is a pure function of the peer's declaration, and it runs on
 * every request (the 2026-07-28 era has no connection to remember it on), so
 * outcomes are remembered: by object identity (a legacy-era peer's
 * capabilities object lives as long as its connection) and by content (a
 * modern-era peer repeats the same declaration, as a new object, in every
 * request), most recently used first. Tables are shared between requests
 * and must not be mutated.
 */
function negotiator(
  halves: readonly (ServerExtension | ClientExtension)[],
  logger: Logger,
): (peerExtensions: unknown) => NegotiationTable {
  const byObject = new WeakMap<object, NegotiationTable>();
  // Each entry keeps its own copy of the declaration, so a caller mutating its object later cannot change what matches.
  const recent: { readonly declaration: unknown; readonly table: NegotiationTable }[] = [];
  const compute = (peer: Readonly<Record<string, unknown>> | undefined): NegotiationTable => {
    const table = new Map<string, NegotiatedExtension>();
    for (const half of halves) {
      const outcome = negotiateHalf(half, peer, logger);
      if (outcome) table.set(half.name, outcome);
    }
    return table;
  };
  const remembered = (peer: Readonly<Record<string, unknown>>): NegotiationTable => {
    for (let index = 0; index < recent.length; index++) {
      const entry = recent[index];
      if (entry !== undefined && jsonEqual(entry.declaration, peer)) {
        if (index > 0) {
          recent.splice(index, 1);
          recent.unshift(entry);
        }
        return entry.table;
      }
    }
    const table = compute(peer);
    let declaration: unknown;
    try {
      declaration = JSON.parse(JSON.stringify(peer)) as unknown;
    } catch {
      // Not JSON (a cycle, a BigInt): negotiate without remembering.
      return table;
    }
    recent.unshift({ declaration, table });
    if (recent.length > NEGOTIATION_CACHE_SIZE) recent.pop();
    return table;
  };
  return (peerExtensions) => {
    const peer = toExtensionMap(peerExtensions);
    if (peer === undefined) return compute(undefined);
    const seen = byObject.get(peer);
    if (seen !== undefined) return seen;
    const table = remembered(peer);
    byObject.set(peer, table);
    return table;
  };
}

function toExtensionMap(raw: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  return raw as Record<string, unknown>;
}

/** One served method: `<id>/<verb>`. */
export interface ComposedMethod {
  readonly method: string;
  readonly extension: string;
  readonly id: string;
  readonly handler: MethodHandler;
}

export type NegotiationTable = ReadonlyMap<string, NegotiatedExtension>;

/** The server side after composition: everything an adapter needs, as data. */
export interface ComposedServer {
  /** The extensions, in pipeline order (non-pipeline ones after, in the order given). */
  readonly extensions: readonly ServerExtension[];
  /** The middleware order actually in effect, outermost first. */
  readonly pipeline: readonly { readonly stage: PipelineStage; readonly extension: string }[];
  readonly logger: Logger;
  /** Whether requests are traced and timed through OpenTelemetry (`ComposeOptions.telemetry`). */
  readonly telemetry: boolean;
  /** `capabilities.extensions` to advertise. */
  capabilities(): Record<string, Record<string, unknown>>;
  /** `Tool._meta` and annotations for a tool, with every extension's contribution merged in. */
  decorateTool(tool: ToolInfo): { _meta: Record<string, unknown>; annotations: Record<string, unknown> | undefined };
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

/**
 * Composes server extension halves. Ignores `false`/`null`/`undefined`
 * entries (`flag && errorsServer()`), refuses duplicates and missing
 * dependencies, and orders middlewares by {@link PIPELINE_STAGES}.
 */
export function composeServer(input: readonly Maybe<ServerExtension>[], options: ComposeOptions = {}): ComposedServer {
  const logger = options.logger ?? consoleLogger;
  const telemetry = options.telemetry !== false;
  const halves = validateHalves(input, 'server', options);
  const stageOf = (half: ServerExtension): number =>
    half.stage === undefined ? PIPELINE_STAGES.length : PIPELINE_STAGES.indexOf(half.stage);
  const usedStages = new Map<PipelineStage, string>();
  for (const half of halves) {
    if (half.middleware && half.stage === undefined) {
      throw new ConfigurationError('MISSING_STAGE', `${half.name}: a middleware needs a pipeline stage`);
    }
    if (half.stage !== undefined) {
      if (!PIPELINE_STAGES.includes(half.stage)) {
        throw new ConfigurationError('UNKNOWN_STAGE', `${half.name}: unknown pipeline stage "${half.stage as string}"`);
      }
      const other = usedStages.get(half.stage);
      if (other !== undefined) {
        throw new ConfigurationError('DUPLICATE_STAGE', `${half.name} and ${other} both claim stage "${half.stage}"`);
      }
      usedStages.set(half.stage, half.name);
    }
  }
  const ordered = halves
    .map((half, index) => ({ half, index }))
    .sort((a, b) => stageOf(a.half) - stageOf(b.half) || a.index - b.index)
    .map(({ half }) => half);
  const pipeline = ordered
    .filter((half) => half.middleware && half.stage !== undefined)
    .map((half) => ({ stage: half.stage as PipelineStage, extension: half.name }));
  const stages = ordered.flatMap((half) =>
    half.middleware && half.stage !== undefined
      ? [{ stage: half.stage, extension: half.name, middleware: half.middleware }]
      : [],
  );

  const methods: ComposedMethod[] = [];
  const seenMethods = new Set<string>();
  for (const half of ordered) {
    for (const [verb, handler] of Object.entries(half.methods ?? {})) {
      for (const id of half.ids) {
        const method = `${id}/${verb}`;
        if (seenMethods.has(method)) throw new ConfigurationError('DUPLICATE_METHOD', `${method} is registered twice`);
        seenMethods.add(method);
        methods.push({ method, extension: half.name, id, handler });
      }
    }
  }

  const tools = new Map<string, ToolInfo>();
  const toolListeners = new Set<(tool: ToolInfo) => void>();
  const decorations = new Map<string, ToolDecoration & { readonly tool: ToolInfo }>();
  const decorate = (tool: ToolInfo): ToolDecoration => {
    const meta: Record<string, unknown> = { ...(tool._meta ?? {}) };
    let annotations: Record<string, unknown> | undefined = tool.annotations ? { ...tool.annotations } : undefined;
    for (const half of ordered) {
      const contribution = half.toolMeta?.(tool);
      if (contribution !== undefined) for (const id of half.ids) meta[id] = contribution;
      const extra = half.toolAnnotations?.(tool);
      if (extra !== undefined) annotations = { ...(annotations ?? {}), ...extra };
    }
    return { _meta: meta, annotations };
  };

  const callerState = ordered.filter((half) => half.keepsCallerState === true).map((half) => half.name);
  const assertCallerKnown = (ctx: RequestContext): void => {
    if (ctx.identity === undefined && callerState.length > 0) throw unidentifiedCaller(callerState);
  };
  const parts: Pipeline = { halves: ordered, stages, callerState };

  const composed: ComposedServer = {
    extensions: ordered,
    pipeline,
    logger,
    telemetry,
    methods,
    callerState,
    assertCallerKnown,
    tools,
    internTool(tool) {
      const known = tools.get(tool.name);
      return known !== undefined && sameTool(known, tool) ? known : tool;
    },
    recordTool(tool) {
      if (tools.get(tool.name) === tool) return;
      tools.set(tool.name, tool);
      for (const listener of [...toolListeners]) {
        try {
          listener(tool);
        } catch (error) {
          // One observer's failure must not break tool registration.
          logger.warn('a tool-recorded listener threw; it is skipped', { tool: tool.name, error: String(error) });
        }
      }
    },
    onToolRecorded(listener) {
      toolListeners.add(listener);
      return () => {
        toolListeners.delete(listener);
      };
    },
    capabilities() {
      const out: Record<string, Record<string, unknown>> = {};
      for (const half of ordered) for (const id of half.ids) out[id] = { ...half.settings };
      return out;
    },
    decorateTool(tool) {
      // The 2026-07-28 era registers every tool again for each request's
      // server: when nothing the extensions read has changed (same objects),
      // reuse the last decoration instead of asking every extension again.
      const last = decorations.get(tool.name);
      if (last !== undefined && sameTool(last.tool, tool)) {
        return {
          _meta: { ...last._meta },
          annotations: last.annotations === undefined ? undefined : { ...last.annotations },
        };
      }
      const decoration = decorate(tool);
      decorations.set(tool.name, { tool, ...decoration });
      return {
        _meta: { ...decoration._meta },
        annotations: decoration.annotations === undefined ? undefined : { ...decoration.annotations },
      };
    },
    negotiate: negotiator(ordered, logger),
    missingMandatory(isNegotiated, peerKnown) {
      return missingMandatory(ordered, isNegotiated, peerKnown);
    },
    runToolCall(call, ctx, handler, validate) {
      const run = (operation: ServerOperation | undefined) => runLogged(parts, call, ctx, handler, validate, operation);
      if (!telemetry) return run(undefined);
      return observeOperation({ method: 'tools/call', tool: call.name, meta: call.meta, ctx }, run, toolCallOutcome);
    },
    runMethod(method, params, ctx, handler) {
      const run = async (): Promise<Record<string, unknown>> => {
        try {
          assertCallerKnown(ctx);
          return await handler(params, ctx);
        } catch (error) {
          throw answerMethodFailure(error, method, ctx);
        }
      };
      if (!telemetry) return run();
      return observeOperation({ method, meta: params._meta, ctx }, run, (_result, error) => methodOutcome(error));
    },
    describe() {
      const lines = pipeline.map(
        (entry, index) => `${String(index + 1).padStart(2)}. ${entry.stage.padEnd(20)} ${entry.extension}`,
      );
      lines.push(`${String(pipeline.length + 1).padStart(2)}. ${'tool handler'.padEnd(20)}`);
      return lines.join('\n');
    },
  };
  return composed;
}

/** Identifiers marked mandatory that the peer lacks (empty when the peer is unknown). */
function missingMandatory(
  halves: readonly ServerExtension[],
  isNegotiated: (extensionName: string) => boolean,
  peerKnown: boolean,
): string[] {
  if (!peerKnown) return [];
  return halves
    .filter((half) => half.mandatory === true && !isNegotiated(half.name))
    .flatMap((half) => half.ids.slice(-1));
}

/** What running a tool call needs of a composition. */
interface Pipeline {
  /** The extensions, in pipeline order. */
  readonly halves: readonly ServerExtension[];
  /** The middlewares, outermost first, with their stage and the package serving it. */
  readonly stages: readonly {
    readonly stage: PipelineStage;
    readonly extension: string;
    readonly middleware: ToolMiddleware;
  }[];
  readonly callerState: readonly string[];
}

type Validate = (args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Refuses a call from a client known to lack a mandatory extension with -32021 (CORE-11). */
function assertMandatoryNegotiated(parts: Pipeline, ctx: CallContext): void {
  const missing = missingMandatory(
    parts.halves,
    (name) => ctx.negotiated(name) !== undefined,
    ctx.peerExtensions !== undefined,
  );
  if (missing.length > 0) {
    throw new WireError(
      ErrorCodes.MissingRequiredClientCapability,
      `This server requires the client to support: ${missing.join(', ')}`,
      { requiredCapabilities: { extensions: Object.fromEntries(missing.map((id) => [id, {}])) } },
    );
  }
}

/** Runs every `beginCall` hook in pipeline order (CORE-21). */
function beginCall(parts: Pipeline, call: ToolCall, ctx: CallContext): void {
  for (const half of parts.halves) {
    if (half.beginCall === undefined) continue;
    try {
      half.beginCall(call, ctx);
    } catch (error) {
      // A preparation hook may not refuse a call; refusing is a middleware's job.
      ctx.logger.warn(`${half.name}: beginCall threw; the call proceeds without it`, {
        tool: call.name,
        error: String(error),
      });
    }
  }
}

/**
 * The steps of one call, outermost first: the stages (each under a span of
 * its own when the call is traced), with the caller check and the argument
 * validation just under the errors stage.
 */
function pipelineSteps(
  parts: Pipeline,
  ctx: CallContext,
  validate: Validate | undefined,
  operation: ServerOperation | undefined,
): ToolMiddleware[] {
  const steps = parts.stages.map((entry) =>
    operation?.recording === true ? operation.stage(entry.middleware, entry) : entry.middleware,
  );
  const underErrors = parts.stages[0]?.stage === 'errors' ? 1 : 0;
  if (validate) {
    const validation: ToolMiddleware = async (current, _ctx, next) =>
      next({ ...current, arguments: await validate(current.arguments) });
    steps.splice(underErrors, 0, validation);
  }
  if (ctx.identity === undefined && parts.callerState.length > 0) {
    // Under the errors stage, so the refusal reaches the client as a structured error.
    const callerState = parts.callerState;
    steps.splice(underErrors, 0, () => Promise.reject(unidentifiedCaller(callerState)));
  }
  return steps;
}

/** Runs a tool call through the pipeline and then the handler. */
async function runPipeline(
  parts: Pipeline,
  call: ToolCall,
  ctx: CallContext,
  handler: ToolHandler,
  validate: Validate | undefined,
  operation: ServerOperation | undefined,
): Promise<ToolResult> {
  assertMandatoryNegotiated(parts, ctx);
  beginCall(parts, call, ctx);
  const steps = pipelineSteps(parts, ctx, validate, operation);
  const dispatch = async (index: number, current: ToolCall): Promise<ToolResult> => {
    const middleware = steps[index];
    if (!middleware) {
      assertApproved(ctx);
      markHandlerStarted(ctx);
      // The handler's own calls belong to the request's span, not to the innermost stage's.
      return operation === undefined
        ? handler(current.arguments, ctx)
        : operation.inRequest(() => handler(current.arguments, ctx));
    }
    let called = false;
    return middleware(current, ctx, (replacement) => {
      if (called) throw new Error('next() called twice by a tool-call middleware');
      called = true;
      return dispatch(index + 1, replacement ?? current);
    });
  };
  return dispatch(0, call);
}

/**
 * {@link runPipeline}, logging an internal error that reaches the core: one
 * no `@ext/errors` stage answered (OBS-2). Deliberate failures (`WireError`,
 * `ExtensionError`) are the caller's business, not the log's.
 */
async function runLogged(
  parts: Pipeline,
  call: ToolCall,
  ctx: CallContext,
  handler: ToolHandler,
  validate: Validate | undefined,
  operation: ServerOperation | undefined,
): Promise<ToolResult> {
  try {
    return await runPipeline(parts, call, ctx, handler, validate, operation);
  } catch (error) {
    if (!WireError.isInstance(error) && !ExtensionError.isInstance(error)) {
      logInternalError(ctx.logger, {
        correlationId: newCorrelationId(),
        method: 'tools/call',
        tool: call.name,
        principal: ctx.principal,
        error,
      });
    }
    throw error;
  }
}

/** The refusal of a request whose caller cannot be told apart from others (core SPEC, IDENT-5). */
function unidentifiedCaller(extensions: readonly string[]): ExtensionError {
  return new ExtensionError(
    'auth_required',
    'CALLER_UNIDENTIFIED',
    'This server cannot tell its callers apart, so it refuses requests that would touch per-caller state.',
    {
      userActionable: false,
      suggestion: 'Ask the server operator to authenticate callers; the request itself cannot fix this.',
      details: { extensions: [...extensions] },
    },
  );
}

/** The client side after composition. */
export interface ComposedClient {
  readonly extensions: readonly ClientExtension[];
  readonly logger: Logger;
  /** Whether requests are traced and carry their trace context (`ComposeOptions.telemetry`). */
  readonly telemetry: boolean;
  capabilities(): Record<string, Record<string, unknown>>;
  negotiate(peerExtensions: unknown): NegotiationTable;
}

/** Composes client extension halves (same rules as {@link composeServer}). */
export function composeClient(input: readonly Maybe<ClientExtension>[], options: ComposeOptions = {}): ComposedClient {
  const logger = options.logger ?? consoleLogger;
  const halves = validateHalves(input, 'client', options);
  return {
    extensions: halves,
    logger,
    telemetry: options.telemetry !== false,
    capabilities() {
      const out: Record<string, Record<string, unknown>> = {};
      for (const half of halves) for (const id of half.ids) out[id] = { ...half.settings };
      return out;
    },
    negotiate: negotiator(halves, logger),
  };
}
