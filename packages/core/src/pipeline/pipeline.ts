/**
 * One tool call through the composed pipeline (docs/ARCHITECTURE.md, 'The
 * tool-call pipeline'): the mandatory-extension check, the `beginCall`
 * hooks, the stages outermost first with the caller check and argument
 * validation just under the errors stage, then the handler.
 */
import { assertApproved } from '../cooperation/approval.js';
import { ErrorCodes, ExtensionError, WireError } from '../contract/errors.js';
import { markHandlerStarted } from '../cooperation/execution.js';
import type { CallContext, ServerExtension, ToolHandler, ToolMiddleware, ToolNext } from '../contract/extension.js';
import { isInputRequiredResult } from './input-round.js';
import { logInternalError, newCorrelationId } from '../telemetry/internal-errors.js';
import type { ServerOperation } from '../telemetry/telemetry-server.js';
import type { ToolCall, ToolResult } from '../contract/types.js';

/** What running a tool call needs of a composition. */
export interface Pipeline {
  /** The extensions, in pipeline order. */
  readonly halves: readonly ServerExtension[];
  /** The middlewares, outermost first, with their stage and the package serving it. */
  readonly stages: readonly {
    /** The placement's label (`stageLabel`). */
    readonly stage: string;
    readonly extension: string;
    readonly middleware: ToolMiddleware;
  }[];
  readonly callerState: readonly string[];
}

/** The tool's argument check: the parsed arguments, or a throw. */
export type Validate = (args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Identifiers marked mandatory that the peer lacks (empty when the peer is unknown). */
export function missingMandatory(
  halves: readonly ServerExtension[],
  isNegotiated: (half: ServerExtension) => boolean,
  peerKnown: boolean,
): string[] {
  if (!peerKnown) return [];
  return halves.filter((half) => half.mandatory === true && !isNegotiated(half)).flatMap((half) => half.ids.slice(-1));
}

/** The refusal of a request whose caller cannot be told apart from others (core SPEC, IDENT-5). */
export function unidentifiedCaller(extensions: readonly string[]): ExtensionError {
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

/** Refuses a call from a client known to lack a mandatory extension with -32021 (CORE-11). */
function assertMandatoryNegotiated(parts: Pipeline, ctx: CallContext): void {
  const missing = missingMandatory(
    parts.halves,
    (half) => half.ids.some((id) => ctx.negotiated(id) !== undefined),
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

/**
 * A middleware's `next`: callable once, and again only after the inner
 * stages answered `input_required` without a tool result (a new round of
 * multi-round-trip input, which the tasks stage runs in the background;
 * core SPEC, CORE-41). A second call while the first is in flight, or after
 * it ended otherwise, throws.
 */
function onceUnlessInputRequired(run: (replacement: ToolCall | undefined) => Promise<ToolResult>): ToolNext {
  let state: 'idle' | 'running' | 'input' | 'done' = 'idle';
  return (replacement) => {
    if (state === 'running' || state === 'done') throw new Error('next() called twice by a tool-call middleware');
    state = 'running';
    return run(replacement).then(
      (result) => {
        state = isInputRequiredResult(result) ? 'input' : 'done';
        return result;
      },
      (error: unknown) => {
        state = 'done';
        throw error;
      },
    );
  };
}

/**
 * Runs `call` through `steps`, outermost first, and then `handler`, once
 * every approval asked for was granted.
 */
function runSteps(
  steps: readonly ToolMiddleware[],
  call: ToolCall,
  ctx: CallContext,
  handler: (args: Record<string, unknown>) => ToolResult | Promise<ToolResult>,
): Promise<ToolResult> {
  const dispatch = async (index: number, current: ToolCall): Promise<ToolResult> => {
    const middleware = steps[index];
    if (!middleware) {
      assertApproved(ctx);
      markHandlerStarted(ctx);
      return handler(current.arguments);
    }
    return middleware(
      current,
      ctx,
      onceUnlessInputRequired((replacement) => dispatch(index + 1, replacement ?? current)),
    );
  };
  return dispatch(0, call);
}

/**
 * Runs a tool call through the pipeline and then the handler, logging an
 * internal error that reaches the core: one no `@ext/errors` stage answered
 * (OBS-2). Deliberate failures (`WireError`, `ExtensionError`) are the
 * caller's business, not the log's.
 */
export async function runToolCall(
  parts: Pipeline,
  call: ToolCall,
  ctx: CallContext,
  handler: ToolHandler,
  validate: Validate | undefined,
  operation: ServerOperation | undefined,
): Promise<ToolResult> {
  try {
    assertMandatoryNegotiated(parts, ctx);
    beginCall(parts, call, ctx);
    const steps = pipelineSteps(parts, ctx, validate, operation);
    // The handler's own calls belong to the request's span, not to the innermost stage's.
    return await runSteps(steps, call, ctx, (args) =>
      operation === undefined ? handler(args, ctx) : operation.inRequest(() => handler(args, ctx)),
    );
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
